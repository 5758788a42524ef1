#pragma once
// gemm_block_scaled: C += scale(row, col) * (A * B over one K block), the main-loop step of
// block-scaled formats (OCP MX: one e8m0 scale per 32 k of each row of A and column of B).
//   gemm_block_scaled(mma, sA, sB, acc, mods, first_step, steps,
//                     [&](Int32 row, Int32 col) { return sa(row) * sb(col); });
// The K block is `steps` atom k steps of the LDS tiles starting at `first_step`. Each atom tile's
// partial sum is chained through its WMMAs from zero and folded into the accumulator at once,
// so one atom tile's partial (8 VGPRs) is live at a time instead of a second accumulator.
// `scale` is called per accumulator value with the value's tile coordinates; repeated reads of
// one row's or column's scale (from LDS) are left for the backend to merge.
#include <dsl/mma/accumulator_visit.hpp>

#include <vector>

namespace tw::dsl {

template <TiledMmaType TM, TileView TA, TileView TB, MmaFragmentType FC, class Scale>
void gemm_block_scaled(const TM& mma, const TA& a, const TB& bt, FC& acc, const ir::MmaMods& mods,
                       int first_step, int steps, Scale&& scale) {
  using T = std::remove_cvref_t<TM>;
  static_assert(std::same_as<FC, typename T::CFrag>,
                "gemm_block_scaled: the accumulator does not fit the TiledMMA");
  static_assert(FloatElem<typename FC::elem_type>,
                "gemm_block_scaled: block scales need a float accumulator");
  static_assert(TA::cols == TB::cols && TA::cols % T::tile_k_storage == 0,
                "gemm_block_scaled: the A and B tiles must have the same K extent, a multiple "
                "of the atom's K");
  if (first_step < 0 || steps < 1 || (first_step + steps) * T::tile_k_storage > TA::cols)
    throw std::invalid_argument("gemm_block_scaled: k steps [" + std::to_string(first_step) + ", " +
                                std::to_string(first_step + steps) + ") are outside the tiles' " +
                                std::to_string(TA::cols / T::tile_k_storage) + " steps");
  std::vector<typename T::AFrag> fa;
  std::vector<typename T::BFrag> fb;
  for (int ks = first_step; ks < first_step + steps; ++ks) {
    fa.push_back(mma.load_a(a, ks));
    fb.push_back(mma.load_b(bt, ks));
  }
  using E = typename FC::elem_type;
  using V = typename FC::vec_type;
  const V zero = V::splat(Scalar<E>(0));
  V part;
  std::array<Scalar<E>, FC::values_per_tile> folded;
  // Visits (i, j) tile by tile: the chain of tile (i, j) is traced at its first value, and the
  // tile is folded into acc at its last, before the next tile's chain.
  detail::visit_c_positions<T>([&](int i, int j, int v, const Int32& r, const Int32& c) {
    if (v == 0) {
      ir::Value p = zero.ir();
      for (int s = 0; s < steps; ++s)
        p = detail::wmma_tile<T>(fa[s], fb[s], i, j, p, mods);
      part = V(p);
    }
    folded[v] = fma(part[v], scale(r, c), acc.at(i, j)[v]);
    if (v == FC::values_per_tile - 1)
      acc.at(i, j) = V::from(folded);
  });
}

} // namespace tw::dsl
