#pragma once
// GlobalTile<T, R, C>: an R x C window (static extent) of a GlobalTensor, cut by local_tile.
// Elements past the tensor's real shape read as 0 and are never written, so a kernel needs no
// host-side padding for ragged M, N, K.
//   auto gA = local_tile<128, 32>(A, block_m, k_tile);   // rows 128*block_m.., cols 32*k_tile..
#include <numeric>

#include <dsl/tensor/global_tensor.hpp>

namespace tw::dsl {

template <ElemType T, int R, int C>
class GlobalTile {
  static_assert(R > 0 && C > 0, "local_tile: a tile has at least one row and one column");

public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  GlobalTile(const GlobalTensor<T>& t, const Int64& row0, const Int64& col0)
      : t_(t), origin_(t.ptr().address(t.offset(row0, col0))),
        rows_left_(cast<i32>(min(t.rows() - row0, Int64(R)))),
        cols_left_(cast<i32>(min(t.cols() - col0, Int64(C)))) {}

  // Elements (r, c) with r < rows_left and c < cols_left exist (the rest is past the tensor).
  const Int32& rows_left() const { return rows_left_; }
  const Int32& cols_left() const { return cols_left_; }
  const GlobalTensor<T>& tensor() const { return t_; }
  bool rows_contiguous() const { return t_.rows_contiguous(); }

  // True when every element of the tile exists (an interior tile): uniform across the
  // workgroup, so a copy can branch once to unmasked loads.
  Bool whole() const { return (rows_left_ == R) && (cols_left_ == C); }

  Bool in_range(const Int32& r, const Int32& c) const {
    return (r < rows_left_) && (c < cols_left_);
  }
  Scalar<T> load(const Int32& r, const Int32& c) const {
    return here().load(t_.offset(r, c), in_range(r, c));
  }
  void store(const Int32& r, const Int32& c, const Scalar<T>& v) const {
    here().store(t_.offset(r, c), v, in_range(r, c));
  }

  // N elements (r, c .. c + N - 1) of one row; `c` must be a multiple of N. When the whole run
  // exists this is one N-element load (128 bits for 8 x f16); at the edge each element is
  // loaded only if it exists.
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    if (N == 1 || !rows_contiguous()) {
      std::array<Scalar<T>, N> e;
      for (int j = 0; j < N; ++j)
        e[j] = load(r, c + j);
      return Vec<T, N>::from(e);
    }
    const Bool whole = (r < rows_left_) && (c + N <= cols_left_);
    return if_(
        whole, [&] { return load_run_unmasked<N>(r, c); },
        [&] {
          std::array<Scalar<T>, N> e;
          for (int j = 0; j < N; ++j)
            e[j] = load(r, c + j);
          return Vec<T, N>::from(e);
        });
  }
  // As load_run, for a tile known to be whole(): no masks, no branches.
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    if (N == 1 || !rows_contiguous()) {
      std::array<Scalar<T>, N> e;
      for (int j = 0; j < N; ++j)
        e[j] = here().load(t_.offset(r, c + j));
      return Vec<T, N>::from(e);
    }
    return here().template load_vec<N>(t_.offset(r, c), run_align<N>());
  }
  // As load / store / store_run, for a tile known to be whole() (dsl/tensor/whole_tile.hpp).
  Scalar<T> load_unmasked(const Int32& r, const Int32& c) const {
    return here().load(t_.offset(r, c));
  }
  void store_unmasked(const Int32& r, const Int32& c, const Scalar<T>& v) const {
    here().store(t_.offset(r, c), v);
  }
  template <int N>
  void store_run_unmasked(const Int32& r, const Int32& c, const Vec<T, N>& v) const {
    if (N == 1 || !rows_contiguous()) {
      for (int j = 0; j < N; ++j)
        store_unmasked(r, c + j, v[j]);
      return;
    }
    here().template store_vec<N>(t_.offset(r, c), v, run_align<N>());
  }
  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<T, N>& v) const {
    if (N == 1 || !rows_contiguous()) {
      for (int j = 0; j < N; ++j)
        store(r, c + j, v[j]);
      return;
    }
    const Bool whole = (r < rows_left_) && (c + N <= cols_left_);
    if_(
        whole, [&] { here().template store_vec<N>(t_.offset(r, c), v, run_align<N>()); },
        [&] {
          for (int j = 0; j < N; ++j)
            store(r, c + j, v[j]);
        });
  }

private:
  GlobalPtr<T> here() const { return GlobalPtr<T>(origin_, elem_bytes<T>()); }
  // Byte alignment of a run: the tensor's promise (base and every row start aligned to
  // ptr().align()) and the run's own size, whichever is smaller.
  template <int N>
  int run_align() const {
    return std::gcd(t_.ptr().align(), N * elem_bytes<T>());
  }

  GlobalTensor<T> t_;
  ir::Value origin_;
  Int32 rows_left_, cols_left_;
};

// The (tile_row, tile_col)-th R x C tile of `t`: rows [R * tile_row, R * tile_row + R), etc.
template <int R, int C, ElemType T, class TR, class TC>
GlobalTile<T, R, C> local_tile(const GlobalTensor<T>& t, const TR& tile_row, const TC& tile_col) {
  return GlobalTile<T, R, C>(t, detail::as_index(tile_row) * Int64(R),
                             detail::as_index(tile_col) * Int64(C));
}

} // namespace tw::dsl
