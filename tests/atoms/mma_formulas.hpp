#pragma once
// The lane layouts of shared/RDNA4.md written out a second time, as plain formulas, so the tests
// check atoms/mma against the document instead of against itself. Lane l, VGPR g, element e
// within the VGPR (16-bit half, byte or nibble). For SWMMAC, A coordinates are in the compressed
// M x K/2 matrix (two kept values per k-group of 4).
#include <atoms/mma/instr_info.hpp>

namespace tw::test {

struct MatCoord {
  int row, col;
};

inline int mma_elem_bits_of(atoms::MmaElem t) {
  return atoms::elem_bits(t);
}

inline MatCoord formula_a(const atoms::MmaInstrInfo& in, int l, int g, int e) {
  const int bits = mma_elem_bits_of(in.a_type);
  const int row = l % 16, half = l / 16;
  if (bits == 16) {
    if (!in.sparse)
      return {row, 8 * (g / 2) + 4 * half + 2 * (g % 2) + e};
    // RDNA4.md: VGPR g holds the 2 kept values of the k-group starting at
    // 16*(g/2) + 8*(l/16) + 4*(g%2); kept value e of group q is compressed column 2q + e.
    const int group_start = 16 * (g / 2) + 8 * half + 4 * (g % 2);
    return {row, 2 * (group_start / 4) + e};
  }
  if (bits == 8) // dense, and the compressed SWMMAC A (16 kept of 32)
    return {row, 8 * half + 4 * g + e};
  // iu4
  const int kc = in.sparse ? in.k / 2 : in.k; // columns of the stored matrix
  if (kc == 16)
    return {row, 8 * half + e};
  return {row, 16 * half + 8 * g + e};
}

inline MatCoord formula_b(const atoms::MmaInstrInfo& in, int l, int g, int e) {
  const int bits = mma_elem_bits_of(in.b_type);
  const int col = l % 16, half = l / 16;
  if (bits == 16)
    return in.sparse ? MatCoord{16 * (g / 4) + 8 * half + 2 * (g % 4) + e, col}
                     : MatCoord{8 * (g / 2) + 4 * half + 2 * (g % 2) + e, col};
  if (bits == 8)
    return in.sparse ? MatCoord{16 * half + 4 * g + e, col} : MatCoord{8 * half + 4 * g + e, col};
  if (in.k == 16)
    return {8 * half + e, col};
  if (in.k == 32)
    return {16 * half + 8 * g + e, col};
  return {32 * half + 8 * g + e, col};
}

inline MatCoord formula_cd(const atoms::MmaInstrInfo& in, int l, int g, int e) {
  if (mma_elem_bits_of(in.cd_type) == 32)
    return {8 * (l / 16) + g, l % 16};
  return {8 * (l / 16) + 2 * g + e, l % 16};
}

// SWMMAC: lane and bit offset (within the 16- or 32-bit index set) of the 4 index bits of
// k-group q (covering k = 4q .. 4q+3) of a row. 16-bit: RDNA4.md's
// [8*(k/16) + 4*((k/4)%2) + 3 : ...]; 8-bit / iu4: the j-th group a lane holds sits at bits 4j.
struct IndexSlot {
  int lane_half, bit;
};
inline IndexSlot formula_index(const atoms::MmaInstrInfo& in, int q) {
  const int k = 4 * q;
  const int bits = mma_elem_bits_of(in.a_type);
  if (bits == 16)
    return {(k / 8) % 2, 8 * (k / 16) + 4 * ((k / 4) % 2)};
  const int per_half = in.k / 2; // expanded k held by one lane half
  return {k / per_half, 4 * ((k % per_half) / 4)};
}

} // namespace tw::test
