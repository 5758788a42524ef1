#pragma once
// load_operand_transposed<Atom, Op>(kmajor, k0, mn0): one atom tile of the A or B operand of a
// 16x16x16 WMMA atom, read straight into its registers with one gfx12 transpose load
// (global_load_tr_b128 for 16-bit, global_load_tr_b64 for 8-bit elements) from a tensor whose
// rows are k and whose columns (m of A, n of B) are adjacent in memory: a row-major B (K x N),
// or the transposed view of a column-major A (A.transposed(), K x M). This is the case where a
// plain load would give each lane one element per access (V of attention, a column-major GEMM
// operand); the result is the same Vec a load_operand of the other major order gives.
//
//   auto b = load_operand_transposed<atoms::wmma_f32_16x16x16_f16, MmaOperand::B>(V, k0, n0);
//   acc = mma_atom_call(a, b, acc);                      // any use of an operand Vec
//
// The 16 x 16 tile [k0, k0 + 16) x [mn0, mn0 + 16) must lie inside the tensor (no masking) and
// every lane of the wave must execute the load (not inside divergent control flow).
#include <atoms/copy/gfx12_transpose_loads.hpp>
#include <dsl/builder/ids.hpp> // before fragment.hpp, which uses lane_id without including it
#include <dsl/mma/fragment.hpp>
#include <dsl/tensor/global_tensor.hpp>

#include <stdexcept>

namespace tw::dsl {

namespace detail {
// True when the transpose load's result layout is the atom's tiled operand map (the map every
// other operand load of the DSL uses), checked for every lane and value.
template <MmaAtomType Atom, MmaOperand Op>
consteval bool transpose_load_matches_operand() {
  using Lanes = MmaAtomLanes<Atom>;
  const LaneMap& m = Lanes::map(Op);
  constexpr auto result = atoms::transpose_load_result_layout();
  if (m.values != 8)
    return false;
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < 8; ++v) {
      const int row = m.lane_row(l) + m.value_row[v], col = m.lane_col(l) + m.value_col[v];
      const int k = Op == MmaOperand::B ? row : col, mn = Op == MmaOperand::B ? col : row;
      if (result(l, v) != k + 16 * mn)
        return false;
    }
  return true;
}

// (lane / divisor % extent) * step summed over the read modes, in IR.
inline Int64 transpose_read_part(const atoms::TransposeLoadInfo& info, const UInt32& lane,
                                 bool rows) {
  UInt32 r = 0;
  for (const atoms::TransposeLoadInfo::LaneMode& m : info.read_modes) {
    const int step = rows ? m.row_step : m.col_step;
    if (step != 0 && m.extent > 1)
      r = r + lane / UInt32(m.divisor) % UInt32(m.extent) * UInt32(step);
  }
  return cast<i64>(r);
}
} // namespace detail

template <MmaAtomType Atom, MmaOperand Op, ElemType T>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed(const GlobalTensor<T>& kmajor, const Int64& k0, const Int64& mn0) {
  using Tr = MmaOperandTraits<Atom, Op>;
  using Lanes = MmaAtomLanes<Atom>;
  static_assert(Op != MmaOperand::C,
                "load_operand_transposed: transpose loads fill the A or B operand, not C / D");
  static_assert(std::same_as<T, typename Tr::elem>,
                "load_operand_transposed: the tensor's element type is not the atom operand's");
  static_assert(T::bits == 16 || T::bits == 8,
                "load_operand_transposed: gfx12 transpose loads move 16-bit (global_load_tr_b128)"
                " or 8-bit (global_load_tr_b64) elements; packed int4 operands have none");
  static_assert(Lanes::M == 16 && Lanes::N == 16 && Lanes::K == 16,
                "load_operand_transposed: the transpose loads fill one 16 x 16 operand tile of a "
                "16x16x16 WMMA atom");
  static_assert(detail::transpose_load_matches_operand<Atom, Op>(),
                "load_operand_transposed: the transpose load's lane layout (lane L holds k = "
                "8 (L / 16) + v of column L % 16) is not this atom's operand map");
  if (!kmajor.rows_contiguous())
    throw std::invalid_argument(
        "load_operand_transposed: the tensor's columns (the m / n of the operand) must be "
        "adjacent in memory (column stride the constant 1): pass a row-major B (K x N) or the "
        "transposed view of a column-major A");
  constexpr const atoms::TransposeLoadInfo& info = atoms::transpose_load_for(T::bits);
  ir::OpBuilder& ob = KernelBuilder::current("load_operand_transposed").ops();
  const UInt32 lane(ob.lane_id());
  const Int64 row = k0 + detail::transpose_read_part(info, lane, true);
  const Int64 col = mn0 + detail::transpose_read_part(info, lane, false);
  const ir::Value p = kmajor.ptr().address(kmajor.offset(row, col));
  return typename Tr::vec(ob.global_load_tr(Tr::vec::type(), p));
}

} // namespace tw::dsl
