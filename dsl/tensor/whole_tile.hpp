#pragma once
// assume_whole(tile): a GlobalTile the caller knows to be whole() (every element exists), read
// and written with no masks and no per-run branches. One uniform branch per tile then gives
// the interior tiles unmasked code and leaves the masked code to the edge tiles:
//   if_(tile.whole(), [&] { mma.store_transposed(acc, assume_whole(tile)); },
//                     [&] { mma.store_transposed(acc, tile); });
// Using it on a tile that is not whole reads or writes past the tensor.
#include <dsl/tensor/global_tile.hpp>

namespace tw::dsl {

template <ElemType T, int R, int C>
class WholeGlobalTile {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  explicit WholeGlobalTile(const GlobalTile<T, R, C>& t) : t_(t) {}

  bool rows_contiguous() const { return t_.rows_contiguous(); }
  Int32 rows_left() const { return Int32(R); }
  Int32 cols_left() const { return Int32(C); }
  Bool whole() const { return Bool(true); }
  Bool in_range(const Int32&, const Int32&) const { return Bool(true); }

  Scalar<T> load(const Int32& r, const Int32& c) const { return t_.load_unmasked(r, c); }
  void store(const Int32& r, const Int32& c, const Scalar<T>& v) const {
    t_.store_unmasked(r, c, v);
  }
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    return t_.template load_run_unmasked<N>(r, c);
  }
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    return t_.template load_run_unmasked<N>(r, c);
  }
  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<T, N>& v) const {
    t_.template store_run_unmasked<N>(r, c, v);
  }

private:
  GlobalTile<T, R, C> t_;
};

template <ElemType T, int R, int C>
WholeGlobalTile<T, R, C> assume_whole(const GlobalTile<T, R, C>& t) {
  return WholeGlobalTile<T, R, C>(t);
}

} // namespace tw::dsl
