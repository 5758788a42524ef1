#pragma once
// Products (CuTe's logical_product and the rank-sensitive blocked / raked products).
// logical_product(A, B) = (A, complement(A, size(A) * cosize(B)) o B): mode 0 is A, mode 1
// is B with each element replaced by a disjoint copy of A. A tuple tiler multiplies mode by
// mode. blocked_product and raked_product pad A and B to the same rank, take the logical
// product, pair like modes ((A_i, B'_i) for blocked, (B'_i, A_i) for raked) and coalesce
// each pair, so a block tiles across (blocked) or interleaves with (raked) the tiler.
#include <layouts/coalesce.hpp>
#include <layouts/complement.hpp>
#include <layouts/composition.hpp>
#include <layouts/divide.hpp>
#include <layouts/front_end.hpp>
#include <layouts/outcome.hpp>
#include <layouts/tiler.hpp>

namespace tw::core {

constexpr Outcome logical_product(const DynLayout& a, const DynLayout& b) {
  Outcome rest = complement(a, detail::checked_mul(a.size(), b.cosize(), "logical_product"));
  if (!rest.ok())
    return rest;
  Outcome copies = composition(rest.layout, b);
  if (!copies.ok())
    return copies;
  return success(concat(a, copies.layout));
}

constexpr Outcome logical_product(const DynLayout& a, const DynTiler& t) {
  return by_mode(a, t, 0,
                 [](const DynLayout& x, const DynLayout& y) { return logical_product(x, y); });
}

constexpr Outcome zipped_product(const DynLayout& a, const DynTiler& t) {
  return regroup(logical_product(a, t), t, Grouping::zipped);
}
constexpr Outcome tiled_product(const DynLayout& a, const DynTiler& t) {
  return regroup(logical_product(a, t), t, Grouping::tiled);
}
constexpr Outcome flat_product(const DynLayout& a, const DynTiler& t) {
  return regroup(logical_product(a, t), t, Grouping::flat);
}

// `l` with 1:0 modes appended up to rank r (a bare mode becomes a tuple when r > 1).
constexpr DynLayout pad_to_rank(const DynLayout& l, int r) {
  if (l.rank() >= r)
    return l;
  DynLayout p;
  detail::open(p.t);
  append_modes(p.t, l.t);
  for (int i = l.rank(); i < r; ++i)
    detail::leaf(p.t, 1, 0);
  detail::close(p.t);
  return p;
}

constexpr Outcome paired_product(const DynLayout& a, const DynLayout& b, bool raked) {
  const int r = a.rank() > b.rank() ? a.rank() : b.rank();
  const DynLayout pa = pad_to_rank(a, r), pb = pad_to_rank(b, r);
  Outcome p = logical_product(pa, pb);
  if (!p.ok())
    return p;
  const DynLayout block = p.layout.mode(0), copies = p.layout.mode(1);
  detail::Tree parts[detail::kMaxLeaves];
  for (int i = 0; i < r; ++i) {
    const DynLayout x = block.mode(i), y = copies.mode(i);
    Outcome m = coalesce(raked ? concat(y, x) : concat(x, y));
    if (r == 1)
      return m; // rank 1: the coalesced pair itself
    parts[i] = m.layout.t;
  }
  return success({detail::make_tuple_tree(parts, r)});
}

constexpr Outcome blocked_product(const DynLayout& a, const DynLayout& b) {
  return paired_product(a, b, false);
}
constexpr Outcome raked_product(const DynLayout& a, const DynLayout& b) {
  return paired_product(a, b, true);
}

} // namespace tw::core

namespace tw {

template <class A, class T>
constexpr auto logical_product(const A& a, const T& tiler) {
  return detail::run(
      "logical_product",
      [](const auto& x, const auto& y) { return core::logical_product(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <class A, class T>
constexpr auto zipped_product(const A& a, const T& tiler) {
  return detail::run(
      "zipped_product",
      [](const auto& x, const auto& y) { return core::zipped_product(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <class A, class T>
constexpr auto tiled_product(const A& a, const T& tiler) {
  return detail::run(
      "tiled_product",
      [](const auto& x, const auto& y) { return core::tiled_product(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <class A, class T>
constexpr auto flat_product(const A& a, const T& tiler) {
  return detail::run(
      "flat_product",
      [](const auto& x, const auto& y) { return core::flat_product(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <AnyLayout A, AnyLayout B>
constexpr auto blocked_product(const A& a, const B& b) {
  return detail::run(
      "blocked_product",
      [](const auto& x, const auto& y) { return core::blocked_product(to_dyn(x), to_dyn(y)); }, a,
      b);
}
template <AnyLayout A, AnyLayout B>
constexpr auto raked_product(const A& a, const B& b) {
  return detail::run(
      "raked_product",
      [](const auto& x, const auto& y) { return core::raked_product(to_dyn(x), to_dyn(y)); }, a, b);
}

} // namespace tw
