#pragma once
// Packed 4-bit integers, two per byte: element 2i in the low nibble, element 2i+1 in the
// high nibble (the order the iu4 WMMA operands use). Signed nibbles are two's complement
// (-8 .. 7), unsigned ones 0 .. 15.
#include <atoms/formats/integer_rounding.hpp>

#include <cstdint>
#include <stdexcept>

namespace tw::num {

// Element `index` (0 = low nibble, 1 = high nibble) of a packed byte.
constexpr int int4_get(uint8_t byte, int index, bool is_signed) {
  if (index != 0 && index != 1)
    throw std::out_of_range("int4_get: index must be 0 (low nibble) or 1 (high nibble)");
  const int nibble = (byte >> (4 * index)) & 0xF;
  return is_signed && nibble >= 8 ? nibble - 16 : nibble;
}

// Packs two elements; each must fit a signed or an unsigned nibble (-8 .. 15).
constexpr uint8_t int4_pack(int lo, int hi) {
  if (lo < -8 || lo > 15 || hi < -8 || hi > 15)
    throw std::out_of_range("int4_pack: each element must be in -8 .. 7 (signed) or 0 .. 15 "
                            "(unsigned)");
  return uint8_t((lo & 0xF) | ((hi & 0xF) << 4));
}

// Round half to even, clamp to -8 .. 7 (signed) or 0 .. 15 (unsigned); returns the nibble
// in the low 4 bits (two's complement when signed). NaN -> 0.
constexpr uint8_t f32_to_int4(float x, bool is_signed) {
  const int v = is_signed ? round_half_even_clamped(x, -8, 7) : round_half_even_clamped(x, 0, 15);
  return uint8_t(v & 0xF);
}

} // namespace tw::num
