#pragma once
// One exact codec for every binary float format narrower than f32 that tilewave uses
// (f16, bf16, OCP fp8 e4m3fn and e5m2). Each format is a MinifloatSpec value, not a
// template, so there is one code path to test and no per-format copy of it.
//
// Encoding works on the integer bits of the f32 input: the value is sig * 2^e with an
// integer significand, the target's ulp at that magnitude is 2^q, and rounding is an
// integer shift with the discarded bits deciding the carry. Nothing passes through an
// intermediate format, so e.g. f32 -> e4m3 is rounded once (no double rounding via f16).
#include <atoms/formats/rounding.hpp>
#include <atoms/formats/saturate.hpp>

#include <bit>
#include <cstdint>
#include <stdexcept>

namespace tw::num {

// What a format does with its all-ones exponent field.
enum class NonFinite {
  ieee,     // mantissa 0 is inf, anything else NaN (f16, bf16, e5m2)
  nan_only, // no inf: only all-ones exponent and mantissa is NaN; the rest are finite (e4m3fn)
};

struct MinifloatSpec {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  NonFinite non_finite;

  constexpr int bits() const { return 1 + exponent_bits + mantissa_bits; }
  constexpr uint32_t sign_mask() const { return 1u << (exponent_bits + mantissa_bits); }
  constexpr uint32_t magnitude_mask() const { return sign_mask() - 1; }
  constexpr uint32_t mantissa_mask() const { return (1u << mantissa_bits) - 1; }
  constexpr uint32_t exponent_field_max() const { return (1u << exponent_bits) - 1; }
  constexpr int min_normal_exponent() const { return 1 - bias; }
  // Unbiased exponent of the largest finite binade.
  constexpr int max_normal_exponent() const {
    const int top_field = int(exponent_field_max()) - (non_finite == NonFinite::ieee ? 1 : 0);
    return top_field - bias;
  }
  // Magnitude code of the largest finite value (0x7BFF f16, 0x7E e4m3fn, 0x7B e5m2).
  constexpr uint32_t max_finite_code() const {
    return non_finite == NonFinite::ieee ? (exponent_field_max() << mantissa_bits) - 1
                                         : magnitude_mask() - 1;
  }
  constexpr uint32_t inf_code() const { return exponent_field_max() << mantissa_bits; }
  constexpr bool is_nan(uint32_t code) const {
    const uint32_t mag = code & magnitude_mask();
    return non_finite == NonFinite::ieee ? mag > inf_code() : mag == magnitude_mask();
  }
  constexpr bool is_inf(uint32_t code) const {
    return non_finite == NonFinite::ieee && (code & magnitude_mask()) == inf_code();
  }
};

inline constexpr MinifloatSpec f16_spec{5, 10, 15, NonFinite::ieee};
inline constexpr MinifloatSpec bf16_spec{8, 7, 127, NonFinite::ieee};
inline constexpr MinifloatSpec e4m3_spec{4, 3, 7, NonFinite::nan_only};
inline constexpr MinifloatSpec e5m2_spec{5, 2, 15, NonFinite::ieee};

namespace detail {

// 2^k as an f32, exact for every k an f32 can hold (-149 .. 127), denormals included.
constexpr float f32_pow2(int k) {
  if (k >= -126)
    return std::bit_cast<float>(uint32_t(k + 127) << 23);
  return std::bit_cast<float>(1u << (k + 149));
}

// A quiet NaN in the target that keeps the sign and the top payload bits of the input.
constexpr uint32_t quiet_nan_code(const MinifloatSpec& s, uint32_t f32_mantissa) {
  if (s.non_finite == NonFinite::nan_only)
    return s.magnitude_mask();
  const uint32_t quiet_bit = 1u << (s.mantissa_bits - 1);
  return s.inf_code() | quiet_bit | (f32_mantissa >> (23 - s.mantissa_bits));
}

// How the magnitude rounds once the sign is known (the directed modes depend on it).
enum class MagnitudeRounding { nearest_even, toward_zero, away_from_zero, stochastic };

constexpr MagnitudeRounding magnitude_rounding(Rounding r, bool negative) {
  switch (r) {
  case Rounding::nearest_even:
    return MagnitudeRounding::nearest_even;
  case Rounding::toward_zero:
    return MagnitudeRounding::toward_zero;
  case Rounding::toward_positive:
    return negative ? MagnitudeRounding::toward_zero : MagnitudeRounding::away_from_zero;
  case Rounding::toward_negative:
    return negative ? MagnitudeRounding::away_from_zero : MagnitudeRounding::toward_zero;
  case Rounding::stochastic:
    return MagnitudeRounding::stochastic;
  }
  return MagnitudeRounding::nearest_even;
}

// Magnitude code for a result past the largest finite value. Rounding toward zero never
// overflows a finite input to inf (IEEE 754 7.4), so it clamps like saturation does.
constexpr uint32_t overflow_code(const MinifloatSpec& s, Saturate sat, MagnitudeRounding r) {
  if (sat == Saturate::yes || r == MagnitudeRounding::toward_zero)
    return s.max_finite_code();
  return s.non_finite == NonFinite::ieee ? s.inf_code() : s.magnitude_mask();
}

// Code of +-inf inputs: inf stays inf under every rounding unless clamped (e4m3: NaN).
constexpr uint32_t infinity_code(const MinifloatSpec& s, Saturate sat) {
  if (sat == Saturate::yes)
    return s.max_finite_code();
  return s.non_finite == NonFinite::ieee ? s.inf_code() : s.magnitude_mask();
}

// Whether dropping the low `shift` bits `rem` (nonzero) of a significand whose kept part is
// `kept` carries one ulp. shift is in 1..62.
constexpr bool rounds_up(uint64_t kept, uint64_t rem, int shift, MagnitudeRounding r,
                         uint32_t random) {
  switch (r) {
  case MagnitudeRounding::toward_zero:
    return false;
  case MagnitudeRounding::away_from_zero:
    return true;
  case MagnitudeRounding::nearest_even: {
    const uint64_t half = uint64_t{1} << (shift - 1);
    return rem > half || (rem == half && (kept & 1));
  }
  case MagnitudeRounding::stochastic:
    // The random bits are added under the discarded bits, bit 0 under bit 0 of the source
    // significand, and the carry out decides: up with probability rem / 2^shift when the
    // random bits are uniform. (AMD's software fp8 references round this way.) Only 32 bits
    // exist, so a value more than 32 bits below its ulp's bit position never rounds up.
    return rem + (uint64_t{random} & ((uint64_t{1} << shift) - 1)) >= (uint64_t{1} << shift);
  }
  return false;
}

// Rounds |x| = sig * 2^e (sig != 0) into format `s` and returns the magnitude code.
constexpr uint32_t encode_magnitude(const MinifloatSpec& s, uint64_t sig, int e,
                                    MagnitudeRounding r, Saturate sat, uint32_t random) {
  const int log2_floor = int(std::bit_width(sig)) - 1 + e;
  if (log2_floor > s.max_normal_exponent())
    return overflow_code(s, sat, r);
  // Target exponent (subnormals share the smallest normal exponent) and its ulp 2^q.
  const bool subnormal = log2_floor < s.min_normal_exponent();
  const int target_exp = subnormal ? s.min_normal_exponent() : log2_floor;
  const int q = target_exp - s.mantissa_bits;
  int shift = q - e;
  uint64_t ulps; // |x| / 2^q after rounding
  if (shift <= 0) {
    ulps = sig << -shift;
  } else {
    if (shift > 62) { // far below half an ulp: a sticky bit rounds the same way
      sig = 1;
      shift = 62;
    }
    const uint64_t kept = sig >> shift;
    const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
    ulps = kept + (rem != 0 && rounds_up(kept, rem, shift, r, random) ? 1 : 0);
  }
  // A carry out of the mantissa lands on the next exponent code by plain addition.
  const uint32_t magnitude =
      subnormal ? uint32_t(ulps)
                : (uint32_t(target_exp - s.min_normal_exponent() + 1) << s.mantissa_bits) +
                      uint32_t(ulps - (uint64_t{1} << s.mantissa_bits));
  return magnitude > s.max_finite_code() ? overflow_code(s, sat, r) : magnitude;
}

} // namespace detail

// Decodes a code of format `s` (in the low s.bits() bits) to the f32 it denotes, exactly.
// NaN codes decode to a quiet f32 NaN with the same sign.
constexpr float minifloat_decode(const MinifloatSpec& s, uint32_t code) {
  const uint32_t sign32 = (code & s.sign_mask()) ? 0x80000000u : 0u;
  const uint32_t exp_field = (code >> s.mantissa_bits) & s.exponent_field_max();
  const uint32_t mantissa = code & s.mantissa_mask();
  if (s.is_nan(code))
    return std::bit_cast<float>(sign32 | 0x7FC00000u | (mantissa << (23 - s.mantissa_bits)));
  if (s.is_inf(code))
    return std::bit_cast<float>(sign32 | 0x7F800000u);
  // Both factors and the product are representable in f32, so the multiply is exact.
  const float magnitude =
      exp_field == 0 ? float(mantissa) * detail::f32_pow2(s.min_normal_exponent() - s.mantissa_bits)
                     : float((1u << s.mantissa_bits) | mantissa) *
                           detail::f32_pow2(int(exp_field) - s.bias - s.mantissa_bits);
  return sign32 ? -magnitude : magnitude;
}

// Encodes an f32 into format `s`. NaN -> quiet NaN (sign kept); +-inf -> +-inf, or the
// largest finite value with saturation, or NaN for a format without inf; finite values
// round per `r` and, when they land past the largest finite value, give the largest finite
// value if `sat` or the rounding is toward zero (in magnitude), else inf (NaN for e4m3).
// Subnormal results are kept, never flushed. `random_bits` is used by Rounding::stochastic
// only (see detail::rounds_up).
constexpr uint32_t minifloat_encode(const MinifloatSpec& s, float x, Rounding r, Saturate sat,
                                    uint32_t random_bits = 0) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (bits >> 31) ? s.sign_mask() : 0u;
  const uint32_t exp32 = (bits >> 23) & 0xFFu;
  const uint32_t man32 = bits & 0x7FFFFFu;
  if (exp32 == 0xFF)
    return sign | (man32 != 0 ? detail::quiet_nan_code(s, man32) : detail::infinity_code(s, sat));
  if (exp32 == 0 && man32 == 0)
    return sign; // signed zero
  // |x| = sig * 2^e with an integer significand.
  const uint64_t sig = exp32 != 0 ? (man32 | 0x800000u) : man32;
  const int e = (exp32 != 0 ? int(exp32) : 1) - 127 - 23;
  return sign | detail::encode_magnitude(s, sig, e, detail::magnitude_rounding(r, sign != 0), sat,
                                         random_bits);
}

