#pragma once
// Accumulator -> operand in the orientations the register layout does not give for free:
//   A(m, k) = C(m, k)   the accumulator itself as the left operand  (P in O = P V)
//   B(k, n) = C(n, k)   its transpose as the right operand          (P^T in O^T = V^T P^T)
// accumulator_as_operand (accumulator_operand.hpp) covers the other two without moving a value;
// here every 16 x 16 atom tile is transposed across lanes in registers. With the gfx12 D layout
// (lane = column c + 16 h, value v = row 8h + v) and the 16-bit operand layout (lane = row
// m + 16 h, value v = k 8h + v) the transpose is, per tile:
//  - three butterfly stages that swap lane bit i with value bit i (i = 0, 1, 2): each lane
//    keeps the value whose value bit equals its lane bit and trades the other with lane l ^ 2^i
//    (DPP row_xmask inside a row of 16; 4 trades and 12 selects per stage for 8 values),
//  - one exchange of lane bits 3 and 4 (v_permlanex16 with lane selects l ^ 8, kept where the
//    two bits agree; 8 permutes and 8 selects).
// About 64 VALU instructions per f32 tile (12 DPP moves, 8 v_permlanex16, ~44 selects; seen in
// the gfx1201 asm of tests/emit/test_run_accumulator_exchange.cpp) before the conversion. The
// sequence is replayed at compile time on the (row, col) labels of the source layout and must
// land on the target operand layout value for value; other layouts are rejected with a
// sentence. The fallback for any layout is a round trip through LDS (accumulator_via_lds below:
// the source's store, then the target's load_a / load_b), about 8 LDS stores and one 128-bit
// load per lane and tile.
//   auto pa = accumulator_as_operand_exchanged<MmaOperand::A>(s_mma, p, o_mma, ks);
#include <dsl/mma/accumulator_operand.hpp>
#include <dsl/mma/row_reduce.hpp>

#include <array>

namespace tw::dsl {

namespace detail {

struct ExchangeLabel {
  int row = -1, col = -1;
};
using ExchangeState = std::array<std::array<ExchangeLabel, 16>, 32>;

// The butterfly of lane bit `lane_bit` with value bit `value_bit`: a value whose value bit
// differs from its lane's bit moves to lane l ^ lane_bit, at index v ^ value_bit.
consteval ExchangeState exchange_butterfly(const ExchangeState& s, int values, int lane_bit,
                                           int value_bit) {
  ExchangeState out = s;
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < values; ++v)
      if (((l & lane_bit) != 0) != ((v & value_bit) != 0))
        out[l][v] = s[l ^ lane_bit][v ^ value_bit];
  return out;
}

// Lane l takes the values of lane l with bits 3 and 4 swapped.
consteval ExchangeState exchange_lane_bits_3_4(const ExchangeState& s, int values) {
  ExchangeState out = s;
  for (int l = 0; l < 32; ++l) {
    const int from = (l & ~24) | (l & 8) << 1 | (l & 16) >> 1;
    for (int v = 0; v < values; ++v)
      out[l][v] = s[from][v];
  }
  return out;
}

// True when the exchange sequence takes the C layout `c` to the operand layout `op`: value v of
// lane l of the result is C(x, k), where op labels (l, v) with k and the non-k coordinate x
// (A: (row, col) = (x, k); B: (row, col) = (k, x)).
consteval bool exchange_reaches(const LaneMap& c, const LaneMap& op, bool as_a) {
  if (c.values != 8 || op.values != 8 || c.rows != 16 || c.cols != 16 || op.rows != 16 ||
      op.cols != 16)
    return false;
  ExchangeState s{};
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < c.values; ++v)
      s[l][v] = {c.lane_row(l) + c.value_row[v], c.lane_col(l) + c.value_col[v]};
  for (int i = 0; i < 3; ++i)
    s = exchange_butterfly(s, c.values, 1 << i, 1 << i);
  s = exchange_lane_bits_3_4(s, c.values);
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < op.values; ++v) {
      const int orow = op.lane_row(l) + op.value_row[v], ocol = op.lane_col(l) + op.value_col[v];
      const int x = as_a ? orow : ocol, k = as_a ? ocol : orow;
      if (s[l][v].row != x || s[l][v].col != k)
        return false;
    }
  return true;
}

// The same sequence on one tile's values (run time).
template <ElemType T, std::size_t N>
std::array<Scalar<T>, N> exchange_transpose(std::array<Scalar<T>, N> x) {
  static_assert(T::bits == 32, "accumulator exchange: lane ops move 32-bit values");
  const Int32 lane = lane_id();
  for (int i = 0; i < 3; ++i) {
    const int bit = 1 << i;
    const Bool high = (lane & bit) != 0;
    for (int v0 = 0; v0 < int(N); ++v0) {
      if (v0 & bit)
        continue;
      const int v1 = v0 | bit;
      const Scalar<T> send = select(high, x[v0], x[v1]);
      const Scalar<T> recv = lane_xor(send, bit);
      x[v0] = select(high, recv, x[v0]);
      x[v1] = select(high, x[v1], recv);
    }
  }
  ir::OpBuilder& ob = KernelBuilder::current("accumulator exchange").ops();
  // permlanex16: lane j of one row reads lane sel(j) of the other row; sel(j) = j ^ 8.
  const Bool swap = ((lane >> 3) & 1) != ((lane >> 4) & 1);
  for (auto& e : x) {
    const Scalar<T> other(
        ob.permlanex16(e.ir(), ob.i32(static_cast<std::int32_t>(0xfedcba98u)), ob.i32(0x76543210)));
    e = select(swap, other, e);
  }
  return x;
}

} // namespace detail

