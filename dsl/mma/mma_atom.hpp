#pragma once
// A gfx12 matrix atom as the DSL sees it: one WMMA instruction of the atoms' table, plus the
// per-lane (row, col) of every register value of its A, B and C/D operands split into a lane
// part and a value part. The split is derived from the atom's TvMap (never hand-written), and
// checked exhaustively at compile time.
#include <array>
#include <string_view>

#include <atoms/mma/gfx12.hpp>
#include <dsl/types/elem.hpp>

namespace tw::dsl {

enum class MmaOperand { A, B, C };

// Where the values of one operand sit for one lane:
//   (row, col) of value v of lane l = (lane_row(l) + value_row[v], lane_col(l) + value_col[v])
// lane_row(l) = sum over thread modes m of ((l / m.divisor) % m.extent) * m.row_step, same for col.
struct LaneMap {
  struct Mode {
    int extent = 1, divisor = 1, row_step = 0, col_step = 0;
  };
  int rows = 0, cols = 0; // the operand matrix the atom covers
  int values = 0;         // values per lane
  int elem_bits = 32;
  std::array<Mode, 2> thread{};
  std::array<int, 16> value_row{}, value_col{};
  bool separable = false; // false: the TvMap does not split this way (never for gfx12)

  constexpr int lane_row(int l) const {
    int r = 0;
    for (const Mode& m : thread)
      r += (l / m.divisor) % m.extent * m.row_step;
    return r;
  }
  constexpr int lane_col(int l) const {
    int c = 0;
    for (const Mode& m : thread)
      c += (l / m.divisor) % m.extent * m.col_step;
    return c;
  }
};

// Splits a TvMap (column-major element index row + rows * col) into lane and value parts.
// pack > 1 (packed int4: 2 nibbles per byte) merges each group of `pack` values, consecutive
// along k, into one storage element: the map then counts k in storage elements (bytes), k
// being the columns (k_is_col, operand A) or the rows (operand B). Such a map is separable
// only if every group is `pack` consecutive k values starting at a multiple of `pack`.
constexpr LaneMap make_lane_map(const atoms::TvMap& tv, int pack = 1, bool k_is_col = true) {
  LaneMap m;
  const int kdiv_r = k_is_col ? 1 : pack, kdiv_c = k_is_col ? pack : 1;
  m.rows = tv.rows / kdiv_r;
  m.cols = tv.cols / kdiv_c;
  m.values = tv.values_per_lane() / pack;
  m.elem_bits = tv.elem_bits * pack;
  int divisor = 1;
  for (int i = 0; i < 2; ++i) {
    const atoms::TvMode& t = tv.thread[i];
    m.thread[i] = {t.extent, divisor, t.stride % tv.rows / kdiv_r, t.stride / tv.rows / kdiv_c};
    divisor *= t.extent;
  }
  if (m.values > int(m.value_row.size()) || m.values * pack != tv.values_per_lane())
    return m;
  for (int v = 0; v < m.values; ++v) {
    const auto [r, c] = tv.coord(0, pack * v);
    m.value_row[v] = r / kdiv_r;
    m.value_col[v] = c / kdiv_c;
  }
  m.separable = true;
  for (int l = 0; l < 32 && m.separable; ++l)
    for (int v = 0; v < m.values * pack; ++v) {
      const auto [r, c] = tv.coord(l, v);
      const int p = v % pack, s = v / pack; // nibble p of storage value s
      const int kk = k_is_col ? c : r;
      if (kk % pack != p || r / kdiv_r != m.lane_row(l) + m.value_row[s] ||
          c / kdiv_c != m.lane_col(l) + m.value_col[s])
        m.separable = false;
    }
  return m;
}

// The operand map the tiled layer loads 16-bit A / B operands with. The hardware gives lane half
// h = l / 16 the k values {4h .. 4h+3, 8+4h .. 8+4h+3}; A and B see the same k order, so any
// relabelling of k that is one function of the hardware k for both operands computes the same
// product (shared/RDNA4.md). Here half h holds k 8h .. 8h+7 in value order: one 128-bit read per
// operand tile instead of two 64-bit ones. Other maps (8-bit, packed int4: already k-contiguous
// per lane) are returned unchanged.
constexpr LaneMap k_contiguous(LaneMap m, bool k_is_col) {
  if (m.elem_bits != 16 || m.values != 8)
    return m;
  for (LaneMap::Mode& mode : m.thread) {
    int& k_step = k_is_col ? mode.col_step : mode.row_step;
    if (k_step == 4)
      k_step = 8;
  }
  for (int v = 0; v < m.values; ++v)
    (k_is_col ? m.value_col : m.value_row)[v] = v;
  return m;
}

// The relabelling of k that turns `hw` into `tiled`: pi[hardware k] = tiled k, one bijection
// for every lane and value with every other coordinate kept; `valid` is false otherwise.
struct KRelabelling {
  bool valid = false;
  std::array<int, 64> pi{};
  constexpr bool operator==(const KRelabelling&) const = default;
};
constexpr KRelabelling k_relabelling(const LaneMap& hw, const LaneMap& tiled, bool k_is_col) {
  KRelabelling r;
  r.pi.fill(-1);
  const int k_extent = k_is_col ? hw.cols : hw.rows;
  if (k_extent > 64 || hw.values != tiled.values)
    return r;
  for (int l = 0; l < 32; ++l)
    for (int v = 0; v < hw.values; ++v) {
      const int hr = hw.lane_row(l) + hw.value_row[v], hc = hw.lane_col(l) + hw.value_col[v];
      const int tr = tiled.lane_row(l) + tiled.value_row[v],
                tc = tiled.lane_col(l) + tiled.value_col[v];
      const int hk = k_is_col ? hc : hr, tk = k_is_col ? tc : tr;
      if ((k_is_col ? hr != tr : hc != tc) || tk < 0 || tk >= k_extent ||
          (r.pi[hk] != -1 && r.pi[hk] != tk))
        return r;
      r.pi[hk] = tk;
    }
  for (int a = 0; a < k_extent; ++a)
    for (int b = a + 1; b < k_extent; ++b)
      if (r.pi[a] == -1 || r.pi[a] == r.pi[b])
        return r;
  r.valid = true;
  return r;
}

// DSL element tag of an atom operand type.
template <atoms::MmaElem E>
struct mma_elem_tag;
template <>
struct mma_elem_tag<atoms::MmaElem::f16> {
  using type = f16;
};
template <>
struct mma_elem_tag<atoms::MmaElem::bf16> {
  using type = bf16;
};
template <>
struct mma_elem_tag<atoms::MmaElem::f32> {
  using type = f32;
};
template <>
struct mma_elem_tag<atoms::MmaElem::i32> {
  using type = i32;
};
template <>
struct mma_elem_tag<atoms::MmaElem::iu8> {
  using type = i8;
};
// Packed int4 operands are held as their storage bytes (two nibbles each, element 2i in the low
// nibble); the WMMA reads the registers of those bytes as packed int4.
template <>
struct mma_elem_tag<atoms::MmaElem::iu4> {
  using type = i8;
};
template <>
struct mma_elem_tag<atoms::MmaElem::fp8> {
  using type = e4m3;
};
template <>
struct mma_elem_tag<atoms::MmaElem::bf8> {
  using type = e5m2;
};

// Anything that names one gfx12 matrix instruction: tw::atoms::wmma_f32_16x16x16_f16 and the
// other aliases of atoms/mma/gfx12.hpp (any type with a static `info` of the instruction table).
template <class A>
concept MmaAtomType = requires {
  { A::info } -> std::convertible_to<const atoms::MmaInstrInfo&>;
};

// What the DSL derives from an atom: its lane maps and the element tags of its operands.
template <MmaAtomType Atom>
struct MmaAtomLanes {
  static constexpr const atoms::MmaInstrInfo& info = Atom::info;
  static constexpr std::string_view mnemonic = info.mnemonic;
  static_assert(!info.sparse,
                "TiledMMA: SWMMAC (sparse) atoms are not supported by the tiled layer yet; use a "
                "dense WMMA atom such as tw::atoms::wmma_f32_16x16x16_f16");

