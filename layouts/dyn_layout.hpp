#pragma once
// DynTuple and DynLayout: hierarchical int tuples and layouts whose structure is a value.
// They are literal types, so they work in constant expressions as well as at run time; the
// `tilewave layout` command and every algebra result with a dynamic input use them.
#include <layouts/notation.hpp>
#include <layouts/status.hpp>
#include <layouts/tree.hpp>

#include <initializer_list>
#include <string>
#include <type_traits>

namespace tw {

// A hierarchical tuple of integers, e.g. ((2,2),4).
struct DynTuple {
  detail::Tree t;

  constexpr int rank() const { return detail::rank_at(t, 0); }
  constexpr int depth() const { return detail::depth_at(t, 0); }
  constexpr bool is_leaf() const { return detail::is_leaf_at(t, 0); }
  constexpr int64_t value() const { return t.a[0]; } // of a leaf
  constexpr int64_t product() const { return detail::product_of_a(t, 0, t.nleaf); }
  constexpr DynTuple operator[](int i) const { return {detail::mode(t, i)}; }
  constexpr bool operator==(const DynTuple&) const = default;
};

// A leaf tuple, and a flat tuple of values.
constexpr DynTuple dyn_int(int64_t v) {
  DynTuple r;
  detail::leaf(r.t, v);
  return r;
}
constexpr DynTuple dyn_tuple(std::initializer_list<DynTuple> parts) {
  DynTuple r;
  detail::open(r.t);
  for (const DynTuple& p : parts)
    detail::append(r.t, p.t);
  detail::close(r.t);
  return r;
}

// A layout (shape : stride) whose shape and stride are stored as one tree of leaf pairs, so
// they are congruent by construction.
struct DynLayout {
  detail::Tree t;

  constexpr int64_t size() const { return detail::product_of_a(t, 0, t.nleaf); }
  constexpr int64_t cosize() const { return detail::checked_add((*this)(size() - 1), 1, "cosize"); }
  constexpr int rank() const { return detail::rank_at(t, 0); }
  constexpr int depth() const { return detail::depth_at(t, 0); }
  constexpr DynLayout mode(int i) const { return {detail::mode(t, i)}; }
  constexpr DynTuple shape() const { return {values(false)}; }
  constexpr DynTuple stride() const { return {values(true)}; }

  // From a linear index (colexicographic over the shape).
  constexpr int64_t operator()(int64_t idx) const {
    return detail::eval_linear(t, 0, t.nleaf, idx);
  }

  // From an N-d coordinate, one integer per mode (each integer covers its whole mode).
  template <class... I>
  requires(sizeof...(I) >= 2 && (std::is_convertible_v<I, int64_t> && ...)) constexpr int64_t
  operator()(I... crd) const {
    if (rank() != int(sizeof...(I)))
      throw LayoutError(Status::coordinate_rank, ": " + std::to_string(sizeof...(I)) +
                                                     " coordinates for the layout " +
                                                     to_string(t, true));
    return (*this)(dyn_tuple({dyn_int(static_cast<int64_t>(crd))...}));
  }

  // From a hierarchical coordinate, weakly congruent to the shape.
  constexpr int64_t operator()(const DynTuple& crd) const {
    if (!detail::weakly_congruent_at(crd.t, 0, t, 0))
      throw LayoutError(Status::coordinate_rank, ": coordinate " + to_string(crd.t, false) +
                                                     " for the layout " + to_string(t, true));
    return detail::eval_coord(t, 0, crd.t, 0);
  }

