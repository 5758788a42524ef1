#pragma once
// coalesce: the simplest layout with the same function on its domain (CuTe's coalesce).
// Flatten, drop size-1 modes, and merge neighbours s0:d0, s1:d1 when d1 == s0 * d0.
// Every value is known to the tree, so static and dynamic inputs coalesce alike (CuTe
// merges only static neighbours; the functions are the same).
#include <layouts/front_end.hpp>
#include <layouts/outcome.hpp>

namespace tw::core {

// `extend` keeps a trailing size-1 mode (as size 2) so the result also agrees with the
// input past its size, where the last mode keeps counting (CuTe's coalesce_x). Composition
// needs that for its left operand.
constexpr Modes coalesce_modes(const Modes& in, bool extend = false) {
  Modes out;
  for (int i = 0; i < in.n; ++i) {
    int64_t s = in.s[i];
    const int64_t d = in.d[i];
    if (s == 1) {
      if (!(extend && i + 1 == in.n))
        continue;
      s = 2;
    }
    int64_t reach = 0; // where the previous mode ends; a product past int64 never merges
    if (out.n > 0 && !__builtin_mul_overflow(out.s[out.n - 1], out.d[out.n - 1], &reach) &&
        reach == d)
      out.s[out.n - 1] = detail::checked_mul(out.s[out.n - 1], s, "coalesce");
    else
      out.push(s, d);
  }
  out.overflow = in.overflow;
  return out;
}

constexpr Outcome coalesce(const DynLayout& l) {
  return success(layout_of(coalesce_modes(leaves_of(l))));
}

// By-mode coalesce: coalesce the sub-layouts at the leaves of `profile`; modes past the
// profile's rank are kept as they are.
constexpr Outcome coalesce_by(const DynLayout& l, const DynTuple& profile) {
  if (profile.is_leaf())
    return coalesce(l);
  if (profile.rank() > l.rank())
    return fail(Status::tiler_rank);
  detail::Tree parts[detail::kMaxLeaves];
  const int r = l.rank();
  for (int i = 0; i < r; ++i) {
    if (i < profile.rank()) {
      Outcome m = coalesce_by(l.mode(i), profile[i]);
      if (!m.ok())
        return m;
      parts[i] = m.layout.t;
    } else {
      parts[i] = l.mode(i).t;
    }
  }
  return success({detail::make_tuple_tree(parts, r)});
}

} // namespace tw::core

namespace tw {

template <class L>
constexpr auto coalesce(const L& layout) {
  return detail::run(
      "coalesce", [](const auto& l) { return core::coalesce(to_dyn(l)); }, layout);
}
template <class L, class P>
constexpr auto coalesce(const L& layout, const P& profile) {
  return detail::run(
      "coalesce",
      [](const auto& l, const auto& p) { return core::coalesce_by(to_dyn(l), to_dyn_tuple(p)); },
      layout, profile);
}

} // namespace tw
