#pragma once
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011; the Random123 library's philox4x32 with 10 rounds): a counter-based RNG, so every
// lane computes the random bits of its own element from (counter, key) with no state and no
// communication. 10 rounds of two 32x32 -> 64-bit multiplies (v_mul_hi_u32 + v_mul_lo_u32).
//
//   auto r = philox4x32_10(philox_counter(g, offset), philox_key(seed));   // 4 x UInt32
//   Bool keep = dropout_keep(r[w], dropout_threshold(p));                  // r_w >= p * 2^32
//   Float32 u = uniform01(r[0]);                                            // in [0, 1)
//
// With constant inputs the whole function folds on the host (the same code as in a kernel).
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

using PhiloxCounter = std::array<UInt32, 4>;
using PhiloxKey = std::array<UInt32, 2>;

namespace detail {
// Round multipliers and Weyl key increments of Philox4x32 (Random123, philox.h).
inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

inline PhiloxCounter philox_round(const PhiloxCounter& c, const PhiloxKey& k) {
  const UInt32 m0(kPhiloxM0), m1(kPhiloxM1);
  const UInt32 hi0 = mul_hi(m0, c[0]), lo0 = m0 * c[0];
  const UInt32 hi1 = mul_hi(m1, c[2]), lo1 = m1 * c[2];
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}
} // namespace detail

// The 4 x 32 random bits of Philox4x32 with 10 rounds for `counter` (word 0 first) and `key`.
inline std::array<UInt32, 4> philox4x32_10(const PhiloxCounter& counter, const PhiloxKey& key) {
  PhiloxCounter c = counter;
  PhiloxKey k = key;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) // the key schedule: bumped by the Weyl constants before rounds 2..10
      k = {k[0] + UInt32(detail::kPhiloxW0), k[1] + UInt32(detail::kPhiloxW1)};
    c = detail::philox_round(c, k);
  }
  return c;
}

// The counter (lo32(a), hi32(a), lo32(b), hi32(b)) of two 64-bit words, e.g. an element group
// index and a user offset (the attention dropout convention, see KERNELS.md).
inline PhiloxCounter philox_counter(const UInt64& a, const UInt64& b) {
  return {cast<u32>(a), cast<u32>(a >> 32), cast<u32>(b), cast<u32>(b >> 32)};
}
// The key (lo32(seed), hi32(seed)).
inline PhiloxKey philox_key(const UInt64& seed) {
  return {cast<u32>(seed), cast<u32>(seed >> 32)};
}

// Dropout with probability p drops an element whose 32 random bits r are below
// uint32(floor(p * 2^32)); p must be in [0, 1) (p = 0 keeps everything).
inline std::uint32_t dropout_threshold(double p) {
  if (!(p >= 0.0 && p < 1.0))
    throw std::invalid_argument("dropout_threshold: p = " + std::to_string(p) +
                                " must be in [0, 1)");
  return static_cast<std::uint32_t>(std::floor(std::ldexp(p, 32)));
}
// True when the element with random bits r is kept: r >= threshold (unsigned).
inline Bool dropout_keep(const UInt32& r, const UInt32& threshold) {
  return r >= threshold;
}

// A uniform float in [0, 1) from 32 random bits: the top 24 bits times 2^-24 (exact in f32,
// so every value is a multiple of 2^-24 and 1.0 is never reached).
inline Float32 uniform01(const UInt32& r) {
  return cast<f32>(r >> 8) * Float32(0x1p-24);
}

} // namespace tw::dsl
