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
//
// Both calls also take a RowGatheredTensor (dsl/tensor/gathered_rows.hpp: a paged KV cache),
// whose rows (the k of the tile) lie wherever its row map puts them: each lane reads its run
// of 8 elements from one row, so a lane's address is that row's start (the map, evaluated per
// lane, only for rows that exist) plus its columns; the 16 rows of a tile may sit on
// different pages.
#include <atoms/copy/gfx12_transpose_loads.hpp>
#include <dsl/builder/ids.hpp> // before fragment.hpp, which uses lane_id without including it
#include <dsl/mma/fragment.hpp>
#include <dsl/tensor/gathered_rows.hpp>
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

namespace detail {
template <MmaAtomType Atom, MmaOperand Op, ElemType T>
consteval void check_transpose_load() {
  using Tr = MmaOperandTraits<Atom, Op>;
  using Lanes = MmaAtomLanes<Atom>;
  static_assert(Op != MmaOperand::C,
                "load_operand_transposed: transpose loads fill the A or B operand, not C / D");
  static_assert(!Lanes::packed_int4,
                "load_operand_transposed: packed int4 operands have no gfx12 transpose load (the "
                "loads move 16-bit or 8-bit elements)");
  static_assert(std::same_as<T, typename Tr::elem>,
                "load_operand_transposed: the tensor's element type is not the atom operand's");
  static_assert(T::bits == 16 || T::bits == 8,
                "load_operand_transposed: gfx12 transpose loads move 16-bit (global_load_tr_b128)"
                " or 8-bit (global_load_tr_b64) elements");
  static_assert(Lanes::M == 16 && Lanes::N == 16 && Lanes::K == 16,
                "load_operand_transposed: the transpose loads fill one 16 x 16 operand tile of a "
                "16x16x16 WMMA atom");
  static_assert(detail::transpose_load_matches_operand<Atom, Op>(),
                "load_operand_transposed: the transpose load's lane layout (lane L holds k = "
                "8 (L / 16) + v of column L % 16) is not this atom's operand map");
}

template <ElemType T>
void check_columns_adjacent(const GlobalTensor<T>& kmajor) {
  if (!kmajor.rows_contiguous())
    throw std::invalid_argument(
        "load_operand_transposed: the tensor's columns (the m / n of the operand) must be "
        "adjacent in memory (column stride the constant 1): pass a row-major B (K x N) or the "
        "transposed view of a column-major A");
}
} // namespace detail

template <MmaAtomType Atom, MmaOperand Op, ElemType T>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed(const GlobalTensor<T>& kmajor, const Int64& k0, const Int64& mn0) {
  using Tr = MmaOperandTraits<Atom, Op>;
  detail::check_transpose_load<Atom, Op, T>();
  detail::check_columns_adjacent(kmajor);
  constexpr const atoms::TransposeLoadInfo& info = atoms::transpose_load_for(T::bits);
  ir::OpBuilder& ob = KernelBuilder::current("load_operand_transposed").ops();
  const UInt32 lane(ob.lane_id());
  // The lane's pointer, then the tile's rows (uniform) and columns (usually a constant) as
  // separate steps: tiles of one row block share one pointer and the column offset folds into
  // the instruction's immediate offset (no 64-bit address arithmetic per tile).
  const GlobalPtr<T> lane_ptr(
      kmajor.ptr().address(kmajor.offset(detail::transpose_read_part(info, lane, true),
                                         detail::transpose_read_part(info, lane, false))),
      elem_bytes<T>());
  const GlobalPtr<T> rows_ptr(lane_ptr.address(k0 * kmajor.row_stride()), elem_bytes<T>());
  const ir::Value p = rows_ptr.address(mn0);
  return typename Tr::vec(ob.global_load_tr(Tr::vec::type(), p));
}

