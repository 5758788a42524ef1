#pragma once
// BufferClippedTile<T, R, C>: an R x C tile of a row-major GlobalTensor whose loads and stores
// need no mask and no branch, at its edges included: a raw buffer descriptor at the tile's
// origin whose num_records ends after the tile's last row inside the tensor (that many row
// strides), and per-lane 32-bit byte offsets. Every element outside the tensor reads 0 (and a
// store there writes nothing):
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
// A loop that moves the tile along the columns (a GEMM's k-contiguous operand along K) changes
// the columns' choice every step: one uniform branch on cols_whole() lets the tiles whose
// columns all exist skip it (assume_cols_whole(): the per-lane offsets are then loop-invariant),
// the edge tile keeps it; both are straight buffer loads.
//   if_(t.cols_whole(), [&] { return copy.load(t.assume_cols_whole()); },
//                       [&] { return copy.load(t); });
// When the host knows every tile's columns lie all inside the tensor or all past it (the
// column count a multiple of C: a GEMM with K a multiple of its K tile), ClippedCols::
// whole_or_none drops the choice without a branch: the per-lane offsets are loop-invariant and a
// tile wholly past the last column (a pipeline's fetch after the last K tile) gets num_records 0
// (a scalar compare and select on SALU).
//   const auto at = buffer_clipped_tile<128, 32>(A, bm, kt, ClippedCols::whole_or_none);
// No partial dword: num_records is a whole number of row strides and every run starts at a
// multiple of its width inside its row, so each run lies wholly below num_records or wholly at
// or past it (the range check is per dword, or per byte of a narrower load: RDNA4.md).
// Requirements (the caller's; attention checks them on the host, FlashAttnKernelSpec::k_clipped):
//  - columns contiguous (col_stride 1), and the runs aligned with the tensor's column count: a
//    run of N elements at a column multiple of N lies wholly inside or wholly outside (cols a
//    multiple of N);
//  - rows that do not overlap: row_stride >= cols;
//  - every byte offset of the tile below 2^31: ((R - 1) row_stride + C) elements; the
//    tensor's row and column counts below 2^31;
//  - the base and the row starts aligned for the runs' width (16 bytes for 128-bit runs).
// buffer_clipped_tile_fits() below checks them on the host for a tensor's sizes.
#include <dsl/builder/control.hpp>
#include <dsl/tensor/global_tensor.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace tw::dsl {

// How a tile's columns past the tensor read 0: per_run (each run's offset chosen by its column,
// any column count) or whole_or_none (the caller's promise that the tile's columns lie all
// inside or all past the tensor: one num_records 0 for the tile past it, no per-run choice).
enum class ClippedCols : bool { per_run, whole_or_none };

namespace detail {
// num_records of a band of R rows from row0 of `t`: it ends after the band's last row inside
// the tensor (rows_valid x row stride bytes, 0 when the band starts past the last row), so a run
// of a later row starts at or past it and reads 0. 32-bit arithmetic; no clamp (min of a max)
// of a scalar value: LLVM selects that as v_med3 (VALU), which would make the descriptor
// divergent (a readfirstlane loop around every load).
template <int R, ElemType T>
Int32 band_records(const GlobalTensor<T>& t, const Int64& row0, const Int32& row_stride) {
  const Int32 rows_left = cast<i32>(t.rows()) - cast<i32>(row0);
  const Int32 rows_valid = cast<i32>(min(cast<u32>(rows_left), UInt32(R)));
  return select(rows_left > Int32(0), rows_valid * (row_stride * Int32(elem_bytes<T>())), Int32(0));
}
} // namespace detail

