#pragma once
// BufferGlobalTile<T, R, C>: a GlobalTile (same masked edge behaviour) whose interior loads are
// raw buffer loads: a descriptor whose base is the tile's origin (wave-uniform, in SGPRs) and
// whose num_records is the tile's byte span, and a 32-bit per-lane byte offset. Moving the tile
// along K changes only the descriptor (SALU), the per-lane offsets are loop-invariant, so a
// GEMM K loop needs no 64-bit VALU address arithmetic (v_add_co / v_add_co_ci) for its operand
// copies (buffer_load_b128 v, v_off, s[rsrc], null offen). The GEMM's operand copy path.
// (A global_load with an SGPR base and a zero-extended 32-bit offset would do the same, but
// LLVM hoists the zero extension out of the loop and then adds 64-bit VGPR pairs in it.)
//   const auto gA = buffer_local_tile<128, 32>(A, block_m, k_tile);  // like local_tile
//   auto regs = copy_a.load(gA);   // whole tiles: one uniform branch to the buffer loads
// The offsets are 32-bit, so whole() also asks that every element of the tile lies within
// 2^32 - 1 bytes of its origin (non-negative strides and (R - 1) * row_stride + (C - 1) *
// col_stride + 1 elements fit); a tile that does not (a leading stride of gigabytes) takes the
// masked 64-bit path of GlobalTile, which is correct for any tile.
#include <dsl/builder/control.hpp>
#include <dsl/tensor/global_tile.hpp>
#include <dsl/tensor/whole_tile.hpp>

#include <cstdint>
#include <numeric>
#include <tuple>

namespace tw::dsl {

template <ElemType T, int R, int C>
class BufferGlobalTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  BufferGlobalTile(const GlobalTensor<T>& t, const Int64& row0, const Int64& col0)
      : tile_(t, row0, col0) {
    const Int64 zero(0), max_bytes(std::int64_t{0xFFFFFFFF});
    const Int64 span = (Int64(R - 1) * t.row_stride() + Int64(C - 1) * t.col_stride() + Int64(1)) *
                       Int64(elem_bytes<T>());
    offsets_fit_ = t.row_stride() >= zero && t.col_stride() >= zero && span <= max_bytes;
    // num_records: the span (any value when it does not fit: the buffer path is not taken).
    const Int32 records = cast<i32>(min(span, max_bytes));
    ir::OpBuilder& ob = KernelBuilder::current("BufferGlobalTile").ops();
    rsrc_ = ob.buffer_rsrc(t.ptr().address(t.offset(row0, col0)), records.ir());
  }

  const Int32& rows_left() const { return tile_.rows_left(); }
  const Int32& cols_left() const { return tile_.cols_left(); }
  const GlobalTensor<T>& tensor() const { return tile_.tensor(); }
  bool rows_contiguous() const { return tile_.rows_contiguous(); }
  // The masked GlobalTile over the same elements (64-bit addresses).
  const GlobalTile<T, R, C>& masked() const { return tile_; }
  // A view for a tile known to be whole(): every load a buffer load, no masks, no branch.
  auto assume_whole() const;

  // Every element exists and lies within 32-bit offsets of the origin (uniform).
  Bool whole() const { return tile_.whole() && offsets_fit_; }
  Bool in_range(const Int32& r, const Int32& c) const { return tile_.in_range(r, c); }

  // Masked accesses: GlobalTile's (64-bit addresses, any tile).
  Scalar<T> load(const Int32& r, const Int32& c) const { return tile_.load(r, c); }
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    return tile_.template load_run<N>(r, c);
  }

  // For a tile known to be whole(): buffer loads at 32-bit offsets, no masks.
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    ir::OpBuilder& ob = KernelBuilder::current("BufferGlobalTile").ops();
    if (N == 1 || !rows_contiguous()) {
      std::array<Scalar<T>, N> e;
      for (int j = 0; j < N; ++j)
        e[j] = Scalar<T>(ob.buffer_load(ir_type<T>(), rsrc_, offset(r, c + j).ir()));
      return Vec<T, N>::from(e);
    }
    return Vec<T, N>(ob.buffer_load(Vec<T, N>::type(), rsrc_, offset(r, c).ir()));
  }

private:
  // The byte offset of element (r, c) from the origin (fits in 32 bits on the whole() path).
  Int32 offset(const Int32& r, const Int32& c) const {
    const auto u32_of = [](const Int64& x) { return cast<u32>(x); };
    const UInt32 elems =
        cast<u32>(r) * u32_of(tensor().row_stride()) + cast<u32>(c) * u32_of(tensor().col_stride());
    return cast<i32>(elems * UInt32(static_cast<std::uint32_t>(elem_bytes<T>())));
  }

  GlobalTile<T, R, C> tile_;
  ir::Value rsrc_;
  Bool offsets_fit_;
};

template <ElemType T, int R, int C>
auto BufferGlobalTile<T, R, C>::assume_whole() const {
  return WholeTile<BufferGlobalTile<T, R, C>>(*this);
}

// The registers of two TiledCopy loads (copy_a of tile_a, copy_b of tile_b) under ONE uniform
// branch: when both tiles are whole, all their buffer loads are issued back to back; otherwise
// both take the masked GlobalTile path (each still with its own whole-tile test). A GEMM's A and
// B copies then leave one block of loads in flight instead of two separately branched ones
// (LLVM put a full s_wait_loadcnt 0 between the two blocks, serialising them).
template <class CopyA, class TileA, class CopyB, class TileB>
auto load_both_whole_or_masked(const CopyA& copy_a, const TileA& tile_a, const CopyB& copy_b,
                               const TileB& tile_b) {
  return if_(
      tile_a.whole() && tile_b.whole(),
      [&] {
        return std::tuple{copy_a.load(tile_a.assume_whole()), copy_b.load(tile_b.assume_whole())};
      },
      [&] {
        return std::tuple{copy_a.load(tile_a.masked()), copy_b.load(tile_b.masked())};
      });
}

// The (tile_row, tile_col)-th R x C tile of `t`, as local_tile, with buffer-load interior loads.
template <int R, int C, ElemType T, class TR, class TC>
BufferGlobalTile<T, R, C> buffer_local_tile(const GlobalTensor<T>& t, const TR& tile_row,
                                            const TC& tile_col) {
  return BufferGlobalTile<T, R, C>(t, detail::as_index(tile_row) * Int64(R),
                                   detail::as_index(tile_col) * Int64(C));
}

} // namespace tw::dsl
