#pragma once
// The element conversions of the WMMA engine (runtime/emu/valu/mma_engine.cpp) as branch-free
// integer arithmetic the compiler vectorises: f16 / bf16 bits -> f32, and f32 -> f16 / bf16
// rounded to nearest even. Each gives the bits tw::num's generic minifloat codec gives
// (tests/runtime/emu/test_mma_convert.cpp compares them); NaN inputs are excluded from the
// encoders because the engine writes every NaN result as the type's default NaN itself.
#include <bit>
#include <cstdint>

namespace tw::emu::valu::mma_convert {

// f16 bits -> f32 (exact; a NaN stays a NaN with its payload shifted into place).
inline float f16_to_f32(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu; // exponent and mantissa
  // normal: the exponent rebased from 15 to 127; inf / NaN: exponent 31 becomes 255
  const uint32_t normal = (em << 13) + 0x38000000u;
  const uint32_t special = (em << 13) + 0x70000000u;
  // denormal (and zero): em units of 2^-24, exact in f32
  const uint32_t tiny = std::bit_cast<uint32_t>(float(int32_t(em)) * 0x1p-24f);
  const uint32_t bits = em >= 0x7c00u ? special : em >= 0x0400u ? normal : tiny;
  return std::bit_cast<float>(bits | sign);
}

// bf16 bits -> f32 (the top half of the f32; exact).
inline float bf16_to_f32(uint32_t h) {
  return std::bit_cast<float>(h << 16);
}

// f32 -> f16 bits, round to nearest even, overflow to infinity; x must not be a NaN, and the
// host must round to nearest even (its default, which the engine's double -> f32 rounding of the
// sums needs as well).
inline uint32_t f32_to_f16_rne(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t a = bits & 0x7fffffffu;
  // [2^-14, 65520): rebase the exponent from 127 to 15 and round the 13 dropped bits (a carry
  // out of the mantissa correctly steps the exponent).
  const uint32_t r = a - 0x38000000u;
  const uint32_t normal = (r + 0x0fffu + ((r >> 13) & 1u)) >> 13;
  // below 2^-14: |x| + 0.5 lies in [0.5, 1), whose ulp is 2^-24 (the f16 denormal step), so
  // the host's nearest-even addition rounds |x| to a whole number of steps, held in the
  // mantissa field (2^-14 itself, 0x400 steps, is the smallest normal's encoding).
  const uint32_t tiny =
      std::bit_cast<uint32_t>(std::bit_cast<float>(a) + 0.5f) - std::bit_cast<uint32_t>(0.5f);
  const uint32_t h = a >= 0x477ff000u ? 0x7c00u : a >= 0x38800000u ? normal : tiny;
  return h | sign;
}

// f32 -> bf16 bits, round to nearest even, overflow to infinity; x must not be a NaN.
inline uint32_t f32_to_bf16_rne(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}

} // namespace tw::emu::valu::mma_convert