// Encodes an f64 into format `s`, rounding once (no double rounding through f32); the same
// rules as the f32 overload. Rounding::stochastic is not offered for f64 sources.
constexpr uint32_t minifloat_encode(const MinifloatSpec& s, double x, Rounding r, Saturate sat) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const uint32_t sign = (bits >> 63) ? s.sign_mask() : 0u;
  const uint32_t exp64 = uint32_t(bits >> 52) & 0x7FFu;
  const uint64_t man64 = bits & ((uint64_t{1} << 52) - 1);
  if (exp64 == 0x7FF)
    return sign | (man64 != 0 ? detail::quiet_nan_code(s, uint32_t(man64 >> 29))
                              : detail::infinity_code(s, sat));
  if (exp64 == 0 && man64 == 0)
    return sign;
  const uint64_t sig = exp64 != 0 ? (man64 | (uint64_t{1} << 52)) : man64;
  const int e = (exp64 != 0 ? int(exp64) : 1) - 1023 - 52;
  if (r == Rounding::stochastic)
    throw std::invalid_argument("minifloat_encode: stochastic rounding takes an f32 source (the "
                                "random bits are aligned to the f32 significand)");
  return sign |
         detail::encode_magnitude(s, sig, e, detail::magnitude_rounding(r, sign != 0), sat, 0);
}

} // namespace tw::num
