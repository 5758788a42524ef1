#pragma once
// OCP 8-bit floats (OCP 8-bit Floating Point Specification, OFP8):
//   e4m3 = E4M3FN: bias 7, no inf, max +-448 (S.1111.110), NaN only S.1111.111.
//   e5m2:          bias 15, IEEE-like, max +-57344 (S.11110.11), inf S.11111.00.
// Not the "fnuz" variants of gfx942. Conversions from f32 round once, straight from f32.
// Overflow without saturation: e4m3 -> NaN, e5m2 -> inf; with saturation (also for inf
// inputs): the largest finite value of that sign. NaN inputs stay NaN.
#include <atoms/formats/minifloat.hpp>

namespace tw::num {

constexpr float e4m3_to_f32(uint8_t bits) {
  return minifloat_decode(e4m3_spec, bits);
}
constexpr float e5m2_to_f32(uint8_t bits) {
  return minifloat_decode(e5m2_spec, bits);
}

constexpr uint8_t f32_to_e4m3(float x, Saturate sat) {
  return uint8_t(minifloat_encode(e4m3_spec, x, Rounding::nearest_even, sat));
}
constexpr uint8_t f32_to_e5m2(float x, Saturate sat) {
  return uint8_t(minifloat_encode(e5m2_spec, x, Rounding::nearest_even, sat));
}

// From f64, rounded once to nearest even.
constexpr uint8_t f64_to_e4m3(double x, Saturate sat) {
  return uint8_t(minifloat_encode(e4m3_spec, x, Rounding::nearest_even, sat));
}
constexpr uint8_t f64_to_e5m2(double x, Saturate sat) {
  return uint8_t(minifloat_encode(e5m2_spec, x, Rounding::nearest_even, sat));
}

// Stochastic rounding: random_bits are added under the bits of |x|'s f32 significand that
// the target drops (bit 0 of random_bits under bit 0 of the f32 mantissa) and the carry out
// rounds the magnitude up, as AMD's software fp8 references (hip_f8_impl) do. So
// random_bits = 0 rounds toward zero, 0xFFFFFFFF rounds away from zero whenever x is inexact
// (and |x| is not more than 32 bit positions below the target's ulp), and uniform random bits
// round up with probability (discarded part / ulp): the mean is x. Exact values never move;
// rounding past the largest finite value follows `sat`.
constexpr uint8_t f32_to_e4m3_stochastic(float x, uint32_t random_bits, Saturate sat) {
  return uint8_t(minifloat_encode(e4m3_spec, x, Rounding::stochastic, sat, random_bits));
}
constexpr uint8_t f32_to_e5m2_stochastic(float x, uint32_t random_bits, Saturate sat) {
  return uint8_t(minifloat_encode(e5m2_spec, x, Rounding::stochastic, sat, random_bits));
}

} // namespace tw::num
