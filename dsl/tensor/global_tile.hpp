#pragma once
// GlobalTile<T, R, C>: an R x C window (static extent) of a GlobalTensor, cut by local_tile.
// Elements past the tensor's real shape read as 0 and are never written, so a kernel needs no
// host-side padding for ragged M, N, K.
//   auto gA = local_tile<128, 32>(A, block_m, k_tile);   // rows 128*block_m.., cols 32*k_tile..
#include <numeric>

#include <dsl/tensor/buffer_window.hpp>
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

  // True when a 32-bit BufferWindow at the tile's origin reaches every element of the tile:
  // both strides non-negative and the bytes from element (0, 0) to (R - 1, C - 1) fewer than
  // 2^31. Uniform; only the strides take part, so a loop can hoist it.
  Bool window_reaches() const {
    const Int64 limit(std::int64_t{1} << 31);
    const Int64& rs = t_.row_stride();
    const Int64& cs = t_.col_stride();
    const Int64 last = (rs * Int64(R - 1) + cs * Int64(C - 1) + Int64(1)) * Int64(elem_bytes<T>());
    return (rs >= Int64(0)) && (rs < limit) && (cs >= Int64(0)) && (cs < limit) && (last < limit);
  }
  // The tile's BufferWindow (meant for when window_reaches(): num_records covers the tile's
  // span; otherwise it is 0 and every read returns 0).
  BufferWindow<T, R, C> window() const {
    const Int32 bytes(elem_bytes<T>());
    const Int32 rs = cast<i32>(t_.row_stride()) * bytes, cs = cast<i32>(t_.col_stride()) * bytes;
    const Int32 span = rs * Int32(R - 1) + cs * Int32(C - 1) + bytes;
    ir::OpBuilder& ops = KernelBuilder::current("GlobalTile::window").ops();
    // Out of reach, the window's bound is 0: every read returns 0 without touching memory.
    const Int32 records = select(window_reaches(), span, Int32(0));
    return BufferWindow<T, R, C>(ops.buffer_rsrc(origin_, records.ir()), rs, cs, t_.ptr().align(),
                                 rows_contiguous());
  }

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

// A walk over the tiles of one tensor along one axis (e.g. the K tiles of a GEMM workgroup)
// read through BufferWindows with loop-invariant masks: `ok` when every tile of the walk is in
// reach of its window and complete along the walk's axis, and no Vec-element run of a row
// straddles the edge across it; rows_limit / cols_limit bound the elements that exist in
// every tile (TiledCopy::load_window); when not `ok` a limit is 0, so reads through the walk
// return 0 without touching memory. Checked once before the loop, not per tile.
struct WindowWalk {
  Bool ok;
  Int32 rows_limit, cols_limit;
};
// The walk's axis is the tiles' columns (a k-contiguous operand: the K tiles of a row-major A).
template <int Vec, ElemType T, int R, int C>
WindowWalk window_walk_along_cols(const GlobalTile<T, R, C>& first,
                                  const GlobalTile<T, R, C>& last) {
  const Bool ok = (last.cols_left() == C) && first.window_reaches() && (first.rows_left() > 0);
  return {ok, select(ok, first.rows_left(), Int32(0)), Int32(C)};
}
// The walk's axis is the tiles' rows (an m/n-contiguous operand: its K tiles stacked by row).
template <int Vec, ElemType T, int R, int C>
WindowWalk window_walk_along_rows(const GlobalTile<T, R, C>& first,
                                  const GlobalTile<T, R, C>& last) {
  const Bool ok = (last.rows_left() == R) && first.window_reaches() && (first.cols_left() > 0) &&
                  (first.cols_left() % Vec == 0);
  return {ok, Int32(R), select(ok, first.cols_left(), Int32(0))};
}

} // namespace tw::dsl
