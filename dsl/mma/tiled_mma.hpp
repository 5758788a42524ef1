#pragma once
// TiledMMA = atom x wave layout x repeat. WM x WN waves each compute an (RM * M) x (RN * N)
// block of C with RM x RN atoms per k step; the workgroup covers tile_m x tile_n.
//   constexpr auto mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<2, 2>,
//                                       repeat<4, 4>);         // 128 x 128 with 4 waves
//   auto acc = mma.make_accumulator(0.0f);
//   gemm(mma, sA, sB, acc);      // sA: tile_m x BK tile, sB: tile_n x BK (B stored n-major)
//   mma.store(acc, gC);          // masked for global tiles
// Wave w works on the block at coordinate (w % WM, w / WM) of the wave layout (WM, WN):(1, WM).
#include <layouts/dyn_layout.hpp>

#include <dsl/builder/ids.hpp>
#include <dsl/mma/fragment.hpp>

namespace tw::dsl {

template <int WM, int WN>
struct WaveLayout {
  static_assert(WM >= 1 && WN >= 1 && WM * WN <= 32,
                "wave_layout: 1 to 32 waves (a gfx12 workgroup has at most 1024 threads)");
  static constexpr int m = WM, n = WN;
  // The wave grid as a tw layout: wave index -> position, first mode fastest.
  static constexpr DynLayout layout() { return make_layout(dyn_tuple({dyn_int(WM), dyn_int(WN)})); }
};
template <int RM, int RN>
struct Repeat {
  static_assert(RM >= 1 && RN >= 1, "repeat: at least one atom per wave in each direction");
  static constexpr int m = RM, n = RN;
};
template <int WM, int WN>
inline constexpr WaveLayout<WM, WN> wave_layout{};
template <int RM, int RN>
inline constexpr Repeat<RM, RN> repeat{};

template <MmaAtomType Atom, int WM, int WN, int RM, int RN>
struct TiledMma : ops::adl_anchor {
  using atom = Atom;
  using lanes = MmaAtomLanes<Atom>;
  static constexpr int waves_m = WM, waves_n = WN, repeat_m = RM, repeat_n = RN;
  static constexpr int waves = WM * WN, threads = 32 * waves;
  static constexpr int wave_tile_m = RM * lanes::M, wave_tile_n = RN * lanes::N;
  static constexpr int tile_m = WM * wave_tile_m, tile_n = WN * wave_tile_n, tile_k = lanes::K;
  // One k step in operand tile columns: tile_k, or tile_k / 2 bytes for packed int4 atoms.
  static constexpr int tile_k_storage = lanes::k_storage;

  using AFrag = MmaFragment<Atom, MmaOperand::A, RM, 1>; // one k step
  using BFrag = MmaFragment<Atom, MmaOperand::B, 1, RN>;
  using CFrag = MmaFragment<Atom, MmaOperand::C, RM, RN>;
  using a_elem = typename lanes::a_elem;
  using b_elem = typename lanes::b_elem;
  using c_elem = typename lanes::c_elem;

  CFrag make_accumulator(typename Scalar<c_elem>::host_type init) const {
    return CFrag::filled(Scalar<c_elem>(init));
  }

  // This wave's (m, n) position in the wave layout.
  static std::pair<Int32, Int32> wave_coord() {
    KernelBuilder& kb = KernelBuilder::current("TiledMma");
    if (kb.threads() != threads)
      throw std::logic_error("TiledMMA: the kernel has " + std::to_string(kb.threads()) +
                             " threads but this TiledMMA (" + std::to_string(WM) + " x " +
                             std::to_string(WN) + " waves) needs " + std::to_string(threads));
    const UInt32 w = cast<u32>(wave_id()); // unsigned: divisions by powers of two are shifts
    return {cast<i32>(w % WM), cast<i32>(w / WM)};
  }

