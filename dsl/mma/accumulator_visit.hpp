#pragma once
// for_each_accumulator: visits every accumulator value this lane holds, with the value's
// (row, col) inside the TiledMMA's tile_m x tile_n C tile. An epilogue (scales, bias, beta * C,
// output conversion) is written against tile coordinates; the lane -> element mapping comes
// from the atom's lane map, never from kernel code.
//   for_each_accumulator(mma, acc, [&](Float32 v, Int32 r, Int32 c) { out.store(r, c, ...); });
// gemm_with_mods: the register-fragment gemm() with WMMA modifiers (e.g. signed iu8 operands).
#include <dsl/mma/tiled_mma.hpp>

namespace tw::dsl {

template <TiledMmaType TM, MmaFragmentType FC, class F>
void for_each_accumulator(const TM& mma, const FC& acc, F&& fn) {
  static_assert(std::same_as<FC, typename std::remove_cvref_t<TM>::CFrag>,
                "for_each_accumulator: the accumulator does not fit the TiledMMA (another atom "
                "or repeat)");
  using T = std::remove_cvref_t<TM>;
  constexpr const LaneMap& m = T::lanes::c_map;
  (void)mma;
  const auto [wm, wn] = T::wave_coord();
  const Int32 lane = lane_id();
  const Int32 lr = detail::lane_part(m, lane, true), lc = detail::lane_part(m, lane, false);
  for (int i = 0; i < T::repeat_m; ++i)
    for (int j = 0; j < T::repeat_n; ++j) {
      const Int32 r0 = wm * T::wave_tile_m + i * T::lanes::M + lr;
      const Int32 c0 = wn * T::wave_tile_n + j * T::lanes::N + lc;
      for (int v = 0; v < m.values; ++v)
        fn(acc.at(i, j)[v], r0 + m.value_row[v], c0 + m.value_col[v]);
    }
}

// C += A * B on register fragments with WMMA modifiers (signedness of iu8 / iu4 operands,
// clamp, negation): RM x RN WMMA issues.
template <TiledMmaType TM, MmaFragmentType FA, MmaFragmentType FB, MmaFragmentType FC>
void gemm_with_mods(const TM&, const FA& a, const FB& b, FC& c, const ir::MmaMods& mods) {
  static_assert(std::same_as<FA, typename TM::AFrag> && std::same_as<FB, typename TM::BFrag> &&
                    std::same_as<FC, typename TM::CFrag>,
                "gemm_with_mods: the fragments do not fit the TiledMMA (make them with "
                "load_a / load_b / make_accumulator of the same TiledMMA)");
  ir::OpBuilder& ob = KernelBuilder::current("gemm_with_mods").ops();
  for (int i = 0; i < TM::repeat_m; ++i)
    for (int j = 0; j < TM::repeat_n; ++j)
      c.at(i, j) = typename FC::vec_type(
          ob.wmma(TM::lanes::mnemonic, detail::mma_input<typename TM::lanes>(a.at(i, 0)),
                  detail::mma_input<typename TM::lanes>(b.at(0, j)), c.at(i, j).ir(), mods));
}

// C += A * B over whole LDS tiles (A tile_m x BK, B n-major tile_n x BK) with WMMA modifiers.
template <TiledMmaType TM, TileView TA, TileView TB, MmaFragmentType FC>
void gemm_with_mods(const TM& mma, const TA& a, const TB& bt, FC& c, const ir::MmaMods& mods) {
  static_assert(TA::cols == TB::cols && TA::cols % TM::tile_k_storage == 0,
                "gemm_with_mods: the A and B tiles must have the same K extent, a multiple of "
                "the atom's K");
  for (int ks = 0; ks < TA::cols / TM::tile_k_storage; ++ks) {
    const auto fa = mma.load_a(a, ks);
    const auto fb = mma.load_b(bt, ks);
    gemm_with_mods(mma, fa, fb, c, mods);
  }
}

} // namespace tw::dsl

namespace tw::dsl {

// map_accumulator: a new accumulator whose value at tile (row, col) is fn(a, b, row, col) of
// the values of `a` and `b` there (e.g. acc + scale(row, col) * partial for per-K-block scales).
template <TiledMmaType TM, MmaFragmentType FC, class F>
FC map_accumulator(const TM&, const FC& a, const FC& b, F&& fn) {
  using T = std::remove_cvref_t<TM>;
  static_assert(std::same_as<FC, typename T::CFrag>,
                "map_accumulator: the accumulators do not fit the TiledMMA");
  using E = typename FC::elem_type;
  constexpr const LaneMap& m = T::lanes::c_map;
  const auto [wm, wn] = T::wave_coord();
  const Int32 lane = lane_id();
  const Int32 lr = detail::lane_part(m, lane, true), lc = detail::lane_part(m, lane, false);
  FC out;
  for (int i = 0; i < T::repeat_m; ++i)
    for (int j = 0; j < T::repeat_n; ++j) {
      const Int32 r0 = wm * T::wave_tile_m + i * T::lanes::M + lr;
      const Int32 c0 = wn * T::wave_tile_n + j * T::lanes::N + lc;
      std::array<Scalar<E>, FC::values_per_tile> e;
      for (int v = 0; v < m.values; ++v)
        e[v] = fn(a.at(i, j)[v], b.at(i, j)[v], r0 + m.value_row[v], c0 + m.value_col[v]);
      out.at(i, j) = FC::vec_type::from(e);
    }
  return out;
}

} // namespace tw::dsl