namespace detail {
// The masked transpose load of a tensor of rows x cols whose element (row, col) is at
// ptr + element_at(row, col) (columns adjacent); see load_operand_transposed_masked.
template <MmaAtomType Atom, MmaOperand Op, ElemType T, class ElementAt>
typename MmaOperandTraits<Atom, Op>::vec
transpose_load_masked(const GlobalPtr<T>& ptr, const Int64& rows, const Int64& cols,
                      const ElementAt& element_at, const Int64& k0, const Int64& mn0) {
  using Tr = MmaOperandTraits<Atom, Op>;
  using E = typename Tr::elem;
  constexpr const atoms::TransposeLoadInfo& info = atoms::transpose_load_for(T::bits);
  constexpr int run = info.elements();
  ir::OpBuilder& ob = KernelBuilder::current("load_operand_transposed_masked").ops();
  const UInt32 lane(ob.lane_id());
  const Int64 row = min(k0 + transpose_read_part(info, lane, true), rows - Int64(1));
  const Int64 col0 = mn0 + transpose_read_part(info, lane, false);
  const Int64 col = select(col0 + Int64(run) <= cols, col0, cols - Int64(run));
  const ir::Value p = ptr.address(element_at(row, col));
  const typename Tr::vec x(ob.global_load_tr(Tr::vec::type(), p));
  // Which (k, m / n) element each value is, from the atom's operand map.
  constexpr const LaneMap& m = Tr::map;
  const Int32 l = cast<i32>(lane);
  const Int32 lr = lane_part(m, l, true), lc = lane_part(m, l, false);
  const Int32 k_lane = Op == MmaOperand::B ? lr : lc, mn_lane = Op == MmaOperand::B ? lc : lr;
  const Int64 k_left = rows - k0, mn_left = cols - mn0;
  std::array<Scalar<E>, Tr::values> e;
  for (int v = 0; v < Tr::values; ++v) {
    const int kv = Op == MmaOperand::B ? m.value_row[v] : m.value_col[v];
    const int mnv = Op == MmaOperand::B ? m.value_col[v] : m.value_row[v];
    const Bool inside = (cast<i64>(k_lane + kv) < k_left) && (cast<i64>(mn_lane + mnv) < mn_left);
    e[v] = select(inside, x[v], Scalar<E>(0));
  }
  return Tr::vec::from(e);
}
} // namespace detail

// As load_operand_transposed, for a tile that may cross the tensor's edge (the last KV block
// of attention, a padded head): elements whose k (row) or m / n (column) lies past the
// tensor read as 0. A lane whose read would leave the tensor reads inside it instead (row
// clamped to the last one, an 8-element run moved to the last whole run of the row) and the
// values it delivers for missing elements are then replaced by 0, so nothing outside the
// tensor is touched. Needs a tensor of at least one row whose column count is a multiple of
// 8 (the elements one lane reads); the caller checks it (a uniform branch to this or to
// element-wise loads).
template <MmaAtomType Atom, MmaOperand Op, ElemType T>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed_masked(const GlobalTensor<T>& kmajor, const Int64& k0, const Int64& mn0) {
  detail::check_transpose_load<Atom, Op, T>();
  detail::check_columns_adjacent(kmajor);
  return detail::transpose_load_masked<Atom, Op>(
      kmajor.ptr(), kmajor.rows(), kmajor.cols(),
      [&](const Int64& r, const Int64& c) { return kmajor.offset(r, c); }, k0, mn0);
}

// load_operand_transposed of a row-gathered tensor: the tile must lie inside it.
template <MmaAtomType Atom, MmaOperand Op, ElemType T, class RowMap>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed(const RowGatheredTensor<T, RowMap>& kmajor, const Int64& k0,
                        const Int64& mn0) {
  using Tr = MmaOperandTraits<Atom, Op>;
  detail::check_transpose_load<Atom, Op, T>();
  constexpr const atoms::TransposeLoadInfo& info = atoms::transpose_load_for(T::bits);
  ir::OpBuilder& ob = KernelBuilder::current("load_operand_transposed").ops();
  const UInt32 lane(ob.lane_id());
  const Int64 row = k0 + detail::transpose_read_part(info, lane, true);
  // The lane's row start, then the tile's columns (a constant folds into the immediate offset).
  const GlobalPtr<T> lane_ptr(kmajor.ptr().address(kmajor.row_offset(cast<i32>(row)) +
                                                   detail::transpose_read_part(info, lane, false)),
                              elem_bytes<T>());
  const ir::Value p = lane_ptr.address(mn0);
  return typename Tr::vec(ob.global_load_tr(Tr::vec::type(), p));
}

