#pragma once
// gemm_lookahead: C += A * B over whole LDS tiles (A tile_m x BK, B n-major tile_n x BK), like
// gemm(mma, a_tile, b_tile, acc), with the operand fragments double-buffered in registers: the
// A and B fragments of k step ks + 1 are read (ds_load) before the WMMAs of k step ks are
// issued. The reads of the next step are then in flight while the matrix unit works, and the
// wait before a WMMA group covers only the fragment it uses (LDS reads complete in order, so
// s_wait_dscnt can leave the next step's reads outstanding) instead of draining every read.
// Costs one more fragment set in registers (A: repeat_m, B: repeat_n operand tiles).
//   gemm_lookahead(mma, lds.tile<"sA">(stage), lds.tile<"sB">(stage), acc);
//   gemm_lookahead(mma, sA, sB, acc, ir::MmaMods{.a_signed = true, .b_signed = true});  // iu8
#include <dsl/mma/accumulator_visit.hpp>
#include <dsl/mma/tiled_mma.hpp>

namespace tw::dsl {

template <TiledMmaType TM, TileView TA, TileView TB, MmaFragmentType FC>
void gemm_lookahead(const TM& mma, const TA& a, const TB& bt, FC& c,
                    const ir::MmaMods& mods = {}) {
  static_assert(TA::cols == TB::cols,
                "gemm_lookahead: the A and B tiles have different K extents (A is tile_m x BK, "
                "B is tile_n x BK)");
  static_assert(TA::cols % TM::tile_k_storage == 0,
                "gemm_lookahead: the tiles' K extent is not a multiple of the atom's K");
  constexpr int steps = TA::cols / TM::tile_k_storage;
  auto fa = mma.load_a(a, 0);
  auto fb = mma.load_b(bt, 0);
  for (int ks = 0; ks < steps; ++ks) {
    if (ks + 1 < steps) {
      const auto next_a = mma.load_a(a, ks + 1); // issued ahead of this step's WMMAs
      const auto next_b = mma.load_b(bt, ks + 1);
      gemm_with_mods(mma, fa, fb, c, mods);
      fa = next_a;
      fb = next_b;
    } else {
      gemm_with_mods(mma, fa, fb, c, mods);
    }
  }
}

} // namespace tw::dsl
