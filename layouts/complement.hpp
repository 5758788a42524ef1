#pragma once
// complement(A, M): the ordered layout R (positive increasing strides) whose image is
// disjoint from A's and that, together with A, fills [0, M) (CuTe's complement). Without
// M the bound is cosize(A). Sort A's non-trivial modes by stride; each gap between one
// mode's reach and the next stride becomes a mode of R, and the rest repeats to M.
#include <layouts/coalesce.hpp>
#include <layouts/front_end.hpp>
#include <layouts/outcome.hpp>

namespace tw::core {

constexpr Outcome complement(const DynLayout& a, int64_t bound) {
  // Filter: stride-0 modes and size-1 modes do not touch new indices.
  Modes m = leaves_of(a);
  for (int i = 0; i < m.n; ++i)
    if (m.s[i] <= 0)
      return fail(Status::nonpositive_shape); // a tiler given as 0
  for (int i = 0; i < m.n; ++i)
    if (m.d[i] == 0)
      m.s[i] = 1;
  m = coalesce_modes(m);
  for (int i = 0; i < m.n; ++i)
    if (m.d[i] < 0)
      return fail(Status::negative_stride);
  Modes result;
  int64_t reach = 1; // the stride at which the next mode of the result starts
  if (m.n > 0) {
    // Selection sort by stride (stable, like CuTe's repeated minimum).
    for (int i = 0; i < m.n; ++i) {
      int best = i;
      for (int j = i + 1; j < m.n; ++j)
        if (m.d[j] < m.d[best])
          best = j;
      for (int j = best; j > i; --j) {
        int64_t s = m.s[j], d = m.d[j];
        m.s[j] = m.s[j - 1];
        m.d[j] = m.d[j - 1];
        m.s[j - 1] = s;
        m.d[j - 1] = d;
      }
    }
    for (int i = 0; i < m.n; ++i) {
      const int64_t gap = m.d[i] / reach;
      if (gap == 0)
        return fail(Status::not_injective);
      result.push(gap, reach);
      reach = detail::checked_mul(m.d[i], m.s[i], "complement");
    }
  }
  result.push(ceil_div(bound, reach), reach);
  return success(layout_of(coalesce_modes(result)));
}

constexpr Outcome complement(const DynLayout& a) {
  return complement(a, a.cosize());
}

} // namespace tw::core

namespace tw {

template <class L>
constexpr auto complement(const L& layout) {
  return detail::run(
      "complement", [](const auto& l) { return core::complement(to_dyn(l)); }, layout);
}
// The bound is an integer or a shape (its size counts).
template <class L, class M>
constexpr auto complement(const L& layout, const M& bound) {
  return detail::run(
      "complement",
      [](const auto& l, const auto& b) {
        return core::complement(to_dyn(l), to_dyn_tuple(to_int_tuple(b)).product());
      },
      layout, bound);
}

} // namespace tw