template <ElemType T, int R, int C>
class BufferClippedTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;
  bool rows_contiguous() const { return true; } // the tile's requirement (col_stride 1)

  BufferClippedTile(const GlobalTensor<T>& t, const Int64& row0, const Int64& col0,
                    ClippedCols cols = ClippedCols::per_run)
      : row_stride_(cast<i32>(t.row_stride())), cols_whole_(cols == ClippedCols::whole_or_none) {
    // 32-bit arithmetic: the tile's offsets fit in 31 bits by the requirements, and the
    // tensor's row and column counts are below 2^31. No clamp (min of a max) of a scalar
    // value: LLVM selects that as v_med3 (VALU), which would make the descriptor divergent
    // (a readfirstlane loop around every load).
    cols_valid_ = min(max(cast<i32>(t.cols()) - cast<i32>(col0), Int32(0)), Int32(C));
    // A run of a valid row in columns past the tensor is sent past every num_records by its
    // offset (load_run).
    Int32 records = detail::band_records<R>(t, row0, row_stride_);
    if (cols_whole_) // a tile past the last column: nothing in range
      records = select(cast<i32>(t.cols()) > cast<i32>(col0), records, Int32(0));
    ir::OpBuilder& ob = KernelBuilder::current("BufferClippedTile").ops();
    rsrc_ = ob.buffer_rsrc(t.ptr().address(t.offset(row0, col0)), records.ir());
  }

  // Run (r, c) .. (r, c + N - 1) of the tile; 0 for the elements outside the tensor.
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    static_assert(N >= 1, "BufferClippedTile: a run holds at least one element");
    ir::OpBuilder& ob = KernelBuilder::current("BufferClippedTile").ops();
    return Vec<T, N>(ob.buffer_load(Vec<T, N>::type(), rsrc_, offset<N>(r, c).ir()));
  }

  // Element (r, c) and run (r, c) .. (r, c + N - 1) stored; the elements outside the tensor are
  // dropped by the same range check (a buffer store past num_records writes nothing), so an
  // edge tile's stores need no mask and no branch either. Single elements need no run
  // alignment (any column count); runs as for the loads.
  void store(const Int32& r, const Int32& c, const Scalar<T>& v) const {
    KernelBuilder::current("BufferClippedTile")
        .ops()
        .buffer_store(rsrc_, offset<1>(r, c).ir(), v.ir());
  }
  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<T, N>& v) const {
    static_assert(N >= 1, "BufferClippedTile: a run holds at least one element");
    KernelBuilder::current("BufferClippedTile")
        .ops()
        .buffer_store(rsrc_, offset<N>(r, c).ir(), v.ir());
  }

  // Every column of the tile lies inside the tensor (uniform; rows may still end early).
  Bool cols_whole() const { return cols_valid_ == Int32(C); }
  // The same tile read without the per-run column choice (rows past the tensor still read 0
  // through num_records): for a tile known to be cols_whole().
  BufferClippedTile assume_cols_whole() const {
    BufferClippedTile t = *this;
    t.cols_whole_ = true;
    return t;
  }

private:
  // The byte offset of run (r, c): inside the records for a run of a valid row wholly inside
  // the columns, past them otherwise.
  template <int N>
  Int32 offset(const Int32& r, const Int32& c) const {
    const Int32 inside = (r * row_stride_ + c) * Int32(elem_bytes<T>());
    const Int32 outside(static_cast<std::int32_t>(0x80000000u)); // past any num_records
    return cols_whole_ ? inside : select(c + Int32(N) <= cols_valid_, inside, outside);
  }

  Int32 row_stride_, cols_valid_;
  ir::Value rsrc_;
  bool cols_whole_ = false;
};

// Whether a tensor of `rows` x `cols` elements of `elem_bytes` bytes, rows `row_stride` elements
// apart, meets buffer_clipped_tile's requirements for tile_rows x tile_cols tiles read in runs
// of `run` elements (host side, before a kernel that reads it clipped is chosen).
// `runs_aligned`: the caller's knowledge that the base and every row start are aligned to a
// run's bytes.
inline bool buffer_clipped_tile_fits(std::int64_t rows, std::int64_t cols, std::int64_t row_stride,
                                     int elem_bytes, int tile_rows, int tile_cols, int run,
                                     bool runs_aligned) {
  constexpr std::int64_t limit = std::int64_t{1} << 31;
  if (!runs_aligned || rows < 0 || cols < 0 || rows >= limit || cols >= limit || run < 1 ||
      cols % run != 0 || row_stride < cols || row_stride >= limit)
    return false;
  // Byte offsets of the tile and num_records (rows valid x row stride) below 2^31.
  const std::int64_t last = (std::int64_t{tile_rows} - 1) * row_stride + tile_cols;
  const std::int64_t records = std::int64_t{tile_rows} * row_stride;
  return std::max(last, records) * elem_bytes < limit;
}

// The (tile_row, tile_col)-th R x C tile of `t`, as local_tile, read through a clipped buffer
// descriptor (see above for what `t` must satisfy).
template <int R, int C, ElemType T, class TR, class TC>
BufferClippedTile<T, R, C> buffer_clipped_tile(const GlobalTensor<T>& t, const TR& tile_row,
                                               const TC& tile_col,
                                               ClippedCols cols = ClippedCols::per_run) {
  if (!t.rows_contiguous())
    throw std::invalid_argument("buffer_clipped_tile: the tensor's columns must be contiguous "
                                "(col_stride the constant 1)");
  return BufferClippedTile<T, R, C>(t, detail::as_index(tile_row) * Int64(R),
                                    detail::as_index(tile_col) * Int64(C), cols);
}

} // namespace tw::dsl
