#pragma once
// IEEE binary16 <-> f32. Exact decode; encode rounds to nearest even (v_cvt_f16_f32 with the
// default MODE) or toward zero (v_cvt_pk_rtz_f16_f32). Denormals kept, NaN stays quiet NaN.
#include <atoms/formats/minifloat.hpp>

namespace tw::num {

constexpr float f16_to_f32(uint16_t bits) {
  return minifloat_decode(f16_spec, bits);
}

constexpr uint16_t f32_to_f16(float x) {
  return uint16_t(minifloat_encode(f16_spec, x, Rounding::nearest_even, Saturate::no));
}

// Round toward zero: finite inputs never become inf (large ones clamp to +-65504).
constexpr uint16_t f32_to_f16_rtz(float x) {
  return uint16_t(minifloat_encode(f16_spec, x, Rounding::toward_zero, Saturate::no));
}

// Round to nearest even, and clamp finite overflow to +-65504 instead of inf.
constexpr uint16_t f32_to_f16(float x, Saturate sat) {
  return uint16_t(minifloat_encode(f16_spec, x, Rounding::nearest_even, sat));
}

// Any IEEE rounding mode (the emulator follows MODE.round with it).
constexpr uint16_t f32_to_f16(float x, Rounding r) {
  return uint16_t(minifloat_encode(f16_spec, x, r, Saturate::no));
}

// From f64, rounded once to nearest even (an f64 -> f32 -> f16 chain can round twice).
constexpr uint16_t f64_to_f16(double x, Rounding r = Rounding::nearest_even) {
  return uint16_t(minifloat_encode(f16_spec, x, r, Saturate::no));
}

// The value an f32 has after a round trip through f16 (what storing to f16 loses).
constexpr float round_to_f16(float x) {
  return f16_to_f32(f32_to_f16(x));
}

} // namespace tw::num
