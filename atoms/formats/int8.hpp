#pragma once
// int8 quantization: round half to even, then clamp to [-128, 127]; NaN -> 0.
#include <atoms/formats/integer_rounding.hpp>

#include <cstdint>

namespace tw::num {

constexpr int8_t f32_to_int8(float x) {
  return int8_t(round_half_even_clamped(x, -128, 127));
}

// The unsigned form for the iu8 WMMA operands with A/B unsigned: clamp to [0, 255].
constexpr uint8_t f32_to_uint8(float x) {
  return uint8_t(round_half_even_clamped(x, 0, 255));
}

} // namespace tw::num
