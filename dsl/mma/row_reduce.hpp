#pragma once
// Row reductions of an MMA accumulator (e.g. the row maximum and row sum of attention scores):
//   RegTensor<f32, RM, 8> m = reduce_rows(acc, Reduce::max);
// Entry (i, v) is the reduction over all tile_n columns of the wave's block of the row that
// value v of atom row i holds in this lane; every lane that holds a row gets its result. The
// lanes that share a row are read off the atom's C lane map (those whose lane bits move only
// the column): for the gfx12 f32 / i32 C layout, the 16 lanes of each half-wave.
#include <dsl/mma/fragment.hpp>
#include <dsl/ops/reduce.hpp>
#include <dsl/tensor/partition.hpp>

namespace tw::dsl {

namespace detail {
// Lanes [0, width) that differ only in columns: the low thread modes with row_step 0.
constexpr int row_sharing_lanes(const LaneMap& m) {
  int width = 1;
  for (const LaneMap::Mode& mode : m.thread) {
    if (mode.extent == 1)
      continue;
    if (mode.row_step != 0 || mode.divisor != width)
      break;
    width *= mode.extent;
  }
  return width;
}
} // namespace detail

template <MmaAtomType Atom, int RR, int RC>
RegTensor<typename MmaFragment<Atom, MmaOperand::C, RR, RC>::elem_type, RR,
          MmaFragment<Atom, MmaOperand::C, RR, RC>::values_per_tile>
reduce_rows(const MmaFragment<Atom, MmaOperand::C, RR, RC>& acc, Reduce op) {
  using Frag = MmaFragment<Atom, MmaOperand::C, RR, RC>;
  using E = typename Frag::elem_type;
  static_assert(E::bits == 32, "reduce_rows: lane reductions move 32-bit values (f32 / i32 "
                               "accumulators; widen an f16 accumulator first)");
  constexpr const LaneMap& m = Frag::traits::map;
  constexpr int width = detail::row_sharing_lanes(m);
  static_assert(width >= 2 && (width & (width - 1)) == 0,
                "reduce_rows: the atom's C layout does not spread a row over a power-of-two "
                "group of low lanes");
  RegTensor<E, RR, Frag::values_per_tile> out;
  for (int i = 0; i < RR; ++i)
    for (int v = 0; v < Frag::values_per_tile; ++v) {
      Scalar<E> x = acc.at(i, 0)[v];
      for (int j = 1; j < RC; ++j)
        x = detail::combine(op, x, acc.at(i, j)[v]);
      out(i, v) = lane_reduce(x, op, width);
    }
  return out;
}

} // namespace tw::dsl
