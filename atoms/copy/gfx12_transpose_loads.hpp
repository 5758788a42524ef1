#pragma once
// The gfx12 transpose loads (RDNA4 ISA 11.6, "WMMA Matrix Load Ops with Transpose") as
// constexpr data: global_load_tr_b128 (16-bit elements) and global_load_tr_b64 (8-bit). Every
// lane reads 8 contiguous elements at its own address; then the wave exchanges them so that a
// 16 x 16 tile stored with the WMMA operand's k dimension strided lands in the operand layout
// (lane L holds column / row L % 16 and k = 8 * (L / 16) + value). docs/copy_atoms.md has the
// derivation and the sources (the ISA text and two published gfx1201 hardware measurements).
//
// Tile coordinates: a 16 x 16 tile whose rows are k and whose columns (m of A, n of B) are
// adjacent in memory; layouts below give the column-major index row + 16 * col.
#include <atoms/copy/copy_instr_info.hpp>
#include <layouts/layout.hpp>

#include <array>
#include <string_view>

namespace tw::atoms {

struct TransposeLoadInfo {
  struct LaneMode { // ((lane / divisor) % extent) * step, summed over the modes
    int extent = 1, divisor = 1, row_step = 0, col_step = 0;
  };
  std::string_view mnemonic;       // "global_load_tr_b128"
  std::string_view mc_name_prefix; // LLVM MC names: GLOBAL_LOAD_TR_B128[_SADDR]_gfx12
  int elem_bits;                   // 16 (b128) or 8 (b64)
  int width_bits;                  // bits a lane reads (and receives): 128 or 64
  std::string_view intrinsic;      // llvm.amdgcn.global.load.tr.b128.v8i16 / .b64.v2i32
  std::string_view builtin;        // __builtin_amdgcn_global_load_tr_b128_v8i16 / _b64_v2i32
  // Where lane s reads so that the result is the operand: tile row read_row(s), columns
  // read_col(s) .. read_col(s) + 7.
  std::array<LaneMode, 4> read_modes;

  constexpr int read_row(int s) const {
    int r = 0;
    for (const LaneMode& m : read_modes)
      r += s / m.divisor % m.extent * m.row_step;
    return r;
  }
  constexpr int read_col(int s) const {
    int c = 0;
    for (const LaneMode& m : read_modes)
      c += s / m.divisor % m.extent * m.col_step;
    return c;
  }
  // The hardware's lane exchange: lane L's element j is element L % 8 of what lane
  // source_lane(L, j) read (b128: an 8 x 8 transpose in every 8 lanes; b64: see the docs).
  constexpr int source_lane(int lane, int j) const {
    return elem_bits == 16 ? 8 * (lane / 8) + j
                           : 16 * (lane / 16) + 8 * (j / 4) + 4 * (lane / 8 % 2) + j % 4;
  }
  constexpr int elements() const { return width_bits / elem_bits; }
};

// clang-format off
inline constexpr TransposeLoadInfo gfx12_global_load_tr_b128{
  "global_load_tr_b128", "GLOBAL_LOAD_TR_B128", 16, 128,
  "llvm.amdgcn.global.load.tr.b128.v8i16", "__builtin_amdgcn_global_load_tr_b128_v8i16",
  // row 8 (s / 16) + s % 8, columns from 8 (s / 8 % 2)
  {{{8, 1, 1, 0}, {2, 8, 0, 8}, {2, 16, 8, 0}, {1, 32, 0, 0}}}};
inline constexpr TransposeLoadInfo gfx12_global_load_tr_b64{
  "global_load_tr_b64", "GLOBAL_LOAD_TR_B64", 8, 64,
  "llvm.amdgcn.global.load.tr.b64.v2i32", "__builtin_amdgcn_global_load_tr_b64_v2i32",
  // row 8 (s / 16) + 4 (s / 8 % 2) + s % 4, columns from 8 (s / 4 % 2)
  {{{4, 1, 1, 0}, {2, 4, 0, 8}, {2, 8, 4, 0}, {2, 16, 8, 0}}}};
// clang-format on

constexpr const TransposeLoadInfo& transpose_load_for(int elem_bits) {
  return elem_bits == 16 ? gfx12_global_load_tr_b128 : gfx12_global_load_tr_b64;
}

// The two maps as tw layouts ((lane modes), value) -> row + 16 * col of the tile.
//  read layout:   what lane s reads as its element j (from read_modes);
//  result layout: what lane L holds as value v after the load: (8 (L / 16) + v, L % 16).
consteval auto transpose_load_read_layout_b128() {
  return make_layout(make_shape(make_shape(Int<8>{}, Int<2>{}, Int<2>{}), Int<8>{}),
                     make_stride(make_stride(Int<1>{}, Int<128>{}, Int<8>{}), Int<16>{}));
}
consteval auto transpose_load_read_layout_b64() {
  return make_layout(make_shape(make_shape(Int<4>{}, Int<2>{}, Int<2>{}, Int<2>{}), Int<8>{}),
                     make_stride(make_stride(Int<1>{}, Int<128>{}, Int<4>{}, Int<8>{}), Int<16>{}));
}
consteval auto transpose_load_result_layout() {
  return make_layout(make_shape(make_shape(Int<16>{}, Int<2>{}), Int<8>{}),
                     make_stride(make_stride(Int<16>{}, Int<8>{}), Int<1>{}));
}

// Proof, for every lane and element, that reading with read_modes (= the read layout) and the
// hardware's exchange give the result layout.
template <int ElemBits>
consteval bool transpose_load_lands_in_result_layout() {
  constexpr const TransposeLoadInfo& info = transpose_load_for(ElemBits);
  constexpr auto read = [] {
    if constexpr (ElemBits == 16)
      return transpose_load_read_layout_b128();
    else
      return transpose_load_read_layout_b64();
  }();
  constexpr auto result = transpose_load_result_layout();
  for (int s = 0; s < 32; ++s)
    for (int j = 0; j < 8; ++j)
      if (read(s, j) != info.read_row(s) + 16 * (info.read_col(s) + j))
        return false;
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < 8; ++j)
      if (result(l, j) != read(info.source_lane(l, j), l % 8))
        return false;
  return true;
}
static_assert(transpose_load_lands_in_result_layout<16>() &&
                  transpose_load_lands_in_result_layout<8>(),
              "global_load_tr: the per-lane reads and the lane exchange must give the result "
              "layout (8 (L / 16) + v, L % 16)");

// Typed atoms: TransposeLoadAtom<16> is global_load_tr_b128, <8> global_load_tr_b64.
template <int ElemBits>
struct TransposeLoadAtom {
  static_assert(ElemBits == 16 || ElemBits == 8,
                "transpose loads move 16-bit (global_load_tr_b128) or 8-bit "
                "(global_load_tr_b64) elements; packed int4 operands have none on gfx12");
  static constexpr const TransposeLoadInfo& info = transpose_load_for(ElemBits);
  static constexpr int elem_bits = ElemBits;
  static constexpr auto result_layout = transpose_load_result_layout();
};
using global_load_tr_b128 = TransposeLoadAtom<16>;
using global_load_tr_b64 = TransposeLoadAtom<8>;

} // namespace tw::atoms
