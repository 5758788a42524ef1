#pragma once
// SaddrGlobalTile<T, R, C>: a GlobalTile (same masked edge behaviour) whose interior loads
// address a wave-uniform 64-bit base, the tile's origin, plus a 32-bit unsigned per-lane byte
// offset. The backends then select the SGPR-base form of the global load (global_load_b128
// v, v_off, s[base:base+1]): moving the tile along K changes only the scalar base (SALU adds),
// and the per-lane offsets are loop-invariant, so a GEMM K loop needs no 64-bit VALU address
// arithmetic (v_add_co / v_add_co_ci) for its operand copies.
//   const auto gA = saddr_local_tile<128, 32>(A, block_m, k_tile);  // like local_tile
//   auto regs = copy_a.load(gA);   // whole tiles: one uniform branch to the saddr loads
// The offsets are 32-bit, so whole() also asks that every element of the tile lies within
// 2^32 - 1 bytes of its origin (non-negative strides and (R - 1) * row_stride + (C - 1) *
// col_stride + 1 elements fit); a tile that does not (a leading stride of gigabytes) takes the
// masked 64-bit path of GlobalTile, which is correct for any tile.
#include <dsl/tensor/global_tile.hpp>

#include <cstdint>
#include <numeric>

namespace tw::dsl {

template <ElemType T, int R, int C>
class SaddrGlobalTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  SaddrGlobalTile(const GlobalTensor<T>& t, const Int64& row0, const Int64& col0)
      : tile_(t, row0, col0), origin_(t.ptr().address(t.offset(row0, col0))) {
    const Int64 zero(0);
    const Int64 last = Int64(R - 1) * t.row_stride() + Int64(C - 1) * t.col_stride() + Int64(1);
    offsets_fit_ = t.row_stride() >= zero && t.col_stride() >= zero &&
                   last * Int64(elem_bytes<T>()) <= Int64(std::int64_t{0xFFFFFFFF});
  }

  const Int32& rows_left() const { return tile_.rows_left(); }
  const Int32& cols_left() const { return tile_.cols_left(); }
  const GlobalTensor<T>& tensor() const { return tile_.tensor(); }
  bool rows_contiguous() const { return tile_.rows_contiguous(); }
  // The masked GlobalTile over the same elements (64-bit addresses).
  const GlobalTile<T, R, C>& masked() const { return tile_; }

  // Every element exists and lies within 32-bit offsets of the origin (uniform).
  Bool whole() const { return tile_.whole() && offsets_fit_; }
  Bool in_range(const Int32& r, const Int32& c) const { return tile_.in_range(r, c); }

  // Masked accesses: GlobalTile's (64-bit addresses, any tile).
  Scalar<T> load(const Int32& r, const Int32& c) const { return tile_.load(r, c); }
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    return tile_.template load_run<N>(r, c);
  }

  // For a tile known to be whole(): base + 32-bit offset, no masks.
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    if (N == 1 || !rows_contiguous()) {
      std::array<Scalar<T>, N> e;
      for (int j = 0; j < N; ++j)
        e[j] = at(r, c + j, elem_bytes<T>()).load(Int64(0));
      return Vec<T, N>::from(e);
    }
    const int align = std::gcd(tensor().ptr().align(), N * elem_bytes<T>());
    return at(r, c, align).template load_vec<N>(Int64(0), align);
  }

private:
  // The pointer to element (r, c): origin + zext(32-bit byte offset), the SGPR-base form.
  GlobalPtr<T> at(const Int32& r, const Int32& c, int align) const {
    const auto u32_of = [](const Int64& x) { return cast<u32>(x); };
    const UInt32 elems = cast<u32>(r) * u32_of(tensor().row_stride()) +
                         cast<u32>(c) * u32_of(tensor().col_stride());
    const UInt32 bytes = elems * UInt32(static_cast<std::uint32_t>(elem_bytes<T>()));
    ir::OpBuilder& ob = KernelBuilder::current("SaddrGlobalTile").ops();
    return GlobalPtr<T>(ob.ptr_add(origin_, cast<i64>(bytes).ir()), align);
  }

  GlobalTile<T, R, C> tile_;
  ir::Value origin_;
  Bool offsets_fit_;
};

// The (tile_row, tile_col)-th R x C tile of `t`, as local_tile, with SGPR-base interior loads.
template <int R, int C, ElemType T, class TR, class TC>
SaddrGlobalTile<T, R, C> saddr_local_tile(const GlobalTensor<T>& t, const TR& tile_row,
                                          const TC& tile_col) {
  return SaddrGlobalTile<T, R, C>(t, detail::as_index(tile_row) * Int64(R),
                                  detail::as_index(tile_col) * Int64(C));
}

} // namespace tw::dsl
