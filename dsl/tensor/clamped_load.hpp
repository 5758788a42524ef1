#pragma once
// load_clamped(tile, r, c): tile(r, c) when that element exists, else tile(0, 0), with no mask
// and no branch (a select of the coordinates, then one unmasked load). For values whose result
// is only used where (r, c) exists, e.g. an epilogue's per-row or per-column scale next to a
// masked output store: identical coordinates give identical addresses, so the compiler keeps
// one load per distinct row or column instead of one masked load (and its branch) per value.
// The tile must hold element (0, 0) (rows_left() and cols_left() > 0): true for the tile of a
// workgroup that has outputs.
//   x = x * load_clamped(scale_cols, Int32(0), c);
#include <dsl/tensor/global_tile.hpp>

namespace tw::dsl {

template <ElemType T, int R, int C>
Scalar<T> load_clamped(const GlobalTile<T, R, C>& tile, const Int32& r, const Int32& c) {
  const Bool in = tile.in_range(r, c);
  return tile.load_unmasked(select(in, r, Int32(0)), select(in, c, Int32(0)));
}

} // namespace tw::dsl
