#pragma once
// Row and column reductions of an MMA accumulator, and their broadcasts back onto it (the row
// maximum and sum of attention scores, the rescale of O by a per-row alpha), in both
// orientations of the C layout:
//   RegTensor<f32, RM, 8> m = reduce_rows(acc, Reduce::max);   // rows spread over registers
//   RegTensor<f32, 1, RN> m = reduce_cols(acc, Reduce::max);   // columns are lanes
//   acc = broadcast_cols(acc, m, [](Float32 v, Float32 s) { return v - s; });
// reduce_cols is what S^T = K Q^T (a query per lane) needs: each query's values sit in the
// registers of its lane and of the lanes that differ only in rows (the other half-wave), so a
// column reduces in registers and with one v_permlanex16 (DPP / ds_bpermute for other layouts).
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
// Lane masks whose xor moves only the row (thread modes with col_step 0), low to high.
constexpr std::array<int, 5> row_moving_lane_bits(const LaneMap& m, int& count) {
  std::array<int, 5> bits{};
  count = 0;
  for (const LaneMap::Mode& mode : m.thread)
    if (mode.extent > 1 && mode.col_step == 0)
      for (int e = 1; e < mode.extent; e *= 2)
        bits[count++] = mode.divisor * e;
  return bits;
}
constexpr bool power_of_two_row_modes(const LaneMap& m) {
  for (const LaneMap::Mode& mode : m.thread)
    if (mode.extent > 1 && mode.col_step == 0 && (mode.extent & (mode.extent - 1)) != 0)
      return false;
  return true;
}
// Lane l receives lane l ^ mask: DPP row_xmask inside rows of 16, v_permlanex16 across them,
// ds_bpermute otherwise.
template <ElemType T>
Scalar<T> lane_xor(const Scalar<T>& v, int mask) {
  ir::OpBuilder& ob = KernelBuilder::current("lane_xor").ops();
  if (mask < 16)
    return Scalar<T>(ob.dpp(v.ir(), v.ir(), ir::DppCtrl::row_xmask(mask)));
  if (mask == 16)
    return Scalar<T>(
        ob.permlanex16(v.ir(), ob.i32(0x76543210), ob.i32(static_cast<std::int32_t>(0xfedcba98u))));
  return shuffle_xor(v, mask);
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

// Entry (0, j) is the reduction over all tile_m rows of the wave's block of the column that
// this lane holds in atom column j (every lane holding that column gets it).
template <MmaAtomType Atom, int RR, int RC>
RegTensor<typename MmaFragment<Atom, MmaOperand::C, RR, RC>::elem_type, 1, RC>
reduce_cols(const MmaFragment<Atom, MmaOperand::C, RR, RC>& acc, Reduce op) {
  using Frag = MmaFragment<Atom, MmaOperand::C, RR, RC>;
  using E = typename Frag::elem_type;
  static_assert(E::bits == 32, "reduce_cols: lane exchanges move 32-bit values (f32 / i32 "
                               "accumulators)");
  constexpr const LaneMap& m = Frag::traits::map;
  static_assert(detail::power_of_two_row_modes(m),
                "reduce_cols: the atom's C layout spreads a column over a group of lanes that "
                "is not a power of two");
  RegTensor<E, 1, RC> out;
  for (int j = 0; j < RC; ++j) {
    Scalar<E> x = acc.at(0, j)[0];
    for (int i = 0; i < RR; ++i)
      for (int v = i == 0 ? 1 : 0; v < Frag::values_per_tile; ++v)
        x = detail::combine(op, x, acc.at(i, j)[v]);
    int count = 0;
    const auto bits = detail::row_moving_lane_bits(m, count);
    for (int b = 0; b < count; ++b)
      x = detail::combine(op, x, detail::lane_xor(x, bits[b]));
    out(0, j) = x;
  }
  return out;
}

// fn(value, s) applied to every value of the accumulator with s the entry of its column (from
// reduce_cols or any per-column RegTensor<E, 1, RC>) or of its row (RegTensor<E, RR, values>
// from reduce_rows).
template <MmaAtomType Atom, int RR, int RC, class S, class F>
MmaFragment<Atom, MmaOperand::C, RR, RC>
broadcast_cols(const MmaFragment<Atom, MmaOperand::C, RR, RC>& acc, const RegTensor<S, 1, RC>& s,
               F&& fn) {
  using Frag = MmaFragment<Atom, MmaOperand::C, RR, RC>;
  using E = typename Frag::elem_type;
  Frag out;
  for (int i = 0; i < RR; ++i)
    for (int j = 0; j < RC; ++j) {
      std::array<Scalar<E>, Frag::values_per_tile> e;
      for (int v = 0; v < Frag::values_per_tile; ++v)
        e[v] = fn(acc.at(i, j)[v], s(0, j));
      out.at(i, j) = Frag::vec_type::from(e);
    }
  return out;
}
template <MmaAtomType Atom, int RR, int RC, class S, int V, class F>
MmaFragment<Atom, MmaOperand::C, RR, RC>
broadcast_rows(const MmaFragment<Atom, MmaOperand::C, RR, RC>& acc, const RegTensor<S, RR, V>& s,
               F&& fn) {
  using Frag = MmaFragment<Atom, MmaOperand::C, RR, RC>;
  using E = typename Frag::elem_type;
  static_assert(V == Frag::values_per_tile,
                "broadcast_rows: one entry per atom row and register value (what reduce_rows "
                "returns)");
  Frag out;
  for (int i = 0; i < RR; ++i)
    for (int j = 0; j < RC; ++j) {
      std::array<Scalar<E>, Frag::values_per_tile> e;
      for (int v = 0; v < Frag::values_per_tile; ++v)
        e[v] = fn(acc.at(i, j)[v], s(i, v));
      out.at(i, j) = Frag::vec_type::from(e);
    }
  return out;
}

} // namespace tw::dsl
