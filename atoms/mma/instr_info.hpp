#pragma once
// Plain constexpr description of one gfx12 matrix instruction (WMMA or SWMMAC): the data the
// emulator, the CLI and the emitters read at run time without instantiating any atom type.
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

namespace tw::atoms {

// Element type of an MMA operand as it sits in a VGPR.
enum class MmaElem : std::uint8_t {
  f16,  // IEEE binary16
  bf16, // bfloat16
  f32,
  i32,
  iu8, // 8-bit integer, signedness chosen by a modifier
  iu4, // 4-bit integer, signedness chosen by a modifier, element 2i in the low nibble
  fp8, // OCP E4M3FN
  bf8, // OCP E5M2
};

constexpr int elem_bits(MmaElem e) {
  switch (e) {
  case MmaElem::f16:
  case MmaElem::bf16:
    return 16;
  case MmaElem::f32:
  case MmaElem::i32:
    return 32;
  case MmaElem::iu8:
  case MmaElem::fp8:
  case MmaElem::bf8:
    return 8;
  case MmaElem::iu4:
    return 4;
  }
  return 0;
}

constexpr std::string_view elem_name(MmaElem e) {
  switch (e) {
  case MmaElem::f16:
    return "f16";
  case MmaElem::bf16:
    return "bf16";
  case MmaElem::f32:
    return "f32";
  case MmaElem::i32:
    return "i32";
  case MmaElem::iu8:
    return "iu8";
  case MmaElem::iu4:
    return "iu4";
  case MmaElem::fp8:
    return "fp8";
  case MmaElem::bf8:
    return "bf8";
  }
  return "?";
}

constexpr bool is_float_elem(MmaElem e) {
  return e != MmaElem::i32 && e != MmaElem::iu8 && e != MmaElem::iu4;
}

// The modifier bits of one WMMA / SWMMAC issue (VOP3P neg_lo / neg_hi / clamp, index_key).
//  - iu8 / iu4: a_signed, b_signed (encoded as neg_lo[0], neg_lo[1]) and clamp (saturate i32).
//  - f16 / bf16 inputs: neg_lo / neg_hi bit 0 negates A, bit 1 negates B (both bits of one
//    operand must agree: the hardware negates whole elements, see docs/atoms.md); neg_lo bit 2
//    negates C and neg_hi bit 2 takes |C| (applied first: -|C| when both are set).
//  - fp8 / bf8: no modifiers.
//  - SWMMAC: index_key selects which 16-bit half of the index VGPR is used (iu4 16x16x64
//    uses all 32 bits and accepts only 0).
struct MmaModifiers {
  bool a_signed = false, b_signed = false, clamp = false;
  unsigned neg_lo = 0, neg_hi = 0; // 3-bit masks
  unsigned index_key = 0;
};

// Which modifier fields an instruction accepts.
enum MmaModifierSupport : unsigned {
  kMmaSignedness = 1u << 0, // a_signed, b_signed
  kMmaClamp = 1u << 1,
  kMmaNegAB = 1u << 2,    // neg_lo / neg_hi bits 0 and 1
  kMmaNegC = 1u << 3,     // neg_lo / neg_hi bit 2
  kMmaIndexKey = 1u << 4, // index_key (SWMMAC)
};

// One mode (extent : stride) of a flat layout.
struct TvMode {
  int extent = 1;
  int stride = 0;
};

// The (thread, value) -> matrix element map of one operand, a CuTe layout
// ((t0, t1), (v0, v1, v2)) : ((s0, s1), (w0, w1, w2)) whose result is the column-major index
// of the element in a rows x cols matrix: index = row + rows * col.
//  - thread = lane 0..31 (t0 is the fast mode),
//  - value  = vgpr * (32 / elem_bits) + element-within-vgpr (register order; element e of a
//    VGPR occupies bits [elem_bits*(e+1)-1 : elem_bits*e]).
// Matrices: A is M x K (for SWMMAC the compressed M x K/2 matrix of kept values), B is K x N,
// C and D are M x N.
struct TvMap {
  int rows = 0, cols = 0;
  int elem_bits = 32;
  std::array<TvMode, 2> thread{};
  std::array<TvMode, 3> value{};

  constexpr int values_per_lane() const {
    return value[0].extent * value[1].extent * value[2].extent;
  }
  constexpr int elems_per_vgpr() const { return 32 / elem_bits; }
  constexpr int index(int lane, int v) const {
    int idx = (lane % thread[0].extent) * thread[0].stride +
              (lane / thread[0].extent % thread[1].extent) * thread[1].stride;
    for (const TvMode& m : value) {
      idx += (v % m.extent) * m.stride;
      v /= m.extent;
    }
    return idx;
  }
  // (row, col) of the element that lane `lane` holds as value `v`.
  constexpr std::pair<int, int> coord(int lane, int v) const {
    const int idx = index(lane, v);
    return {idx % rows, idx / rows};
  }
};

// One gfx12 matrix instruction (wave32). All strings are static.
struct MmaInstrInfo {
  std::string_view mnemonic; // e.g. "v_wmma_f32_16x16x16_f16"
  int m, n, k;               // D (m x n) += A (m x k) * B (k x n)
  int a_vgprs, b_vgprs, cd_vgprs;
  bool sparse; // SWMMAC: A is 2:4 compressed, an index VGPR selects the K positions
  MmaElem a_type, b_type, cd_type;
  unsigned modifiers;         // MmaModifierSupport bits
  int index_keys;             // number of valid index_key values (0 for dense WMMA)
  int cycles;                 // issue cycles per AMD's matrix instruction calculator
  std::string_view intrinsic; // full gfx12 overload name, e.g. "llvm.amdgcn.wmma...v8f32.v8f16"
  std::string_view signature; // LLVM declaration: "<8 x float> (<8 x half>, <8 x half>, ...)"
  std::string_view builtin;   // clang builtin
  TvMap a, b, cd;             // lane layouts
  // SWMMAC only: the kept A value a lane holds as value v (v = 2j, 2j + 1 are the two kept
  // values of the lane's j-th k-group of 4) sits at position ((set >> index_bit(v)) & 3) of its
  // group, where set = the index VGPR of the same lane shifted right by 16 * index_key (bits
  // [15:0] or [31:16]; the iu4 16x16x64 form has 8 groups per lane and uses all 32 bits).
  constexpr int index_bit(int v) const { return 2 * v; }
};

} // namespace tw::atoms
