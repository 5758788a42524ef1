#pragma once
// right_inverse(A): the largest R with A(R(i)) == i (CuTe's right_inverse): follow the
// strides of the coalesced A from 1, each mode's reach naming the next stride, and give
// each visited mode its compact stride. left_inverse(A): R with R(A(i)) == i for an
// injective A, the right inverse of (A, complement(A)).
#include <layouts/coalesce.hpp>
#include <layouts/complement.hpp>
#include <layouts/front_end.hpp>
#include <layouts/outcome.hpp>

namespace tw::core {

constexpr Outcome right_inverse(const DynLayout& a) {
  const Modes m = coalesce_modes(leaves_of(a));
  for (int i = 0; i < m.n; ++i)
    if (m.d[i] < 0)
      return fail(Status::negative_stride); // as left_inverse and complement
  int64_t compact[detail::kMaxLeaves]{};
  int64_t running = 1;
  for (int i = 0; i < m.n; ++i) {
    compact[i] = running;
    running = detail::checked_mul(running, m.s[i], "right_inverse");
  }
  bool used[detail::kMaxLeaves]{};
  Modes r;
  int64_t next = 1;
  for (bool found = true; found;) {
    found = false;
    for (int i = 0; i < m.n; ++i) {
      if (!used[i] && m.d[i] == next) {
        used[i] = found = true;
        r.push(m.s[i], compact[i]);
        next = detail::checked_mul(m.s[i], m.d[i], "right_inverse");
        break;
      }
    }
  }
  if (r.n == 0)
    r.push(1, 0);
  return success(layout_of(r));
}

constexpr Outcome left_inverse(const DynLayout& a) {
  for (int k = 0; k < a.t.nleaf; ++k)
    if (a.t.b[k] == 0 && a.t.a[k] > 1)
      return fail(Status::not_injective);
  Outcome c = complement(a);
  if (!c.ok())
    return c;
  return right_inverse(concat(a, c.layout));
}

} // namespace tw::core

namespace tw {

template <class L>
constexpr auto right_inverse(const L& layout) {
  return detail::run(
      "right_inverse", [](const auto& l) { return core::right_inverse(to_dyn(l)); }, layout);
}
template <class L>
constexpr auto left_inverse(const L& layout) {
  return detail::run(
      "left_inverse", [](const auto& l) { return core::left_inverse(to_dyn(l)); }, layout);
}

} // namespace tw
