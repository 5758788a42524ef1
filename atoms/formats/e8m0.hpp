#pragma once
// E8M0: the OCP Microscaling (MX) shared-scale format. 8 exponent bits, no sign, no
// mantissa: code e means 2^(e - 127) (0x00 = 2^-127 .. 0xFE = 2^127), 0xFF is NaN.
#include <atoms/formats/minifloat.hpp>

#include <bit>
#include <cstdint>
#include <limits>

namespace tw::num {

constexpr float e8m0_to_f32(uint8_t bits) {
  if (bits == 0xFF)
    return std::numeric_limits<float>::quiet_NaN();
  return detail::f32_pow2(int(bits) - 127);
}

// Rounds DOWN to a power of two: the code of 2^floor(log2 x), as the OCP MX v1.0 scale
// computation does (shared exponent = floor(log2(amax))). So 3.0 -> 0x80 (2), 0.75 ->
// 0x7E (0.5). Rules for inputs a scale cannot be: NaN, +-inf and negative nonzero values
// -> 0xFF (NaN; the format has no sign and no inf); +-0 and values below 2^-127 clamp to
// 0x00 (2^-127, the smallest scale).
constexpr uint8_t f32_to_e8m0(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t exp32 = (bits >> 23) & 0xFFu;
  const uint32_t man32 = bits & 0x7FFFFFu;
  if (exp32 == 0xFF)
    return 0xFF;
  if (exp32 == 0 && man32 == 0)
    return 0x00;
  if (bits >> 31)
    return 0xFF;
  const int log2_floor = exp32 != 0 ? int(exp32) - 127 : int(std::bit_width(man32)) - 1 - 149;
  return uint8_t((log2_floor < -127 ? -127 : log2_floor) + 127);
}

} // namespace tw::num
