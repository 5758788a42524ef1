#pragma once
// bfloat16 (the top half of an f32) <-> f32. gfx12 has no f32 -> bf16 convert instruction,
// so code that emits one rounds in software: this is that rounding (nearest even), plus
// truncation for comparisons with code that just drops the low half.
#include <atoms/formats/minifloat.hpp>

namespace tw::num {

constexpr float bf16_to_f32(uint16_t bits) {
  return minifloat_decode(bf16_spec, bits);
}

constexpr uint16_t f32_to_bf16(float x) {
  return uint16_t(minifloat_encode(bf16_spec, x, Rounding::nearest_even, Saturate::no));
}

// Round toward zero (keep the top 16 bits of a finite f32; NaN is still made quiet).
constexpr uint16_t f32_to_bf16_rtz(float x) {
  return uint16_t(minifloat_encode(bf16_spec, x, Rounding::toward_zero, Saturate::no));
}

constexpr uint16_t f32_to_bf16(float x, Saturate sat) {
  return uint16_t(minifloat_encode(bf16_spec, x, Rounding::nearest_even, sat));
}

constexpr uint16_t f32_to_bf16(float x, Rounding r) {
  return uint16_t(minifloat_encode(bf16_spec, x, r, Saturate::no));
}

// From f64, rounded once (an f64 -> f32 -> bf16 chain can round twice).
constexpr uint16_t f64_to_bf16(double x, Rounding r = Rounding::nearest_even) {
  return uint16_t(minifloat_encode(bf16_spec, x, r, Saturate::no));
}

constexpr float round_to_bf16(float x) {
  return bf16_to_f32(f32_to_bf16(x));
}

} // namespace tw::num
