#pragma once
// assume_whole(tile): a GlobalTile the caller knows to be whole() (every element exists), read
// and written with no masks and no per-run branches. One uniform branch per tile then gives
// the interior tiles unmasked code and leaves the masked code to the edge tiles:
//   if_(tile.whole(), [&] { mma.store_transposed(acc, assume_whole(tile)); },
//                     [&] { mma.store_transposed(acc, tile); });
// Using it on a tile that is not whole reads or writes past the tensor.
#include <dsl/tensor/global_tile.hpp>

namespace tw::dsl {

// The whole view of any tile with unmasked accesses (GlobalTile, BufferGlobalTile): loads go
// to the tile's load_run_unmasked; element loads and the stores exist where the tile has them.
template <class Tile>
class WholeTile {
  using T = typename Tile::elem_type;

public:
  using elem_type = T;
  static constexpr int rows = Tile::rows, cols = Tile::cols;
  static constexpr bool is_lds = false;

  explicit WholeTile(const Tile& t) : t_(t) {}

  bool rows_contiguous() const { return t_.rows_contiguous(); }
  Int32 rows_left() const { return Int32(rows); }
  Int32 cols_left() const { return Int32(cols); }
  Bool whole() const { return Bool(true); }
  Bool in_range(const Int32&, const Int32&) const { return Bool(true); }

  Scalar<T> load(const Int32& r, const Int32& c) const requires
      requires(const Tile& t, const Int32& i) {
    t.load_unmasked(i, i);
  }
  { return t_.load_unmasked(r, c); }
  void store(const Int32& r, const Int32& c, const Scalar<T>& v) const requires
      requires(const Tile& t, const Int32& i, const Scalar<T>& x) {
    t.store_unmasked(i, i, x);
  }
  { t_.store_unmasked(r, c, v); }
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    return t_.template load_run_unmasked<N>(r, c);
  }
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    return t_.template load_run_unmasked<N>(r, c);
  }
  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<T, N>& v) const requires
      requires(const Tile& t, const Int32& i, const Vec<T, N>& x) {
    t.template store_run_unmasked<N>(i, i, x);
  }
  { t_.template store_run_unmasked<N>(r, c, v); }

private:
  Tile t_;
};

template <ElemType T, int R, int C>
using WholeGlobalTile = WholeTile<GlobalTile<T, R, C>>;

template <ElemType T, int R, int C>
WholeGlobalTile<T, R, C> assume_whole(const GlobalTile<T, R, C>& t) {
  return WholeGlobalTile<T, R, C>(t);
}

} // namespace tw::dsl
