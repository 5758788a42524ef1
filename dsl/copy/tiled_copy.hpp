#pragma once
// TiledCopy = copy atom x thread layout. TR x TC threads move an R x C tile: thread t sits at
// (t / TC, t % TC) of the thread layout (TC, TR):(1, TC) and moves `vec` adjacent elements of a
// row per access (vec = the atom's width / element bits: 8 x f16 for a 128-bit atom), repeating
// over the tile in steps of TR rows and TC * vec columns.
//   constexpr auto copy_a = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<32,
//   4>); copy(copy_a, gA, sA);                 // or: auto r = copy_a.load(gA); ... copy_a.store(r,
//   sA);
// Global sources are masked (elements past the tensor read 0), global destinations too. A
// global source tile that lies wholly inside its tensor (every interior tile of a GEMM) takes
// one uniform branch to straight unmasked loads; only edge tiles pay for per-run masks.
#include <array>

#include <atoms/copy/copy_atom.hpp>
#include <layouts/dyn_layout.hpp>

#include <dsl/builder/control.hpp>
#include <dsl/builder/ids.hpp>
#include <dsl/handles/vec.hpp>

namespace tw::dsl {

template <int TR, int TC>
struct ThreadLayout {
  static_assert(TR >= 1 && TC >= 1 && TR * TC <= 1024,
                "thread_layout: 1 to 1024 threads (a gfx12 workgroup's maximum)");
  static constexpr int rows = TR, cols = TC;
  // Thread index -> (column, row) position, columns fastest.
  static constexpr DynLayout layout() { return make_layout(dyn_tuple({dyn_int(TC), dyn_int(TR)})); }
};
template <int TR, int TC>
inline constexpr ThreadLayout<TR, TC> thread_layout{};

template <class Atom>
concept CopyAtomType = requires {
  { Atom::width_bits } -> std::convertible_to<int>;
};

// What one thread holds between TiledCopy::load and TiledCopy::store.
template <ElemType T, int Vec_, int Count>
struct CopyFragment {
  std::array<Vec<T, Vec_>, Count> parts{};

  // Carried protocol (an if_ may yield a fragment).
  void flatten_into(std::vector<ir::Value>& out) const {
    for (const auto& p : parts)
      p.flatten_into(out);
  }
  static void append_types(std::vector<ir::Type>& out) {
    for (int i = 0; i < Count; ++i)
      Vec<T, Vec_>::append_types(out);
  }
  static CopyFragment rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    CopyFragment f;
    for (auto& p : f.parts)
      p = Vec<T, Vec_>::rebuild(vals, pos);
    return f;
  }
};

// A source tile that can say at run time whether it lies wholly inside its tensor.
template <class Tile>
concept WholeTestable = requires(const Tile& t, const Int32& i) {
  { t.whole() } -> std::same_as<Bool>;
  t.template load_run_unmasked<1>(i, i);
};

template <ElemType T, CopyAtomType Atom, int TR, int TC>
struct TiledCopy : ops::adl_anchor {
  static constexpr int vec = Atom::width_bits / T::bits;
  static_assert(vec >= 1 && Atom::width_bits % T::bits == 0,
                "make_tiled_copy: the copy atom's width is not a whole number of elements");
  static constexpr int threads = TR * TC;
  static constexpr int rows_per_pass = TR, cols_per_pass = TC * vec;

  template <class Tile>
  static constexpr void check_tile() {
    static_assert(Tile::rows % rows_per_pass == 0,
                  "copy: the tile's rows do not divide by the thread layout's rows (the tile "
                  "does not divide into the TiledCopy)");
    static_assert(Tile::cols % cols_per_pass == 0,
                  "copy: the tile's columns do not divide by thread layout columns x elements "
                  "per access (the tile does not divide into the TiledCopy)");
    static_assert(std::same_as<typename Tile::elem_type, T>,
                  "copy: the tile's element type is not the TiledCopy's element type");
  }
  template <class Tile>
  static constexpr int passes() {
    return (Tile::rows / rows_per_pass) * (Tile::cols / cols_per_pass);
  }