// load_operand_transposed_masked of a row-gathered tensor (the row map is read only for rows
// that exist).
template <MmaAtomType Atom, MmaOperand Op, ElemType T, class RowMap>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed_masked(const RowGatheredTensor<T, RowMap>& kmajor, const Int64& k0,
                               const Int64& mn0) {
  detail::check_transpose_load<Atom, Op, T>();
  return detail::transpose_load_masked<Atom, Op>(
      kmajor.ptr(), kmajor.rows(), kmajor.cols(),
      [&](const Int64& r, const Int64& c) { return kmajor.row_offset(cast<i32>(r)) + c; }, k0, mn0);
}

namespace detail {
// The clamped transpose load (load_operand_transposed_clamped): the lane's row and run
// clamped into the tensor, nothing masked.
template <MmaAtomType Atom, MmaOperand Op, ElemType T, class ElementAt>
typename MmaOperandTraits<Atom, Op>::vec
transpose_load_clamped(const GlobalPtr<T>& ptr, const Int64& rows, const Int64& cols,
                       const ElementAt& element_at, const Int64& k0, const Int64& mn0) {
  using Tr = MmaOperandTraits<Atom, Op>;
  constexpr const atoms::TransposeLoadInfo& info = atoms::transpose_load_for(T::bits);
  constexpr int run = info.elements();
  ir::OpBuilder& ob = KernelBuilder::current("load_operand_transposed_clamped").ops();
  const UInt32 lane(ob.lane_id());
  const Int64 row = min(k0 + transpose_read_part(info, lane, true), rows - Int64(1));
  const Int64 col = min(mn0 + transpose_read_part(info, lane, false), cols - Int64(run));
  return typename Tr::vec(ob.global_load_tr(Tr::vec::type(), ptr.address(element_at(row, col))));
}
} // namespace detail

// As load_operand_transposed, for a tile that may cross the tensor's edge, where the caller
// does not need the missing elements to be 0 because they only ever meet zeros or results
// that are thrown away (attention's V: keys past the sequence meet P = 0, value dims past the
// head make O columns that are never stored). Every lane reads inside the tensor (row clamped
// to the last one, an 8-element run moved to the last whole run of the row), so the missing
// elements are copies of elements of the tensor (which ones is unspecified): no masks, only
// the address clamp. Needs at least one row and a column count that is a multiple of 8.
template <MmaAtomType Atom, MmaOperand Op, ElemType T>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed_clamped(const GlobalTensor<T>& kmajor, const Int64& k0, const Int64& mn0) {
  detail::check_transpose_load<Atom, Op, T>();
  detail::check_columns_adjacent(kmajor);
  return detail::transpose_load_clamped<Atom, Op>(
      kmajor.ptr(), kmajor.rows(), kmajor.cols(),
      [&](const Int64& r, const Int64& c) { return kmajor.offset(r, c); }, k0, mn0);
}
template <MmaAtomType Atom, MmaOperand Op, ElemType T, class RowMap>
typename MmaOperandTraits<Atom, Op>::vec
load_operand_transposed_clamped(const RowGatheredTensor<T, RowMap>& kmajor, const Int64& k0,
                                const Int64& mn0) {
  detail::check_transpose_load<Atom, Op, T>();
  return detail::transpose_load_clamped<Atom, Op>(
      kmajor.ptr(), kmajor.rows(), kmajor.cols(),
      [&](const Int64& r, const Int64& c) { return kmajor.row_offset(cast<i32>(r)) + c; }, k0, mn0);
}

} // namespace tw::dsl
