#pragma once
// composition(A, B) = A o B, the layout R with R(c) = A(B(c)) for every c in B's domain and
// B's shape (CuTe's composition). B distributes over its modes, so the core case is a
// coalesced A composed with one mode s:d of B: divide the stride d out of A's shape from
// the left, then keep the first s elements, checking CuTe's stride and shape divisibility
// conditions on the way. A tiler as B composes mode by mode and drops A's other modes.
#include <layouts/coalesce.hpp>
#include <layouts/front_end.hpp>
#include <layouts/outcome.hpp>
#include <layouts/tiler.hpp>

namespace tw::core {

// a / b when one of them divides the other (1 when b is the multiple), else !ok.
struct Quotient {
  int64_t value = 1;
  bool ok = true;
};
constexpr Quotient shape_div(int64_t a, int64_t b) {
  if (b != 0 && a % b == 0)
    return {a / b, true};
  if (a != 0 && b % a == 0)
    return {1, true};
  return {1, false};
}

// A (already coalesced with `extend`) o s:d.
constexpr Outcome compose_mode(const Modes& a, int64_t s, int64_t d) {
  if (d < 0)
    return fail(Status::negative_stride);
  if (d == 0 || a.n == 1) {
    DynLayout r;
    detail::leaf(r.t, s, d == 0 ? 0 : detail::checked_mul(d, a.d[0], "composition"));
    return success(r);
  }
  const int last = a.n - 1;
  int64_t divided[detail::kMaxLeaves]{};
  Modes out;
  // Divide d out of the shape of A, mode by mode from the left.
  int64_t rest_stride = d;
  for (int i = 0; i < last; ++i) {
    Quotient q = shape_div(a.s[i], rest_stride);
    Quotient r = shape_div(rest_stride, a.s[i]);
    if (!q.ok || !r.ok)
      return fail(Status::stride_not_divisible);
    divided[i] = q.value;
    rest_stride = r.value;
  }
  // Keep the first s elements of what remains.
  int64_t rest_shape = s;
  for (int i = 0; i < last; ++i) {
    Quotient q = shape_div(rest_shape, divided[i]);
    if (!q.ok)
      return fail(Status::shape_not_divisible);
    const int64_t kept = divided[i] < rest_shape ? divided[i] : rest_shape;
    out.push(kept, detail::checked_mul(a.d[i], a.s[i] / divided[i], "composition"));
    rest_shape = q.value;
  }
  out.push(rest_shape, detail::checked_mul(rest_stride, a.d[last], "composition"));
  return success(layout_of(coalesce_modes(out)));
}

// A o B for a layout B: B's nesting with each mode replaced by A o mode.
constexpr Outcome composition(const DynLayout& a, const DynLayout& b) {
  const Modes flat_a = coalesce_modes(leaves_of(a), /*extend=*/true);
  DynLayout r;
  int k = 0;
  for (int i = 0; i < b.t.ntok; ++i) {
    if (b.t.tok[i] != detail::kLeaf) {
      detail::push_token(r.t, b.t.tok[i]);
      continue;
    }
    if (b.t.a[k] <= 0)
      return fail(Status::nonpositive_shape); // a tiler given as 0
    Outcome m = compose_mode(flat_a, b.t.a[k], b.t.b[k]);
    ++k;
    if (!m.ok())
      return m;
    detail::append(r.t, m.layout.t);
  }
  return success(r);
}

// A o T for a tiler T at node `pos`: a layout composes whole, a tuple mode by mode.
constexpr Outcome composition(const DynLayout& a, const DynTiler& t, int pos = 0) {
  if (t.overflow)
    return fail(Status::too_large);
  if (detail::is_leaf_at(t.structure, pos))
    return composition(a, t.leaf[detail::leaf_index(t.structure, pos)]);
  detail::Children c = detail::children_of(t.structure, pos);
  if (c.n > a.rank())
    return fail(Status::tiler_rank);
  detail::Tree parts[kMaxTilerLeaves * 2];
  for (int i = 0; i < c.n; ++i) {
    Outcome m = composition(a.mode(i), t, c.pos[i]);
    if (!m.ok())
      return m;
    parts[i] = m.layout.t;
  }
  return success({detail::make_tuple_tree(parts, c.n)});
}

} // namespace tw::core

namespace tw {

// composition(A, B): B is a layout, a shape, or a tuple of tilers (make_tile).
template <class A, class B>
constexpr auto composition(const A& a, const B& b) {
  return detail::run(
      "composition",
      [](const auto& x, const auto& y) {
        if constexpr (AnyLayout<std::remove_cvref_t<decltype(y)>>)
          return core::composition(to_dyn(x), to_dyn(y));
        else
          return core::composition(to_dyn(x), to_tiler(y));
      },
      a, b);
}

} // namespace tw