  static constexpr int M = info.m, N = info.n, K = info.k;
  // Packed int4 atoms: operand tiles, fragments and lane maps count k in storage bytes (two
  // k values each); K stays the atom's K in elements.
  static constexpr bool packed_int4 = info.a_type == atoms::MmaElem::iu4;
  static constexpr int k_pack = packed_int4 ? 2 : 1;
  static constexpr int k_storage = K / k_pack; // one k step in tile columns
  static constexpr LaneMap a_map = make_lane_map(info.a, k_pack, true);
  static constexpr LaneMap b_map = make_lane_map(info.b, k_pack, false);
  static constexpr LaneMap c_map = make_lane_map(info.cd);
  static_assert(a_map.separable && b_map.separable && c_map.separable,
                "TiledMMA: the atom's lane map does not split into lane and value parts");
  // What the tiled layer loads A and B fragments with (k_contiguous): a k relabelling shared by
  // both operands, proved here for every lane and value.
  static constexpr LaneMap a_tile_map = k_contiguous(a_map, true);
  static constexpr LaneMap b_tile_map = k_contiguous(b_map, false);
  static_assert(k_relabelling(a_map, a_tile_map, true).valid &&
                    k_relabelling(a_map, a_tile_map, true) ==
                        k_relabelling(b_map, b_tile_map, false),
                "TiledMMA: the tiled operand maps must relabel k by one bijection shared by A "
                "and B");

  using a_elem = typename mma_elem_tag<info.a_type>::type;
  using b_elem = typename mma_elem_tag<info.b_type>::type;
  using c_elem = typename mma_elem_tag<info.cd_type>::type;

  // The maps fragments are loaded with: the tiled ones for A and B, the hardware one for C.
  static constexpr const LaneMap& map(MmaOperand op) {
    return op == MmaOperand::A ? a_tile_map : op == MmaOperand::B ? b_tile_map : c_map;
  }
};

} // namespace tw::dsl
