#pragma once
// local_partition: one thread's share of a tile under a thread layout (CuTe's
// local_partition with a (TR, TC) thread grid, columns fastest): thread t at (t / TC, t % TC)
// owns elements (tr + i * TR, tc + j * TC) for i < R / TR, j < C / TC.
//   auto mine = local_partition(gX, thread_layout<16, 16>, thread_id());   // a view
//   RegTensor<f32, 4, 2> x = mine.load();      // registers; x.map(...), x(i, j)
//   mine.store(x);                              // masked for global tiles
// RegTensor<T, R, C> holds R x C scalars per thread (a fragment in registers).
#include <array>

#include <dsl/builder/control.hpp>
#include <dsl/copy/tiled_copy.hpp>

namespace tw::dsl {

template <ElemType T, int R, int C>
class RegTensor {
public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;

  static RegTensor filled(const Scalar<T>& v) {
    RegTensor t;
    t.e_.fill(v);
    return t;
  }
  Scalar<T>& operator()(int i, int j) { return e_[index(i, j)]; }
  const Scalar<T>& operator()(int i, int j) const { return e_[index(i, j)]; }

  // f applied to every element (an element-wise map over registers).
  template <class F>
  RegTensor map(F&& f) const {
    static_assert(std::same_as<std::invoke_result_t<F&, Scalar<T>>, Scalar<T>>,
                  "RegTensor::map: the function must take and return a Scalar of the element type");
    RegTensor out;
    for (int k = 0; k < R * C; ++k)
      out.e_[k] = f(e_[k]);
    return out;
  }

  // Carried protocol (for_range / if_).
  void flatten_into(std::vector<ir::Value>& out) const {
    for (const Scalar<T>& s : e_)
      out.push_back(s.ir());
  }
  static RegTensor rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    RegTensor t;
    for (Scalar<T>& s : t.e_)
      s = Scalar<T>(vals[pos++]);
    return t;
  }
  static void append_types(std::vector<ir::Type>& out) {
    for (int k = 0; k < R * C; ++k)
      out.push_back(ir_type<T>());
  }

private:
  static int index(int i, int j) {
    if (i < 0 || i >= R || j < 0 || j >= C)
      throw std::out_of_range("RegTensor: element (" + std::to_string(i) + ", " +
                              std::to_string(j) + ") of a " + std::to_string(R) + " x " +
                              std::to_string(C) + " register tensor");
    return i * C + j;
  }
  std::array<Scalar<T>, R * C> e_{};
};

// A thread's elements of a tile: a view, nothing is loaded until load().
template <class Tile, int TR, int TC>
class Partition {
  static_assert(Tile::rows % TR == 0 && Tile::cols % TC == 0,
                "local_partition: the tile's rows and columns must divide by the thread "
                "layout's (the tile does not divide among the threads)");

public:
  using elem_type = typename Tile::elem_type;
  static constexpr int rows = Tile::rows / TR, cols = Tile::cols / TC;

  Partition(const Tile& tile, const Int32& thread_row, const Int32& thread_col)
      : tile_(tile), tr_(thread_row), tc_(thread_col) {}

  // Tile coordinates of this thread's element (i, j).
  Int32 tile_row(int i) const { return tr_ + i * TR; }
  Int32 tile_col(int j) const { return tc_ + j * TC; }
  Scalar<elem_type> load(int i, int j) const { return tile_.load(tile_row(i), tile_col(j)); }
  void store(int i, int j, const Scalar<elem_type>& v) const {
    tile_.store(tile_row(i), tile_col(j), v);
  }
  RegTensor<elem_type, rows, cols> load() const {
    RegTensor<elem_type, rows, cols> r;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        r(i, j) = load(i, j);
    return r;
  }
  void store(const RegTensor<elem_type, rows, cols>& r) const {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        store(i, j, r(i, j));
  }

private:
  Tile tile_;
  Int32 tr_, tc_;
};

template <class Tile, int TR, int TC, class I>
Partition<Tile, TR, TC> local_partition(const Tile& tile, ThreadLayout<TR, TC>, const I& thread) {
  const UInt32 t = cast<u32>(Int32(thread)); // unsigned: divisions by powers of two are shifts
  return Partition<Tile, TR, TC>(tile, cast<i32>(t / TC), cast<i32>(t % TC));
}

} // namespace tw::dsl
