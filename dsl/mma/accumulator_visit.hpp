#pragma once
// for_each_accumulator: visits every accumulator value this lane holds, with the value's
// (row, col) inside the TiledMMA's tile_m x tile_n C tile. An epilogue (scales, bias, beta * C,
// output conversion) is written against tile coordinates; the lane -> element mapping comes
// from the atom's lane map, never from kernel code.
//   for_each_accumulator(mma, acc, [&](Float32 v, Int32 r, Int32 c) { out.store(r, c, ...); });
// map(mma, acc, fn(v, r, c) -> v): a new accumulator, every value replaced by fn of the value
// and its tile coordinates: masks, bias, ALiBi and softcap are one expression each.
//   s = map(mma, s, [&](Float32 v, Int32 r, Int32 c) { return select(c <= r, v, -inf); });
// gemm_with_mods: the register-fragment gemm() with WMMA modifiers (e.g. signed iu8 operands).
#include <dsl/mma/tiled_mma.hpp>

namespace tw::dsl {

namespace detail {
// Calls fn(i, j, v, row, col) for value v of atom (i, j) this lane holds, (row, col) in the
// TiledMMA's C tile.
template <class T, class F>
void visit_c_positions(F&& fn) {
  constexpr const LaneMap& m = T::lanes::c_map;
  const auto [wm, wn] = T::wave_coord();
  const Int32 lane = lane_id();
  const Int32 lr = lane_part(m, lane, true), lc = lane_part(m, lane, false);
  for (int i = 0; i < T::repeat_m; ++i)
    for (int j = 0; j < T::repeat_n; ++j) {
      const Int32 r0 = wm * T::wave_tile_m + i * T::lanes::M + lr;
      const Int32 c0 = wn * T::wave_tile_n + j * T::lanes::N + lc;
      for (int v = 0; v < m.values; ++v)
        fn(i, j, v, r0 + m.value_row[v], c0 + m.value_col[v]);
    }
}
// True when two TiledMMAs put every C value of every lane at the same tile position.
template <class T1, class T2>
consteval bool same_c_placement() {
  constexpr const LaneMap &a = T1::lanes::c_map, &b = T2::lanes::c_map;
  if (T1::repeat_m != T2::repeat_m || T1::repeat_n != T2::repeat_n ||
      T1::wave_tile_m != T2::wave_tile_m || T1::wave_tile_n != T2::wave_tile_n ||
      T1::tile_m != T2::tile_m || T1::tile_n != T2::tile_n || T1::lanes::M != T2::lanes::M ||
      T1::lanes::N != T2::lanes::N || a.values != b.values)
    return false;
  for (int l = 0; l < 32; ++l)
    if (a.lane_row(l) != b.lane_row(l) || a.lane_col(l) != b.lane_col(l))
      return false;
  for (int v = 0; v < a.values; ++v)
    if (a.value_row[v] != b.value_row[v] || a.value_col[v] != b.value_col[v])
      return false;
  return true;
}
} // namespace detail

template <TiledMmaType TM, MmaFragmentType FC, class F>
void for_each_accumulator(const TM&, const FC& acc, F&& fn) {
  static_assert(std::same_as<FC, typename std::remove_cvref_t<TM>::CFrag>,
                "for_each_accumulator: the accumulator does not fit the TiledMMA (another atom "
                "or repeat)");
  detail::visit_c_positions<std::remove_cvref_t<TM>>(
      [&](int i, int j, int v, const Int32& r, const Int32& c) { fn(acc.at(i, j)[v], r, c); });
}

// The values of two accumulators of two TiledMMAs that place C identically (e.g. an fp8 main
// product and an f16 LoRA product over the same output tile): fn(v1, v2, row, col).
template <TiledMmaType TM1, MmaFragmentType FC1, TiledMmaType TM2, MmaFragmentType FC2, class F>
void for_each_accumulator(const TM1&, const FC1& acc1, const TM2&, const FC2& acc2, F&& fn) {
  using T1 = std::remove_cvref_t<TM1>;
  using T2 = std::remove_cvref_t<TM2>;
  static_assert(std::same_as<FC1, typename T1::CFrag> && std::same_as<FC2, typename T2::CFrag>,
                "for_each_accumulator: an accumulator does not fit its TiledMMA");
  static_assert(detail::same_c_placement<T1, T2>(),
                "for_each_accumulator: the two TiledMMAs place their C values differently "
                "(another wave layout, repeat or atom C layout)");
  detail::visit_c_positions<T1>([&](int i, int j, int v, const Int32& r, const Int32& c) {
    fn(acc1.at(i, j)[v], acc2.at(i, j)[v], r, c);
  });
}

// map is named like a common identifier: it lives in tw::dsl::ops, found by argument-dependent
// lookup from the TiledMMA / fragment (dsl/support/ops_namespace.hpp).
namespace ops {
template <TiledMmaType TM, MmaFragmentType FC, class F>
FC map(const TM&, const FC& acc, F&& fn) {
  using T = std::remove_cvref_t<TM>;
  using E = typename FC::elem_type;
  static_assert(std::same_as<FC, typename T::CFrag>,
                "map: the accumulator does not fit the TiledMMA (another atom or repeat)");
  static_assert(std::same_as<std::invoke_result_t<F&, Scalar<E>, Int32, Int32>, Scalar<E>>,
                "map: the function must take (value, row, col) and return a scalar of the "
                "accumulator's element type");
  std::array<std::array<Scalar<E>, FC::values_per_tile>, T::repeat_m * T::repeat_n> e;
  detail::visit_c_positions<T>([&](int i, int j, int v, const Int32& r, const Int32& c) {
    e[static_cast<std::size_t>(i * T::repeat_n + j)][static_cast<std::size_t>(v)] =
        fn(acc.at(i, j)[v], r, c);
  });
  FC out;
  for (int i = 0; i < T::repeat_m; ++i)
    for (int j = 0; j < T::repeat_n; ++j)
      out.at(i, j) = FC::vec_type::from(e[static_cast<std::size_t>(i * T::repeat_n + j)]);
  return out;
}
} // namespace ops

// C += A * B on register fragments with WMMA modifiers (signedness of iu8 / iu4 operands,
// clamp, negation): RM x RN WMMA issues.
template <TiledMmaType TM, MmaFragmentType FA, MmaFragmentType FB, MmaFragmentType FC>
void gemm_with_mods(const TM&, const FA& a, const FB& b, FC& c, const ir::MmaMods& mods) {
  static_assert(std::same_as<FA, typename TM::AFrag> && std::same_as<FB, typename TM::BFrag> &&
                    std::same_as<FC, typename TM::CFrag>,
                "gemm_with_mods: the fragments do not fit the TiledMMA (make them with "
                "load_a / load_b / make_accumulator of the same TiledMMA)");
  for (int i = 0; i < TM::repeat_m; ++i)
    for (int j = 0; j < TM::repeat_n; ++j)
      c.at(i, j) = typename FC::vec_type(detail::wmma_tile<TM>(a, b, i, j, c.at(i, j).ir(), mods));
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
