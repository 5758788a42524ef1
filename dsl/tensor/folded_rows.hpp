#pragma once
// FoldedRows: a row map for RowGatheredTensor (dsl/tensor/gathered_rows.hpp) that folds two
// strided row modes into one row index, CuTe's row mode (inner, outer):(inner_stride,
// outer_stride): row r is inner index r % inner of outer index r / inner, at element offset
//   (r / inner) * outer_stride + (r % inner) * inner_stride.
// Attention's GQA packing uses it to put the query rows of several heads of one kv head into
// one tile: rows (head g, query i) at g * Sq + i with inner = Sq, inner_stride the token stride
// and outer_stride the head stride of q [B, Sq, Hq, D] (and of out).
//   const RowGatheredTensor q(ptr, group * sq, d, FoldedRows{sq32, q_token_stride, q_head_stride});
#include <dsl/tensor/global_tensor.hpp>

namespace tw::dsl {

struct FoldedRows {
  Int32 inner; // rows per outer index (> 0)
  Int64 inner_stride, outer_stride;

  Int64 operator()(const Int32& r) const {
    // Unsigned: rows are never negative, and a constant power-of-two inner folds to a shift.
    const UInt32 ur = cast<u32>(r), ui = cast<u32>(inner);
    return cast<i64>(cast<i32>(ur / ui)) * outer_stride +
           cast<i64>(cast<i32>(ur % ui)) * inner_stride;
  }
};

} // namespace tw::dsl
