#pragma once
// BufferClippedWalk<T, R, C>: the R x C tiles of one band of R rows of a row-major GlobalTensor,
// walked along the columns (a GEMM's k-contiguous operand along K), all read through ONE raw
// buffer descriptor made once: its base is the band's first element, its num_records ends after
// the band's last row inside the tensor (as buffer_clipped_tile's), and a tile's column offset is
// the loads' wave-uniform scalar offset (soffset, dsl/ir/README.md), not a new descriptor. Moving
// to the next tile costs one scalar add, compare and select (shared by every operand of the same
// element size and column count), where a descriptor per tile costs a 64-bit base add, a mask of
// the base's high word and a records select per operand (the f16 GEMM K loop: 10 -> 4 SALU per K
// tile). The per-lane offsets (row * row_stride + column within the tile) are loop-invariant.
//   const auto walk = buffer_clipped_walk<128, 32>(A, block_m);   // once, before the K loop
//   auto regs = copy_a.load(walk.tile(k_tile));                   // any K tile, edges included
// What reads 0 (and needs no mask and no branch):
//  - a row past the tensor's last row: its offsets lie at or past num_records;
//  - a tile past the tensor's last column (a pipeline's fetch after its last K tile): its scalar
//    offset is 2^31, past every num_records (the range check counts the scalar offset).
// The caller's promise (ClippedCols::whole_or_none's): every tile's columns lie all inside the
// tensor or all past it (the column count a multiple of C); without it use buffer_clipped_tile
// with ClippedCols::per_run, whose per-run choice zeroes a partial edge tile.
// Requirements: those of buffer_clipped_tile (buffer_clipped_tile_fits checks them on the host:
// columns contiguous, row_stride >= cols, R * row_stride elements below 2^31 bytes, runs aligned).
// Every byte offset of the walk, (R - 1) * row_stride + cols elements, is then below 2^31 too.
#include <dsl/builder/control.hpp>
#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/tensor/global_tensor.hpp>

#include <cstdint>
#include <stdexcept>

namespace tw::dsl {

template <ElemType T, int R, int C>
class BufferClippedWalk {
public:
  // One tile of the walk: a source tile for TiledCopy::load.
  class Tile {
  public:
    using elem_type = T;
    static constexpr int rows = R, cols = C;
    static constexpr bool is_lds = false;
    bool rows_contiguous() const { return true; }

    // Run (r, c) .. (r, c + N - 1) of the tile; 0 for the elements outside the tensor.
    template <int N>
    Vec<T, N> load_run(const Int32& r, const Int32& c) const {
      static_assert(N >= 1, "BufferClippedWalk: a run holds at least one element");
      ir::OpBuilder& ob = KernelBuilder::current("BufferClippedWalk").ops();
      const Int32 lane_offset = (r * row_stride_ + c) * Int32(elem_bytes<T>());
      return Vec<T, N>(
          ob.buffer_load(Vec<T, N>::type(), rsrc_, lane_offset.ir(), scalar_offset_.ir()));
    }

  private:
    friend class BufferClippedWalk;
    Tile(const BufferClippedWalk& w, const Int32& scalar_offset)
        : row_stride_(w.row_stride_), rsrc_(w.rsrc_), scalar_offset_(scalar_offset) {}
    Int32 row_stride_;
    ir::Value rsrc_;
    Int32 scalar_offset_;
  };

  BufferClippedWalk(const GlobalTensor<T>& t, const Int64& row0)
      : row_stride_(cast<i32>(t.row_stride())),
        cols_bytes_(cast<i32>(t.cols()) * Int32(elem_bytes<T>())) {
    const Int32 records = detail::band_records<R>(t, row0, row_stride_);
    ir::OpBuilder& ob = KernelBuilder::current("BufferClippedWalk").ops();
    rsrc_ = ob.buffer_rsrc(t.ptr().address(t.offset(row0, Int64(0))), records.ir());
  }

  // Tile `tile_col` of the band: columns tile_col * C .. + C - 1 (tile_col >= 0, uniform; the
  // few tiles past the last that a pipeline fetches keep tile_col * C * elem_bytes below 2^31).
  // (The compare is in bytes, on the offset itself: a loop keeps one scalar induction variable.)
  Tile tile(const Int32& tile_col) const {
    const Int32 col0_bytes = tile_col * Int32(C * elem_bytes<T>());
    const Int32 past_all(static_cast<std::int32_t>(0x80000000u)); // past any num_records
    return Tile(*this, select(col0_bytes < cols_bytes_, col0_bytes, past_all));
  }

private:
  Int32 row_stride_, cols_bytes_; // cols_bytes_ < 2^31: cols <= row_stride (requirements)
  ir::Value rsrc_;
};

// The walk over the tile_row-th band of R rows of `t` (see above for what `t` must satisfy).
template <int R, int C, ElemType T, class TR>
BufferClippedWalk<T, R, C> buffer_clipped_walk(const GlobalTensor<T>& t, const TR& tile_row) {
  if (!t.rows_contiguous())
    throw std::invalid_argument("buffer_clipped_walk: the tensor's columns must be contiguous "
                                "(col_stride the constant 1)");
  return BufferClippedWalk<T, R, C>(t, detail::as_index(tile_row) * Int64(R));
}

} // namespace tw::dsl
