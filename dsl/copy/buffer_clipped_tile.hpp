#pragma once
// BufferClippedTile<T, R, C>: an R x C tile of a row-major GlobalTensor whose loads need no
// mask and no branch, at its edges included: a raw buffer descriptor at the tile's origin
// whose num_records ends after the tile's last row inside the tensor (that many row strides),
// and per-lane 32-bit byte offsets. Every element outside the tensor reads 0:
//  - a run in a row past the tensor's last row lies at or past num_records, so the buffer's
//    range check returns 0 for it;
//  - a run in a column past the tensor's last column gets the offset 2^31, past any
//    num_records (a lane's columns are fixed, so this choice does not depend on the tile's row
//    and a loop hoists it).
// A loop that moves the tile along the rows (attention's K blocks) changes only the
// descriptor (SALU): no 64-bit VALU addresses, no edge path kept beside the interior one, and a
// tile wholly past the tensor (a pipeline's fetch after its last block) reads zeros without a
// branch (num_records 0).
//   const auto kt = buffer_clipped_tile<32, 128>(K, block, 0);
//   auto regs = copy_k.load(kt);   // copy runs of N elements at columns that are multiples of N
// Requirements (the caller's; attention checks them on the host, FlashAttnKernelSpec::k_clipped):
//  - columns contiguous (col_stride 1), and the runs aligned with the tensor's column count: a
//    run of N elements at a column multiple of N lies wholly inside or wholly outside (cols a
//    multiple of N);
//  - rows that do not overlap: row_stride >= cols;
//  - every byte offset of the tile below 2^31: ((R - 1) row_stride + C) elements; the
//    tensor's row and column counts below 2^31;
//  - the base and the row starts aligned for the runs' width (16 bytes for 128-bit runs).
#include <dsl/builder/control.hpp>
#include <dsl/tensor/global_tensor.hpp>

#include <cstdint>
#include <stdexcept>

namespace tw::dsl {

template <ElemType T, int R, int C>
class BufferClippedTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  BufferClippedTile(const GlobalTensor<T>& t, const Int64& row0, const Int64& col0)
      : row_stride_(cast<i32>(t.row_stride())) {
    // 32-bit arithmetic: the tile's offsets fit in 31 bits by the requirements, and the
    // tensor's row and column counts are below 2^31. No clamp (min of a max) of a scalar
    // value: LLVM selects that as v_med3 (VALU), which would make the descriptor divergent
    // (a readfirstlane loop around every load).
    cols_valid_ = min(max(cast<i32>(t.cols()) - cast<i32>(col0), Int32(0)), Int32(C));
    // The records end after the last valid row's stride: rows_valid * row_stride elements.
    // A run of a later row starts at or past it (read as 0); a run of a valid row in columns
    // past the tensor is sent past every num_records by its offset (load_run).
    const Int32 rows_left = cast<i32>(t.rows()) - cast<i32>(row0);
    const Int32 rows_valid = cast<i32>(min(cast<u32>(rows_left), UInt32(R)));
    const Int32 records =
        select(rows_left > Int32(0), rows_valid * (row_stride_ * Int32(elem_bytes<T>())), Int32(0));
    ir::OpBuilder& ob = KernelBuilder::current("BufferClippedTile").ops();
    rsrc_ = ob.buffer_rsrc(t.ptr().address(t.offset(row0, col0)), records.ir());
  }

  // Run (r, c) .. (r, c + N - 1) of the tile; 0 for the elements outside the tensor.
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    static_assert(N >= 1, "BufferClippedTile: a run holds at least one element");
    ir::OpBuilder& ob = KernelBuilder::current("BufferClippedTile").ops();
    const Int32 inside = (r * row_stride_ + c) * Int32(elem_bytes<T>());
    const Int32 outside(static_cast<std::int32_t>(0x80000000u)); // past any num_records
    const Int32 at = select(c + Int32(N) <= cols_valid_, inside, outside);
    return Vec<T, N>(ob.buffer_load(Vec<T, N>::type(), rsrc_, at.ir()));
  }

private:
  Int32 row_stride_, cols_valid_;
  ir::Value rsrc_;
};

// The (tile_row, tile_col)-th R x C tile of `t`, as local_tile, read through a clipped buffer
// descriptor (see above for what `t` must satisfy).
template <int R, int C, ElemType T, class TR, class TC>
BufferClippedTile<T, R, C> buffer_clipped_tile(const GlobalTensor<T>& t, const TR& tile_row,
                                               const TC& tile_col) {
  if (!t.rows_contiguous())
    throw std::invalid_argument("buffer_clipped_tile: the tensor's columns must be contiguous "
                                "(col_stride the constant 1)");
  return BufferClippedTile<T, R, C>(t, detail::as_index(tile_row) * Int64(R),
                                    detail::as_index(tile_col) * Int64(C));
}

} // namespace tw::dsl