  constexpr bool operator==(const DynLayout&) const = default;

private:
  constexpr detail::Tree values(bool strides) const {
    detail::Tree r = t;
    for (int k = 0; k < r.nleaf; ++k) {
      r.a[k] = strides ? t.b[k] : t.a[k];
      r.b[k] = 0;
    }
    return r;
  }
};

// Shape and stride must be congruent; Status::ok or the reason they cannot form a layout.
constexpr Status check_layout(const DynTuple& shape, const DynTuple& stride) {
  if (shape.t.overflow || stride.t.overflow)
    return Status::too_large;
  if (!detail::congruent(shape.t, stride.t))
    return Status::not_congruent;
  for (int k = 0; k < shape.t.nleaf; ++k)
    if (shape.t.a[k] <= 0)
      return Status::nonpositive_shape;
  return Status::ok;
}

// Builds a layout without checks (callers checked).
constexpr DynLayout zip_layout(const DynTuple& shape, const DynTuple& stride) {
  DynLayout l{shape.t};
  for (int k = 0; k < l.t.nleaf; ++k)
    l.t.b[k] = stride.t.a[k];
  return l;
}

constexpr DynLayout make_layout(const DynTuple& shape, const DynTuple& stride) {
  if (Status s = check_layout(shape, stride); s != Status::ok)
    throw LayoutError(s, ": shape " + to_string(shape.t, false) + " with stride " +
                             to_string(stride.t, false));
  return zip_layout(shape, stride);
}

// Column-major (compact, first mode fastest) strides for a shape.
constexpr DynTuple compact_col_major(const DynTuple& shape) {
  DynTuple s = shape;
  int64_t running = 1;
  for (int k = 0; k < s.t.nleaf; ++k) {
    s.t.a[k] = running;
    running = detail::checked_mul(running, shape.t.a[k], "compact strides");
  }
  return s;
}

constexpr DynLayout make_layout(const DynTuple& shape) {
  return make_layout(shape, compact_col_major(shape));
}

// Compact strides that visit the modes in `order`: the mode with the smallest order value
// gets stride 1 (CuTe's make_ordered_layout; ties keep mode order). `order` is congruent to
// the shape or a flat tuple with one entry per leaf.
constexpr DynTuple compact_ordered(const DynTuple& shape, const DynTuple& order) {
  DynTuple s = shape;
  const int n = shape.t.nleaf;
  bool done[detail::kMaxLeaves]{};
  int64_t running = 1;
  for (int step = 0; step < n; ++step) {
    int best = -1;
    for (int k = 0; k < n; ++k)
      if (!done[k] && (best < 0 || order.t.a[k] < order.t.a[best]))
        best = k;
    done[best] = true;
    s.t.a[best] = running;
    running = detail::checked_mul(running, shape.t.a[best], "compact strides");
  }
  return s;
}

constexpr DynLayout make_ordered_layout(const DynTuple& shape, const DynTuple& order) {
  if (order.t.nleaf != shape.t.nleaf)
    throw LayoutError(Status::not_congruent, ": make_ordered_layout order " +
                                                 to_string(order.t, false) + " for the shape " +
                                                 to_string(shape.t, false));
  return make_layout(shape, compact_ordered(shape, order));
}

// Free-function spelling, shared with the typed layouts.
constexpr int64_t size(const DynLayout& l) {
  return l.size();
}
constexpr int64_t cosize(const DynLayout& l) {
  return l.cosize();
}
constexpr int rank(const DynLayout& l) {
  return l.rank();
}
constexpr int depth(const DynLayout& l) {
  return l.depth();
}
constexpr DynTuple shape(const DynLayout& l) {
  return l.shape();
}
constexpr DynTuple stride(const DynLayout& l) {
  return l.stride();
}
constexpr int64_t size(const DynTuple& t) {
  return t.product();
}
constexpr int rank(const DynTuple& t) {
  return t.rank();
}
constexpr int depth(const DynTuple& t) {
  return t.depth();
}

constexpr int64_t crd2idx(const DynTuple& crd, const DynTuple& shape, const DynTuple& stride) {
  return make_layout(shape, stride)(crd);
}
constexpr DynTuple idx2crd(int64_t idx, const DynTuple& shape) {
  return {detail::idx2crd_tree(shape.t, idx)};
}

} // namespace tw
