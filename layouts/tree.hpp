#pragma once
// The one run-time representation of hierarchical integer tuples and layouts: a fixed-capacity
// literal tree, usable both in constant evaluation and at run time. All layout algebra is
// written once over this tree; the Hana-typed layouts convert to it and back (see
// int_tuple.hpp), so static and dynamic code share every algorithm.
//
// Encoding: the tree is stored in pre-order as tokens, '(' opens a tuple, ')' closes it and
// 'x' is a leaf. Leaves are numbered in order; leaf k holds a[k] (the shape, or the value of
// an int tuple) and b[k] (the stride of a layout, unused for int tuples). The class is
// structural so a static result can be passed as a template argument and reified into types.
#include <layouts/status.hpp>

#include <cstdint>

namespace tw::detail {

inline constexpr int kMaxLeaves = 32;
inline constexpr int kMaxTokens = 96;
inline constexpr char kOpen = '(';
inline constexpr char kClose = ')';
inline constexpr char kLeaf = 'x';

struct Tree {
  int64_t a[kMaxLeaves]{};
  int64_t b[kMaxLeaves]{};
  char tok[kMaxTokens]{};
  int nleaf = 0;
  int ntok = 0;
  bool overflow = false; // set when a builder ran out of capacity

  constexpr bool operator==(const Tree&) const = default;
};

// ---- building ------------------------------------------------------------------------------

constexpr void push_token(Tree& t, char c) {
  if (t.ntok >= kMaxTokens) {
    t.overflow = true;
    return;
  }
  t.tok[t.ntok++] = c;
}
constexpr void open(Tree& t) {
  push_token(t, kOpen);
}
constexpr void close(Tree& t) {
  push_token(t, kClose);
}
constexpr void leaf(Tree& t, int64_t a, int64_t b = 0) {
  if (t.nleaf >= kMaxLeaves || t.ntok >= kMaxTokens) {
    t.overflow = true;
    return;
  }
  t.a[t.nleaf] = a;
  t.b[t.nleaf] = b;
  ++t.nleaf;
  t.tok[t.ntok++] = kLeaf;
}

// ---- walking -------------------------------------------------------------------------------

constexpr bool is_leaf_at(const Tree& t, int pos) {
  return t.tok[pos] == kLeaf;
}

// One past the last token of the node at `pos`.
constexpr int end_of(const Tree& t, int pos) {
  if (t.tok[pos] != kOpen)
    return pos + 1;
  int depth = 0;
  for (int i = pos; i < t.ntok; ++i) {
    if (t.tok[i] == kOpen)
      ++depth;
    else if (t.tok[i] == kClose && --depth == 0)
      return i + 1;
  }
  return t.ntok;
}

// Number of the first leaf at or after token `pos`.
constexpr int leaf_index(const Tree& t, int pos) {
  int n = 0;
  for (int i = 0; i < pos; ++i)
    n += t.tok[i] == kLeaf;
  return n;
}

struct Children {
  int pos[kMaxTokens]{};
  int n = 0;
};

// Token positions of the children of the tuple at `pos` (a leaf has none).
constexpr Children children_of(const Tree& t, int pos) {
  Children c;
  if (t.tok[pos] != kOpen)
    return c;
  int p = pos + 1;
  while (p < t.ntok && t.tok[p] != kClose) {
    c.pos[c.n++] = p;
    p = end_of(t, p);
  }
  return c;
}

// Rank of a node: a leaf is a rank-1 mode, a tuple has one mode per child.
constexpr int rank_at(const Tree& t, int pos) {
  return is_leaf_at(t, pos) ? 1 : children_of(t, pos).n;
}

constexpr int depth_at(const Tree& t, int pos) {
  if (is_leaf_at(t, pos))
    return 0;
  int d = 0;
  Children c = children_of(t, pos);
  for (int i = 0; i < c.n; ++i) {
    int di = depth_at(t, c.pos[i]);
    d = di > d ? di : d;
  }
  return d + 1;
}

// Copies the node at `pos` of `src` to the end of `dst`.
constexpr void append(Tree& dst, const Tree& src, int pos = 0) {
  int end = end_of(src, pos);
  int k = leaf_index(src, pos);
  for (int i = pos; i < end; ++i) {
    if (src.tok[i] == kLeaf) {
      leaf(dst, src.a[k], src.b[k]);
      ++k;
    } else {
      push_token(dst, src.tok[i]);
    }
  }
  dst.overflow = dst.overflow || src.overflow;
}

constexpr Tree subtree(const Tree& t, int pos) {
  Tree s;
  append(s, t, pos);
  return s;
}

// Mode i of the root (the root itself when it is a leaf and i == 0).
constexpr Tree mode(const Tree& t, int i) {
  if (is_leaf_at(t, 0))
    return t;
  return subtree(t, children_of(t, 0).pos[i]);
}

// The tuple (parts[0], ..., parts[n-1]).
constexpr Tree make_tuple_tree(const Tree* parts, int n) {
  Tree t;
  open(t);
  for (int i = 0; i < n; ++i)
    append(t, parts[i]);
  close(t);
  return t;
}

// A tuple with a single child is replaced by that child (CuTe returns bare modes).
constexpr Tree unwrap_single(const Tree& t) {
  if (!is_leaf_at(t, 0) && children_of(t, 0).n == 1)
    return subtree(t, 1);
  return t;
}

// All leaves, in order, as a flat tuple; a single leaf stays a bare leaf.
constexpr Tree flatten(const Tree& t) {
  if (t.nleaf == 1 && t.ntok == 1)
    return t;
  Tree f;
  open(f);
  for (int k = 0; k < t.nleaf; ++k)
    leaf(f, t.a[k], t.b[k]);
  close(f);
  f.overflow = f.overflow || t.overflow;
  return f;
}

// Same nesting (tokens), values ignored.
constexpr bool congruent(const Tree& x, const Tree& y) {
  if (x.ntok != y.ntok)
    return false;
  for (int i = 0; i < x.ntok; ++i)
    if (x.tok[i] != y.tok[i])
      return false;
  return true;
}

// x is weakly congruent to y when every leaf of x matches a whole node of y (x is a
// coarser profile of y): used for hierarchical coordinates.
constexpr bool weakly_congruent_at(const Tree& x, int px, const Tree& y, int py) {
  if (is_leaf_at(x, px))
    return true;
  if (is_leaf_at(y, py))
    return false;
  Children cx = children_of(x, px), cy = children_of(y, py);
  if (cx.n != cy.n)
    return false;
  for (int i = 0; i < cx.n; ++i)
    if (!weakly_congruent_at(x, cx.pos[i], y, cy.pos[i]))
      return false;
  return true;
}

// ---- arithmetic over leaves ----------------------------------------------------------------

constexpr int64_t product_of_a(const Tree& t, int first_leaf, int end_leaf) {
  int64_t p = 1;
  for (int k = first_leaf; k < end_leaf; ++k)
    p = checked_mul(p, t.a[k], "size");
  return p;
}

constexpr int64_t size_at(const Tree& t, int pos) {
  return product_of_a(t, leaf_index(t, pos), leaf_index(t, end_of(t, pos)));
}

// Value of the layout at a linear (colexicographic) index restricted to the leaves
// [first, end); like CuTe, the last leaf takes whatever is left so indices past the size
// continue along the last mode.
constexpr int64_t eval_linear(const Tree& t, int first_leaf, int end_leaf, int64_t idx) {
  int64_t r = 0;
  for (int k = first_leaf; k < end_leaf; ++k) {
    if (k + 1 == end_leaf) {
      r = checked_add(r, checked_mul(idx, t.b[k], "layout evaluation"), "layout evaluation");
    } else {
      r = checked_add(r, checked_mul(idx % t.a[k], t.b[k], "layout evaluation"),
                      "layout evaluation");
      idx /= t.a[k];
    }
  }
  return r;
}

// Value of the layout node `pl` of `l` at the coordinate node `pc` of `c` (weakly congruent).
constexpr int64_t eval_coord(const Tree& l, int pl, const Tree& c, int pc) {
  if (is_leaf_at(c, pc))
    return eval_linear(l, leaf_index(l, pl), leaf_index(l, end_of(l, pl)), c.a[leaf_index(c, pc)]);
  Children cl = children_of(l, pl), cc = children_of(c, pc);
  int64_t r = 0;
  for (int i = 0; i < cc.n; ++i)
    r = checked_add(r, eval_coord(l, cl.pos[i], c, cc.pos[i]), "layout evaluation");
  return r;
}

// The coordinate of a linear index in the shape of node `pos`, congruent to that node.
constexpr Tree idx2crd_tree(const Tree& shape, int64_t idx) {
  Tree c;
  int k = 0;
  for (int i = 0; i < shape.ntok; ++i) {
    if (shape.tok[i] != kLeaf) {
      push_token(c, shape.tok[i]);
      continue;
    }
    if (k + 1 == shape.nleaf) {
      leaf(c, idx);
    } else {
      leaf(c, idx % shape.a[k]);
      idx /= shape.a[k];
    }
    ++k;
  }
  return c;
}

} // namespace tw::detail