// Operand Op of k step `k_step` of `dst` from the accumulator `acc` of `src`, exchanged:
//  - A: A(m, k) = C(m, k_step * K + k): dst multiplies by src's C itself (C's columns are k);
//  - B: B(k, n) = C(n, k_step * K + k): dst multiplies by the transpose of C.
// Both TiledMMAs place their waves along the operand's non-k dimension only (A: wave_layout
// <W, 1> for both; B: src <W, 1>, dst <1, W>), so every wave exchanges the tiles it computed.
// `rounding` as for accumulator_as_operand.
template <MmaOperand Op, TiledMmaType Src, TiledMmaType Dst, MmaFragmentType FC>
auto accumulator_as_operand_exchanged(const Src&, const FC& acc, const Dst&, int k_step,
                                      OperandRounding rounding = OperandRounding::ieee) {
  using S = std::remove_cvref_t<Src>;
  using D = std::remove_cvref_t<Dst>;
  static_assert(Op == MmaOperand::A || Op == MmaOperand::B,
                "accumulator_as_operand_exchanged: the target is an A or a B operand");
  static_assert(std::same_as<FC, typename S::CFrag>,
                "accumulator_as_operand_exchanged: the accumulator does not fit the source "
                "TiledMMA");
  static_assert(S::lanes::N == D::lanes::K,
                "accumulator_as_operand_exchanged: an accumulator atom column block must be one k "
                "step of the target atom (N of the source atom = K of the target atom)");
  constexpr bool as_a = Op == MmaOperand::A;
  static_assert(S::waves_n == 1 && (as_a ? D::waves_n == 1 && D::waves_m == S::waves_m
                                         : D::waves_m == 1 && D::waves_n == S::waves_m),
                "accumulator_as_operand_exchanged: both TiledMMAs must place their waves along "
                "the operand's non-k dimension only (A: wave_layout<W, 1> for both; B: the "
                "source <W, 1>, the target <1, W>), so that every wave holds the k range it "
                "consumes");
  constexpr const LaneMap& target = as_a ? D::lanes::a_tile_map : D::lanes::b_tile_map;
  static_assert(detail::exchange_reaches(S::lanes::c_map, target, as_a),
                "accumulator_as_operand_exchanged: the register transpose (three butterflies and "
                "a half-wave swap) does not take this accumulator layout to the target's operand "
                "layout (it needs 16x16 tiles with 8 values per lane on both sides): go through "
                "LDS with accumulator_via_lds");
  static_assert((as_a ? D::repeat_m : D::repeat_n) == S::repeat_m,
                "accumulator_as_operand_exchanged: the target's atoms along its non-k dimension "
                "must be the source's atoms along m (repeat_m of the source)");
  static_assert(as_a ? D::wave_tile_m == S::wave_tile_m : D::wave_tile_n == S::wave_tile_m,
                "accumulator_as_operand_exchanged: the target's non-k wave tile must be the "
                "source's m wave tile");
  if (k_step < 0 || k_step >= S::repeat_n)
    throw std::out_of_range("accumulator_as_operand_exchanged: k step " + std::to_string(k_step) +
                            " of an accumulator with " + std::to_string(S::repeat_n) +
                            " atom columns");
  using Frag = std::conditional_t<as_a, typename D::AFrag, typename D::BFrag>;
  using E = typename Frag::elem_type;
  using CE = typename FC::elem_type;
  Frag out;
  for (int i = 0; i < S::repeat_m; ++i) {
    const auto& c = acc.at(i, k_step);
    std::array<Scalar<CE>, Frag::values_per_tile> x;
    for (int v = 0; v < Frag::values_per_tile; ++v)
      x[v] = Scalar<CE>(c[v]);
    x = detail::exchange_transpose(x);
    std::array<Scalar<E>, Frag::values_per_tile> e;
    for (int v = 0; v < Frag::values_per_tile; ++v)
      e[v] = detail::to_operand_elem<E>(x[v], rounding);
    (as_a ? out.at(i, 0) : out.at(0, i)) = Frag::vec_type::from(e);
  }
  return out;
}

// The fallback through LDS, for any layouts: the accumulator is stored once (converted to the
// scratch tile's element type, the target's operand type) into `scratch`, a src tile_m x
// tile_n LDS tile, and read back as operand Op of every k step of `dst` (k along the scratch
// columns for both: A(m, k) = C(m, k), and B's n-major tile (n, k) = C(n, k)). Returns the
// src repeat_n operand fragments, k step by k step. The scratch is written and read by the
// same waves (the wave layouts above), and LDS accesses of one wave complete in order, so no
// barrier is needed; a caller that reuses the scratch across waves orders it with
// lds_barrier().
template <MmaOperand Op, TiledMmaType Src, TiledMmaType Dst, MmaFragmentType FC, class Tile>
auto accumulator_via_lds(const Src& src, const FC& acc, const Dst& dst, const Tile& scratch) {
  using S = std::remove_cvref_t<Src>;
  static_assert(Op == MmaOperand::A || Op == MmaOperand::B,
                "accumulator_via_lds: the target is an A or a B operand");
  static_assert(Tile::rows == S::tile_m && Tile::cols == S::tile_n,
                "accumulator_via_lds: the scratch must be the source's tile_m x tile_n");
  src.store(acc, scratch);
  using Frag = std::conditional_t<Op == MmaOperand::A, typename std::remove_cvref_t<Dst>::AFrag,
                                  typename std::remove_cvref_t<Dst>::BFrag>;
  std::array<Frag, S::repeat_n> out;
  for (int ks = 0; ks < S::repeat_n; ++ks) {
    if constexpr (Op == MmaOperand::A)
      out[ks] = dst.load_a(scratch, ks);
    else
      out[ks] = dst.load_b(scratch, ks);
  }
  return out;
}

} // namespace tw::dsl
