#pragma once
// Wave-private tiles: a one-wave TiledMMA (wave_layout<1, 1>) that every wave of a larger
// workgroup runs on operands of its own. TiledMMA's loads, stores and map place a tile by the
// wave's coordinate and refuse a kernel with more threads than the TiledMMA has; a kernel that
// splits a product over its waves by itself (each wave multiplies its own slice of the
// reduction dimension, or owns its own slice of the output columns) works on such tiles with
//   map_in_wave(mma, acc, fn(v, r, c))          every value and its (row, col) in the one-wave
//                                               tile (like map, without a wave offset);
//   sum_over_waves(mma, acc, scratch)           the sum of the W waves' accumulators, returned
//                                               to every wave (split-K over waves).
// sum_over_waves stores each wave's accumulator transposed (tile (n, m) = C(m, n): a lane's
// values are consecutive, 128-bit LDS runs) into its own rows [w * tile_n, (w + 1) * tile_n) of
// an LDS scratch of W * tile_n rows x tile_m columns, waits at an lds_barrier, then adds the W
// tiles in wave order 0, 1, .., W - 1, so every wave gets bit-identical sums. One barrier per
// call: a caller that calls it in a loop alternates two scratch tiles (e.g. two stages of one
// buffer), because a wave writes a scratch again only after every wave has passed the next
// call's barrier, which each wave reaches after reading the previous one.
//   constexpr auto plan = lds_plan(lds_buffer<f32>("red", 4 * 16, 32, stages(2)));
//   auto s = sum_over_waves(s_mma, partial, lds.tile<"red">(t & 1));
#include <dsl/builder/ids.hpp>
#include <dsl/mma/accumulator_visit.hpp>
#include <dsl/tensor/lds_tile.hpp>

#include <stdexcept>
#include <string>

namespace tw::dsl {

template <TiledMmaType TM, MmaFragmentType FC, class F>
FC map_in_wave(const TM&, const FC& acc, F&& fn) {
  using T = std::remove_cvref_t<TM>;
  using E = typename FC::elem_type;
  static_assert(T::waves == 1,
                "map_in_wave: the TiledMMA must be a one-wave tile (wave_layout<1, 1>); a "
                "multi-wave tile is mapped with map()");
  static_assert(std::same_as<FC, typename T::CFrag>,
                "map_in_wave: the accumulator does not fit the TiledMMA (another atom or repeat)");
  static_assert(std::same_as<std::invoke_result_t<F&, Scalar<E>, Int32, Int32>, Scalar<E>>,
                "map_in_wave: the function must take (value, row, col) and return a scalar of "
                "the accumulator's element type");
  constexpr const LaneMap& m = T::lanes::c_map;
  const Int32 lane = lane_id();
  const Int32 lr = detail::lane_part(m, lane, true), lc = detail::lane_part(m, lane, false);
  FC out;
  for (int i = 0; i < T::repeat_m; ++i)
    for (int j = 0; j < T::repeat_n; ++j) {
      std::array<Scalar<E>, FC::values_per_tile> e;
      const Int32 r0 = lr + i * T::lanes::M, c0 = lc + j * T::lanes::N;
      for (int v = 0; v < FC::values_per_tile; ++v)
        e[static_cast<std::size_t>(v)] =
            fn(acc.at(i, j)[v], r0 + m.value_row[v], c0 + m.value_col[v]);
      out.at(i, j) = FC::vec_type::from(e);
    }
  return out;
}

template <TiledMmaType TM, MmaFragmentType FC, ElemType S, int R, int C>
FC sum_over_waves(const TM&, const FC& acc, const LdsTile<S, R, C>& scratch) {
  using T = std::remove_cvref_t<TM>;
  using Atom = typename T::atom;
  static_assert(T::waves == 1,
                "sum_over_waves: the TiledMMA must be a one-wave tile (wave_layout<1, 1>) that "
                "every wave computes for itself");
  static_assert(std::same_as<FC, typename T::CFrag>,
                "sum_over_waves: the accumulator does not fit the TiledMMA (another atom or "
                "repeat)");
  static_assert(std::same_as<S, typename FC::elem_type>,
                "sum_over_waves: the scratch's element type must be the accumulator's");
  static_assert(C == T::tile_m && R % T::tile_n == 0 && R / T::tile_n >= 2,
                "sum_over_waves: the scratch must be W x tile_n rows (one transposed tile per "
                "wave, W >= 2) of tile_m columns");
  constexpr int W = R / T::tile_n;
  KernelBuilder& kb = KernelBuilder::current("sum_over_waves");
  if (kb.waves() != W)
    throw std::invalid_argument("sum_over_waves: the scratch holds " + std::to_string(W) +
                                " wave tiles but the workgroup has " + std::to_string(kb.waves()) +
                                " waves");
  const Int32 own = wave_id() * Int32(T::tile_n);
  for (int i = 0; i < T::repeat_m; ++i)
    for (int j = 0; j < T::repeat_n; ++j)
      store_operand<Atom, MmaOperand::C>(scratch, acc.at(i, j), Int32(i * T::lanes::M),
                                         own + j * T::lanes::N, true);
  lds_barrier();
  FC sum;
  for (int w = 0; w < W; ++w)
    for (int i = 0; i < T::repeat_m; ++i)
      for (int j = 0; j < T::repeat_n; ++j) {
        const auto x = load_operand<Atom, MmaOperand::C>(
            scratch, Int32(i * T::lanes::M), Int32(w * T::tile_n + j * T::lanes::N), true);
        if (w == 0)
          sum.at(i, j) = x;
        else
          sum.at(i, j) = sum.at(i, j) + x;
      }
  return sum;
}

} // namespace tw::dsl