  // A operand of k step `ks` from an A tile (tile_m rows of m, k along columns).
  template <class Tile>
  AFrag load_a(const Tile& a, int ks) const {
    check_k_tile<Tile>("A");
    static_assert(Tile::rows == tile_m,
                  "TiledMMA::load_a: the A tile must have tile_m = waves_m x repeat_m x M rows");
    static_assert(std::same_as<typename Tile::elem_type, a_elem>,
                  "TiledMMA::load_a: the A tile's element type is not the atom's A type");
    const auto [wm, wn] = wave_coord();
    (void)wn;
    AFrag f;
    for (int i = 0; i < RM; ++i)
      f.at(i, 0) = load_operand<Atom, MmaOperand::A>(a, wm * wave_tile_m + i * lanes::M,
                                                     Int32(ks * lanes::k_storage), false);
    return f;
  }
  // B operand of k step `ks` from a tile that holds B transposed: tile_n rows of n, k along
  // columns (a column-major K x N matrix, or the n-major LDS copy of one).
  template <class Tile>
  BFrag load_b(const Tile& bt, int ks) const {
    check_k_tile<Tile>("B");
    static_assert(Tile::rows == tile_n,
                  "TiledMMA::load_b: the B tile (n-major) must have tile_n = waves_n x repeat_n "
                  "x N rows");
    static_assert(std::same_as<typename Tile::elem_type, b_elem>,
                  "TiledMMA::load_b: the B tile's element type is not the atom's B type");
    const auto [wm, wn] = wave_coord();
    (void)wm;
    BFrag f;
    for (int j = 0; j < RN; ++j)
      f.at(0, j) = load_operand<Atom, MmaOperand::B>(bt, Int32(ks * lanes::k_storage),
                                                     wn * wave_tile_n + j * lanes::N, true);
    return f;
  }

  // Writes the accumulator to a tile_m x tile_n tile (converted to the tile's element type).
  template <class Tile>
  void store(const CFrag& acc, const Tile& c) const {
    static_assert(Tile::rows == tile_m && Tile::cols == tile_n,
                  "TiledMMA::store: the C tile must be tile_m x tile_n");
    const auto [wm, wn] = wave_coord();
    for (int i = 0; i < RM; ++i)
      for (int j = 0; j < RN; ++j)
        store_operand<Atom, MmaOperand::C>(c, acc.at(i, j), wm * wave_tile_m + i * lanes::M,
                                           wn * wave_tile_n + j * lanes::N);
  }