  // This thread's (row, column-group) in the thread layout.
  static std::pair<Int32, Int32> thread_coord() {
    KernelBuilder& kb = KernelBuilder::current("TiledCopy");
    if (kb.threads() != threads)
      throw std::logic_error("TiledCopy: the kernel has " + std::to_string(kb.threads()) +
                             " threads but the thread layout has " + std::to_string(threads));
    const UInt32 t = cast<u32>(thread_id()); // unsigned: divisions by powers of two are shifts
    return {cast<i32>(t / TC), cast<i32>(t % TC)};
  }

  // Global (or LDS) tile -> this thread's registers.
  template <class Tile>
  CopyFragment<T, vec, passes<Tile>()> load(const Tile& src) const {
    check_tile<Tile>();
    const auto [tr, tc] = thread_coord();
    const auto load_all = [&](auto load_run) {
      CopyFragment<T, vec, passes<Tile>()> f;
      int p = 0;
      for (int i = 0; i < Tile::rows / rows_per_pass; ++i)
        for (int j = 0; j < Tile::cols / cols_per_pass; ++j)
          f.parts[p++] = load_run(tr + i * TR, (tc + j * TC) * vec);
      return f;
    };
    const auto masked = [&] {
      return load_all(
          [&](const Int32& r, const Int32& c) { return src.template load_run<vec>(r, c); });
    };
    if constexpr (WholeTestable<Tile>)
      return if_(
          src.whole(),
          [&] {
            return load_all([&](const Int32& r, const Int32& c) {
              return src.template load_run_unmasked<vec>(r, c);
            });
          },
          masked);
    else
      return masked();
  }
  // This thread's registers -> tile.
  template <class Tile, int Count>
  void store(const CopyFragment<T, vec, Count>& f, const Tile& dst) const {
    check_tile<Tile>();
    static_assert(Count == passes<Tile>(),
                  "copy: the registers were loaded for a tile of another shape");
    const auto [tr, tc] = thread_coord();
    if constexpr (requires(const Tile& t, ir::Value a) {
                    t.constant_steps();
                    t.template store_run_at<vec>(a, 0, 0, f.parts[0]);
                  }) {
      // An unswizzled LDS tile: the thread's address once, each pass a constant step from it
      // (ds_store immediate offsets; LdsTile::store_run_at).
      if (dst.constant_steps()) {
        const ir::Value at = dst.address(tr, tc * vec);
        int p = 0;
        for (int i = 0; i < Tile::rows / rows_per_pass; ++i)
          for (int j = 0; j < Tile::cols / cols_per_pass; ++j)
            dst.template store_run_at<vec>(at, i * TR, j * TC * vec, f.parts[p++]);
        return;
      }
    }
    int p = 0;
    for (int i = 0; i < Tile::rows / rows_per_pass; ++i)
      for (int j = 0; j < Tile::cols / cols_per_pass; ++j)
        dst.template store_run<vec>(tr + i * TR, (tc + j * TC) * vec, f.parts[p++]);
  }
};

template <ElemType T, CopyAtomType Atom, int TR, int TC>
constexpr TiledCopy<T, Atom, TR, TC> make_tiled_copy(Atom, ThreadLayout<TR, TC>) {
  return {};
}

namespace ops {
// src -> dst through registers (all loads are issued before the stores).
template <ElemType T, class Atom, int TR, int TC, class Src, class Dst>
void copy(const TiledCopy<T, Atom, TR, TC>& tc, const Src& src, const Dst& dst) {
  static_assert(Src::rows == Dst::rows && Src::cols == Dst::cols,
                "copy: the source and destination tiles have different shapes");
  tc.store(tc.load(src), dst);
}
} // namespace ops

} // namespace tw::dsl
