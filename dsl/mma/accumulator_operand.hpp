#pragma once
// Accumulator -> operand: the C/D accumulator of one TiledMMA becomes an A or B operand of the
// next, converted to that TiledMMA's operand type, without leaving registers. Attention's P:
//   S^T = K Q^T   (keys x queries)        P^T = exp2(S^T - m) as B of   O^T = V^T P^T
// shared/RDNA4.md: the D layout (lane = column, registers = rows) is the B layout of the same
// matrix and the A layout of its transpose, once k is labelled the way the tiled layer loads
// 16-bit operands (lane half h holds k 8h .. 8h+7, dsl/mma/mma_atom.hpp k_contiguous). The
// partner operand must therefore come from the same TiledMMA's load_a / load_b, which use that
// labelling. Which value goes where is proved at compile time for every lane and value;
// accumulators whose layout is not an operand layout are rejected with a sentence. The other
// two orientations (A(m, k) = C(m, k), B(k, n) = C(n, k)) need a lane exchange:
// accumulator_as_operand_exchanged, or the LDS round trip accumulator_via_lds
// (accumulator_exchange.hpp).
//   auto p = accumulator_as_operand<MmaOperand::B>(s_mma, s_acc, o_mma, ks);   // k step ks
// An optional last argument, OperandRounding::nan_unchecked, rounds f32 -> bf16 without the
// NaN check (OperandRounding).
#include <dsl/handles/convert.hpp>
#include <dsl/mma/tiled_mma.hpp>

namespace tw::dsl {

// How accumulator values become operand elements. ieee: cast (NaN stays NaN). nan_unchecked:
// an f32 -> bf16 operand rounds with to_bf16_rne_nan_unchecked (exact except that a NaN gives
// an unspecified value; 2.5 VALU per value instead of about 5.5 plus a VCC wait); other pairs
// of types convert as with ieee (their conversions are single instructions).
enum class OperandRounding { ieee, nan_unchecked };

namespace detail {
// True when value v of lane l of `c` (row r, col c) is value v of lane l of operand `op` at
// (k = r, n = c) for B, or (m = c, k = r) for A (the operand of the transposed matrix).
consteval bool c_is_operand_layout(const LaneMap& c, const LaneMap& op, bool as_b) {
  if (c.values != op.values)
    return false;
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < c.values; ++v) {
      const int r = c.lane_row(l) + c.value_row[v], col = c.lane_col(l) + c.value_col[v];
      const int orow = op.lane_row(l) + op.value_row[v], ocol = op.lane_col(l) + op.value_col[v];
      if (as_b ? (orow != r || ocol != col) : (orow != col || ocol != r))
        return false;
    }
  return true;
}
// One accumulator value as an operand element: float targets round (cast); an f32 value
// becoming an int8 operand (iu8 atoms) rounds to nearest, ties to even, and saturates to
// [-128, 127] (the IR's float -> int conversion alone would truncate).
template <class E, class CE>
Scalar<E> to_operand_elem(const Scalar<CE>& x, OperandRounding rounding) {
  if constexpr (std::same_as<E, bf16> && std::same_as<CE, f32>)
    return rounding == OperandRounding::nan_unchecked ? to_bf16_rne_nan_unchecked(x) : cast<E>(x);
  else if constexpr (std::same_as<E, i8> && std::same_as<CE, f32>)
    return cast<i8>(cast<i32>(min(max(round_half_even(x), Float32(-128.0f)), Float32(127.0f))));
  else
    return cast<E>(x);
}
} // namespace detail

// Operand Op (A or B) of k step `k_step` of `dst` built from the accumulator `acc` of `src`.
//  - B: B(k, n) = C(k_step * K + k, n): src's C rows are dst's k, its columns dst's n.
//  - A: A(m, k) = C(k_step * K + k, m): dst multiplies by the transpose of src's C.
// Both TiledMMAs must spread their waves only along the dimension that is not k (wave_layout
// <1, W> for both): every wave then holds whole k ranges of the accumulator it consumes.
template <MmaOperand Op, TiledMmaType Src, TiledMmaType Dst, MmaFragmentType FC>
auto accumulator_as_operand(const Src&, const FC& acc, const Dst&, int k_step,
                            OperandRounding rounding = OperandRounding::ieee) {
  using S = std::remove_cvref_t<Src>;
  using D = std::remove_cvref_t<Dst>;
  static_assert(Op == MmaOperand::A || Op == MmaOperand::B,
                "accumulator_as_operand: the target is an A or a B operand");
  static_assert(std::same_as<FC, typename S::CFrag>,
                "accumulator_as_operand: the accumulator does not fit the source TiledMMA");
  static_assert(S::lanes::M == D::lanes::K,
                "accumulator_as_operand: an accumulator atom row block must be one k step of "
                "the target atom (M of the source atom = K of the target atom)");
  static_assert(S::waves_m == 1 && D::waves_m == 1 && S::waves_n == D::waves_n,
                "accumulator_as_operand: both TiledMMAs must place their waves along n only "
                "(wave_layout<1, W> with the same W), so that every wave holds the whole k "
                "range it consumes");
  constexpr bool as_b = Op == MmaOperand::B;
  constexpr const LaneMap& target = as_b ? D::lanes::b_tile_map : D::lanes::a_tile_map;
  static_assert(detail::c_is_operand_layout(S::lanes::c_map, target, as_b),
                "accumulator_as_operand: the accumulator's register layout is not the operand "
                "layout of the target atom (a lane exchange would be needed): use an f32 / i32 "
                "accumulator of a 16x16 atom and compute the transposed product so that the "
                "accumulator's columns are the operand's non-k dimension, or exchange lanes "
                "with accumulator_as_operand_exchanged / go through LDS with "
                "accumulator_via_lds");
  static_assert((as_b ? D::repeat_n : D::repeat_m) == S::repeat_n,
                "accumulator_as_operand: the target's atoms along its non-k dimension must be "
                "the source's atoms along n (repeat_n of the source)");
  static_assert(as_b ? D::wave_tile_n == S::wave_tile_n : D::wave_tile_m == S::wave_tile_n,
                "accumulator_as_operand: the target's non-k wave tile must be the source's n "
                "wave tile");
  if (k_step < 0 || k_step >= S::repeat_m)
    throw std::out_of_range("accumulator_as_operand: k step " + std::to_string(k_step) +
                            " of an accumulator with " + std::to_string(S::repeat_m) +
                            " atom rows");
  using Frag = std::conditional_t<as_b, typename D::BFrag, typename D::AFrag>;
  using E = typename Frag::elem_type;
  using CE = typename FC::elem_type;
  Frag out;
  for (int j = 0; j < S::repeat_n; ++j) {
    const auto& c = acc.at(k_step, j);
    std::array<Scalar<E>, Frag::values_per_tile> e;
    for (int v = 0; v < Frag::values_per_tile; ++v)
      e[v] = detail::to_operand_elem<E>(Scalar<CE>(c[v]), rounding);
    (as_b ? out.at(0, j) : out.at(j, 0)) = Frag::vec_type::from(e);
  }
  return out;
}

} // namespace tw::dsl
