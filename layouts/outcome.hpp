#pragma once
// Building blocks of the algebra in tw::core: a flat list of modes and the Outcome
// (status + layout) every core operation returns. Core operations never throw, so they
// run unchanged in constant evaluation; the typed front ends turn a bad Status into a
// static_assert or a LayoutError (front_end.hpp).
#include <layouts/dyn_layout.hpp>
#include <layouts/status.hpp>
#include <layouts/tree.hpp>

namespace tw::core {

struct Outcome {
  Status status = Status::ok;
  DynLayout layout;
  constexpr bool ok() const { return status == Status::ok; }
};

constexpr Outcome fail(Status s) {
  return {s, {}};
}
constexpr Outcome success(const DynLayout& l) {
  return {l.t.overflow ? Status::too_large : Status::ok, l};
}

// A flat sequence of (shape, stride) modes.
struct Modes {
  int64_t s[detail::kMaxLeaves]{};
  int64_t d[detail::kMaxLeaves]{};
  int n = 0;
  bool overflow = false;

  constexpr void push(int64_t shape, int64_t stride) {
    if (n >= detail::kMaxLeaves) {
      overflow = true;
      return;
    }
    s[n] = shape;
    d[n] = stride;
    ++n;
  }
};

constexpr Modes leaves_of(const DynLayout& l) {
  Modes m;
  for (int k = 0; k < l.t.nleaf; ++k)
    m.push(l.t.a[k], l.t.b[k]);
  m.overflow = l.t.overflow;
  return m;
}

// The modes as a layout: none -> 1:0, one -> a bare mode, more -> a flat tuple.
constexpr DynLayout layout_of(const Modes& m) {
  DynLayout l;
  if (m.n == 0) {
    detail::leaf(l.t, 1, 0);
  } else if (m.n == 1) {
    detail::leaf(l.t, m.s[0], m.d[0]);
  } else {
    detail::open(l.t);
    for (int i = 0; i < m.n; ++i)
      detail::leaf(l.t, m.s[i], m.d[i]);
    detail::close(l.t);
  }
  l.t.overflow = l.t.overflow || m.overflow;
  return l;
}

// (x, y): the rank-2 concatenation of two layouts.
constexpr DynLayout concat(const DynLayout& x, const DynLayout& y) {
  const detail::Tree parts[2] = {x.t, y.t};
  return {detail::make_tuple_tree(parts, 2)};
}

// Rounds the quotient up without forming a + b - 1 (which can overflow).
constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return a / b + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
}

} // namespace tw::core
