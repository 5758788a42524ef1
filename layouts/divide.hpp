#pragma once
// Divides (CuTe's logical_divide and its regroupings). logical_divide(A, B) for a layout B
// is A o (B, complement(B, size(A))): mode 0 walks one tile, mode 1 walks the tiles. A
// tuple tiler divides mode by mode and keeps A's extra modes. tilewave is stricter than
// CuTe: the tiles must cover A exactly (size(B) * size(B*) == size(A)), so a tiler that
// does not divide is an error instead of a layout with out-of-range tiles.
//   logical_divide : ((TileM,RestM), (TileN,RestN), L, ...)
//   zipped_divide  : ((TileM,TileN), (RestM,RestN,L,...))
//   tiled_divide   : ((TileM,TileN), RestM, RestN, L, ...)
//   flat_divide    : (TileM, TileN, RestM, RestN, L, ...)
#include <layouts/complement.hpp>
#include <layouts/composition.hpp>
#include <layouts/front_end.hpp>
#include <layouts/outcome.hpp>
#include <layouts/tiler.hpp>

namespace tw::core {

constexpr Outcome logical_divide(const DynLayout& a, const DynLayout& b) {
  const int64_t n = a.size();
  Outcome rest = complement(b, n);
  if (!rest.ok())
    return rest;
  const DynLayout tiles = concat(b, rest.layout);
  if (tiles.size() != n)
    return fail(Status::tiler_does_not_divide);
  Outcome r = composition(a, tiles);
  if (!r.ok() && r.status != Status::too_large)
    return fail(Status::tiler_does_not_divide);
  return r;
}

// Applies `f(mode, tiler node)` to the modes of `a` named by the tuple tiler at `pos`,
// keeping the modes past the tiler's rank. A layout tiler applies to all of `a`.
template <class F>
constexpr Outcome by_mode(const DynLayout& a, const DynTiler& t, int pos, F f) {
  if (t.overflow)
    return fail(Status::too_large);
  if (detail::is_leaf_at(t.structure, pos))
    return f(a, t.leaf[detail::leaf_index(t.structure, pos)]);
  detail::Children c = detail::children_of(t.structure, pos);
  const int r = a.rank();
  if (c.n > r)
    return fail(Status::tiler_rank);
  detail::Tree parts[detail::kMaxLeaves];
  for (int i = 0; i < r; ++i) {
    if (i < c.n) {
      Outcome m = by_mode(a.mode(i), t, c.pos[i], f);
      if (!m.ok())
        return m;
      parts[i] = m.layout.t;
    } else {
      parts[i] = a.mode(i).t;
    }
  }
  return success({detail::make_tuple_tree(parts, r)});
}

constexpr Outcome logical_divide(const DynLayout& a, const DynTiler& t) {
  return by_mode(a, t, 0,
                 [](const DynLayout& x, const DynLayout& y) { return logical_divide(x, y); });
}

// Splits a by-mode result into its (tile, rest) halves, following the tiler (CuTe's
// tile_unzip): at a tiler leaf the node is (tile, rest); at a tuple the halves of each
// child are gathered, and the node's modes past the tiler join the rest.
struct Halves {
  detail::Tree tile, rest;
};
constexpr Halves unzip(const detail::Tree& r, int rpos, const DynTiler& t, int tpos) {
  detail::Children rc = detail::children_of(r, rpos);
  if (detail::is_leaf_at(t.structure, tpos))
    return {detail::subtree(r, rc.pos[0]), detail::subtree(r, rc.pos[1])};
  detail::Children tc = detail::children_of(t.structure, tpos);
  Halves h;
  detail::open(h.tile);
  detail::open(h.rest);
  for (int i = 0; i < rc.n; ++i) {
    if (i < tc.n) {
      Halves child = unzip(r, rc.pos[i], t, tc.pos[i]);
      detail::append(h.tile, child.tile);
      detail::append(h.rest, child.rest);
    } else {
      detail::append(h.rest, r, rc.pos[i]);
    }
  }
  detail::close(h.tile);
  detail::close(h.rest);
  return h;
}

// The modes of a node: itself when it is a leaf, else its children.
constexpr void append_modes(detail::Tree& dst, const detail::Tree& src) {
  if (detail::is_leaf_at(src, 0)) {
    detail::append(dst, src);
    return;
  }
  detail::Children c = detail::children_of(src, 0);
  for (int i = 0; i < c.n; ++i)
    detail::append(dst, src, c.pos[i]);
}

enum class Grouping { zipped, tiled, flat };

// Regroups a by-mode result (of a divide or a product) as zipped, tiled or flat.
constexpr Outcome regroup(const Outcome& by_mode_result, const DynTiler& t, Grouping g) {
  if (!by_mode_result.ok())
    return by_mode_result;
  const Halves h = unzip(by_mode_result.layout.t, 0, t, 0);
  DynLayout r;
  detail::open(r.t);
  if (g == Grouping::flat)
    append_modes(r.t, h.tile);
  else
    detail::append(r.t, h.tile);
  if (g == Grouping::zipped)
    detail::append(r.t, h.rest);
  else
    append_modes(r.t, h.rest);
  detail::close(r.t);
  return success(r);
}

constexpr Outcome zipped_divide(const DynLayout& a, const DynTiler& t) {
  return regroup(logical_divide(a, t), t, Grouping::zipped);
}
constexpr Outcome tiled_divide(const DynLayout& a, const DynTiler& t) {
  return regroup(logical_divide(a, t), t, Grouping::tiled);
}
constexpr Outcome flat_divide(const DynLayout& a, const DynTiler& t) {
  return regroup(logical_divide(a, t), t, Grouping::flat);
}

} // namespace tw::core

namespace tw {

// The tiler is a layout, a shape, or a tuple of tilers (make_tile).
template <class A, class T>
constexpr auto logical_divide(const A& a, const T& tiler) {
  return detail::run(
      "logical_divide",
      [](const auto& x, const auto& y) { return core::logical_divide(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <class A, class T>
constexpr auto zipped_divide(const A& a, const T& tiler) {
  return detail::run(
      "zipped_divide",
      [](const auto& x, const auto& y) { return core::zipped_divide(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <class A, class T>
constexpr auto tiled_divide(const A& a, const T& tiler) {
  return detail::run(
      "tiled_divide",
      [](const auto& x, const auto& y) { return core::tiled_divide(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}
template <class A, class T>
constexpr auto flat_divide(const A& a, const T& tiler) {
  return detail::run(
      "flat_divide",
      [](const auto& x, const auto& y) { return core::flat_divide(to_dyn(x), to_tiler(y)); }, a,
      tiler);
}

} // namespace tw
