#pragma once
// BufferTile<T, R, C>: a GlobalTile (same masked edge behaviour) whose interior loads go
// through a buffer resource made at the tile's origin: `buffer_load_b128 v, v_off, s[rsrc:+3]
// offen`, with the origin (wave-uniform) in the resource's SGPRs and a 32-bit per-lane byte
// offset in one VGPR. A loop that moves the tile (a KV or K loop) then rebuilds only the
// resource (SALU: about 3 scalar instructions per tile), and each load's lane offset is
// loop-invariant (computed once, one VGPR per access of the thread), so the loop has no 64-bit
// VALU address arithmetic (v_add_co / v_add_co_ci with their VCC waits) for the copy.
//   const auto gK = buffer_local_tile<32, 128>(K, block, 0);   // like local_tile
//   auto regs = copy_k.load(gK);    // whole tiles: one uniform branch to the buffer loads
// Why not global_load's SADDR form (SGPR base + zero-extended 32-bit VGPR offset): LLVM hoists
// the loop-invariant zero extension (and the lane's 64-bit pointer) out of the loop, and
// instruction selection, which sees one block at a time, then no longer recognizes the form;
// the raw buffer load takes its 32-bit offset as an operand, so nothing is lost to hoisting.
// The offsets are 32-bit, so whole() also asks that every element of the tile lies within
// 2^32 - 1 bytes of its origin (non-negative strides and (R - 1) * row_stride + (C - 1) *
// col_stride + 1 elements fit); a tile that does not takes GlobalTile's masked 64-bit path,
// which is correct for any tile. The resource's num_records is that byte span, so a whole
// tile's loads are all in range (ir/README.md "buffer_load").
#include <dsl/tensor/global_tile.hpp>

#include <cstdint>
#include <numeric>

namespace tw::dsl {

template <ElemType T, int R, int C>
class BufferTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  BufferTile(const GlobalTensor<T>& t, const Int64& row0, const Int64& col0)
      : tile_(t, row0, col0) {
    const Int64 zero(0);
    const Int64 span = (Int64(R - 1) * t.row_stride() + Int64(C - 1) * t.col_stride() + Int64(1)) *
                       Int64(elem_bytes<T>());
    fits_ =
        t.row_stride() >= zero && t.col_stride() >= zero && span <= Int64(std::int64_t{0xFFFFFFFF});
    ir::OpBuilder& ob = KernelBuilder::current("BufferTile").ops();
    rsrc_ = ob.buffer_rsrc(t.ptr().address(t.offset(row0, col0)), cast<i32>(span).ir());
  }

  const Int32& rows_left() const { return tile_.rows_left(); }
  const Int32& cols_left() const { return tile_.cols_left(); }
  const GlobalTensor<T>& tensor() const { return tile_.tensor(); }
  bool rows_contiguous() const { return tile_.rows_contiguous(); }
  // The masked GlobalTile over the same elements (64-bit addresses).
  const GlobalTile<T, R, C>& masked() const { return tile_; }

  // Every element exists and lies within 32-bit offsets of the origin (uniform).
  Bool whole() const { return tile_.whole() && fits_; }
  Bool in_range(const Int32& r, const Int32& c) const { return tile_.in_range(r, c); }

  // Masked accesses: GlobalTile's (64-bit addresses, any tile).
  Scalar<T> load(const Int32& r, const Int32& c) const { return tile_.load(r, c); }
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    return tile_.template load_run<N>(r, c);
  }

  // For a tile known to be whole(): one buffer load per run (per element when the columns
  // are not adjacent), no masks. A run the tensor's alignment promise does not cover (rows
  // not aligned to the run's size) takes GlobalTile's unmasked loads, which LLVM splits as
  // the alignment requires.
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    if (N > 1 && rows_contiguous() &&
        std::gcd(tensor().ptr().align(), N * elem_bytes<T>()) < N * elem_bytes<T>())
      return tile_.template load_run_unmasked<N>(r, c);
    if (N == 1 || !rows_contiguous()) {
      std::array<Scalar<T>, N> e;
      for (int j = 0; j < N; ++j)
        e[j] = Scalar<T>(ops().buffer_load(ir_type<T>(), rsrc_, byte_offset(r, c + j).ir()));
      return Vec<T, N>::from(e);
    }
    return Vec<T, N>(ops().buffer_load(Vec<T, N>::type(), rsrc_, byte_offset(r, c).ir()));
  }

private:
  static ir::OpBuilder& ops() { return KernelBuilder::current("BufferTile").ops(); }
  // The byte offset of element (r, c) from the origin, in 32 bits (exact when whole()).
  Int32 byte_offset(const Int32& r, const Int32& c) const {
    const UInt32 elems = cast<u32>(r) * cast<u32>(tensor().row_stride()) +
                         cast<u32>(c) * cast<u32>(tensor().col_stride());
    return cast<i32>(elems * UInt32(static_cast<std::uint32_t>(elem_bytes<T>())));
  }

  GlobalTile<T, R, C> tile_;
  ir::Value rsrc_;
  Bool fits_;
};

// The (tile_row, tile_col)-th R x C tile of `t`, as local_tile, with buffer-resource interior
// loads.
template <int R, int C, ElemType T, class TR, class TC>
BufferTile<T, R, C> buffer_local_tile(const GlobalTensor<T>& t, const TR& tile_row,
                                      const TC& tile_col) {
  return BufferTile<T, R, C>(t, detail::as_index(tile_row) * Int64(R),
                             detail::as_index(tile_col) * Int64(C));
}

} // namespace tw::dsl