  // Writes the accumulator transposed to a tile_n x tile_m tile (C^T: tile (n, m) = C(m, n)).
  // The D layout gives each lane consecutive rows of one column, so C^T leaves in vector runs
  // (e.g. O^T of attention stored as O, 8 x bf16 per 128-bit store).
  // `convert`: how a value becomes the tile's element type (store_operand; cast by default).
  template <class Tile, class Convert = CastConvert>
  void store_transposed(const CFrag& acc, const Tile& ct, const Convert& convert = {}) const {
    static_assert(Tile::rows == tile_n && Tile::cols == tile_m,
                  "TiledMMA::store_transposed: the tile must be tile_n x tile_m (C transposed)");
    const auto [wm, wn] = wave_coord();
    for (int i = 0; i < RM; ++i)
      for (int j = 0; j < RN; ++j)
        store_operand<Atom, MmaOperand::C>(ct, acc.at(i, j), wm * wave_tile_m + i * lanes::M,
                                           wn * wave_tile_n + j * lanes::N, true, convert);
  }

private:
  template <class Tile>
  static constexpr void check_k_tile(const char*) {
    static_assert(Tile::cols % lanes::k_storage == 0,
                  "TiledMMA: the K extent of the operand tile is not a multiple of the atom's K "
                  "(16 for f16 / bf16 WMMA; 16 bytes = 32 nibbles for the 16x16x32 iu4 WMMA): "
                  "the tile does not divide into atoms");
  }
};

template <MmaAtomType Atom, int WM, int WN, int RM = 1, int RN = 1>
constexpr TiledMma<Atom, WM, WN, RM, RN> make_tiled_mma(Atom, WaveLayout<WM, WN>,
                                                        Repeat<RM, RN> = {}) {
  return {};
}

template <class T>
struct is_tiled_mma : std::false_type {};
template <class A, int WM, int WN, int RM, int RN>
struct is_tiled_mma<TiledMma<A, WM, WN, RM, RN>> : std::true_type {};

template <class T>
concept TiledMmaType = is_tiled_mma<std::remove_cvref_t<T>>::value;
template <class T>
concept MmaFragmentType = requires {
  T::operand;
  T::tile_rows;
  typename T::atom;
};
template <class T>
concept TileView = requires {
  T::rows;
  T::cols;
  typename T::elem_type;
};

namespace detail {
// The IR value a WMMA takes for an A / B fragment tile: packed int4 bytes are reinterpreted as
// the atom's packed int4 vector (same registers).
template <class Lanes, class V>
ir::Value mma_input(const V& x) {
  if constexpr (Lanes::packed_int4)
    return KernelBuilder::current("gemm").ops().bitcast(ir::Type::packed_i4(2 * V::size), x.ir());
  else
    return x.ir();
}
// One WMMA of atom tile (i, j): c + A tile i of `a` * B tile j of `b` (the IR value of the new C).
template <class TM, class FA, class FB>
ir::Value wmma_tile(const FA& a, const FB& b, int i, int j, ir::Value c,
                    const ir::MmaMods& mods = {}) {
  using Lanes = typename std::remove_cvref_t<TM>::lanes;
  return KernelBuilder::current("gemm").ops().wmma(Lanes::mnemonic, mma_input<Lanes>(a.at(i, 0)),
                                                   mma_input<Lanes>(b.at(0, j)), c, mods);
}
} // namespace detail

namespace ops {
// C += A * B on register fragments: RM x RN WMMA issues.
template <TiledMmaType TM, MmaFragmentType FA, MmaFragmentType FB, MmaFragmentType FC>
void gemm(const TM&, const FA& a, const FB& b, FC& c) {
  static_assert(std::same_as<FA, typename TM::AFrag>,
                "gemm: the A fragment does not fit the TiledMMA: it must hold the same atom's A "
                "operand for repeat_m x 1 atom tiles (make it with tiled_mma.load_a)");
  static_assert(std::same_as<FB, typename TM::BFrag>,
                "gemm: the B fragment does not fit the TiledMMA: it must hold the same atom's B "
                "operand for 1 x repeat_n atom tiles (make it with tiled_mma.load_b)");
  static_assert(std::same_as<FC, typename TM::CFrag>,
                "gemm: the accumulator does not fit the TiledMMA: it must be the same atom's C "
                "operand for repeat_m x repeat_n atom tiles (make it with "
                "tiled_mma.make_accumulator)");
  for (int i = 0; i < TM::repeat_m; ++i)
    for (int j = 0; j < TM::repeat_n; ++j)
      c.at(i, j) = typename FC::vec_type(detail::wmma_tile<TM>(a, b, i, j, c.at(i, j).ir()));
}

// store(mma, acc, tile): the accumulator into a tile_m x tile_n tile (same as mma.store).
template <TiledMmaType TM, MmaFragmentType FC, TileView Tile>
void store(const TM& mma, const FC& acc, const Tile& tile) {
  static_assert(std::same_as<FC, typename TM::CFrag>,
                "store: the accumulator does not fit the TiledMMA (another atom or repeat)");
  mma.store(acc, tile);
}

// C += A * B over whole tiles: A is tile_m x BK, B (n-major) tile_n x BK; BK / K k steps.
template <TiledMmaType TM, TileView TA, TileView TB, MmaFragmentType FC>
void gemm(const TM& mma, const TA& a, const TB& bt, FC& c) {
  static_assert(TA::cols == TB::cols,
                "gemm: the A and B tiles have different K extents (A is tile_m x BK, B is "
                "tile_n x BK)");
  static_assert(TA::cols % TM::tile_k_storage == 0,
                "gemm: the tiles' K extent is not a multiple of the atom's K");
  for (int ks = 0; ks < TA::cols / TM::tile_k_storage; ++ks) {
    const auto fa = mma.load_a(a, ks);
    const auto fb = mma.load_b(bt, ks);
    gemm(mma, fa, fb, c);
  }
}
} // namespace ops

} // namespace tw::dsl
