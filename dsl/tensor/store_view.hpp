#pragma once
// converting_store_view(tile) / transposing_store_view(tile): destinations for
// TiledCopy::store that change the data on its way into a tile (usually LDS):
//  - converting: runs of the source element type are converted element by element to the
//    tile's type (e.g. int8 weights -> f16 in a GEMM prologue) and stored as runs of at most
//    16 bytes;
//  - transposing: element (r, c) of the view is element (c, r) of the tile (an operand whose
//    global storage has m or n contiguous lands k-contiguous in LDS); runs become scalar
//    stores.
// `Src` is the element type the copy carries; the view's shape is what the copy sees.
#include <dsl/handles/vec.hpp>

namespace tw::dsl {

template <ElemType Src, class Tile, bool Transposed>
class StoreView {
public:
  using elem_type = Src;
  using tile_elem = typename Tile::elem_type;
  static constexpr int rows = Transposed ? Tile::cols : Tile::rows;
  static constexpr int cols = Transposed ? Tile::rows : Tile::cols;

  explicit StoreView(const Tile& t) : t_(t) {}

  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<Src, N>& v) const {
    if constexpr (Transposed) {
      for (int j = 0; j < N; ++j)
        t_.store(c + j, r, cast<tile_elem>(v[j]));
    } else if constexpr (std::same_as<Src, tile_elem>) {
      t_.template store_run<N>(r, c, v);
    } else {
      // Chunks of at most 16 bytes of the tile's type (one ds_store_b128 each).
      constexpr int chunk = std::min(N, std::max(1, 16 / elem_bytes<tile_elem>()));
      for (int base = 0; base < N; base += chunk) {
        std::array<Scalar<tile_elem>, chunk> e;
        for (int j = 0; j < chunk; ++j)
          e[j] = cast<tile_elem>(v[base + j]);
        t_.template store_run<chunk>(r, c + base, Vec<tile_elem, chunk>::from(e));
      }
    }
  }

private:
  Tile t_;
};

template <ElemType Src, class Tile>
StoreView<Src, Tile, false> converting_store_view(const Tile& t) {
  return StoreView<Src, Tile, false>(t);
}
template <ElemType Src, class Tile>
StoreView<Src, Tile, true> transposing_store_view(const Tile& t) {
  return StoreView<Src, Tile, true>(t);
}

// mapping_store_view<Src>(tile, fn): every element goes through fn(value, row, col), which
// returns a scalar of the tile's type (e.g. activation quantization with a per-row scale);
// results are stored as runs of at most 16 bytes.
template <ElemType Src, class Tile, class F>
class MappingStoreView {
public:
  using elem_type = Src;
  using tile_elem = typename Tile::elem_type;
  static constexpr int rows = Tile::rows, cols = Tile::cols;

  MappingStoreView(const Tile& t, F fn) : t_(t), fn_(std::move(fn)) {}

  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<Src, N>& v) const {
    constexpr int chunk = std::min(N, std::max(1, 16 / elem_bytes<tile_elem>()));
    for (int base = 0; base < N; base += chunk) {
      std::array<Scalar<tile_elem>, chunk> e;
      for (int j = 0; j < chunk; ++j)
        e[j] = fn_(v[base + j], r, c + base + j);
      t_.template store_run<chunk>(r, c + base, Vec<tile_elem, chunk>::from(e));
    }
  }

private:
  Tile t_;
  F fn_;
};

template <ElemType Src, class Tile, class F>
MappingStoreView<Src, Tile, F> mapping_store_view(const Tile& t, F fn) {
  return MappingStoreView<Src, Tile, F>(t, std::move(fn));
}

} // namespace tw::dsl
