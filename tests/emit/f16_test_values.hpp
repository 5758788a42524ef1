#pragma once
// Deterministic test operands for the emulator runs of tests/emit: f16 values in [-1, 1) from
// a linear congruential sequence (as bits, with their decoded values for host references), and
// small integers exact in every format.
#include <atoms/formats/f16.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tw::test {

inline std::vector<std::uint16_t> f16_values(std::size_t n, std::uint32_t seed,
                                             std::vector<double>& decoded) {
  std::vector<std::uint16_t> v(n);
  decoded.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = num::f32_to_f16(static_cast<float>(seed >> 8) / 8388608.0f - 1.0f);
    decoded[i] = num::f16_to_f32(v[i]);
  }
  return v;
}

// A small integer in [-4, 4] for element (r, c) of operand `salt`: exact in every 8- and
// 16-bit format, so a host reference needs no rounding model.
inline double small_int_value(int r, int c, int salt) {
  return static_cast<double>((r * 5 + c * 3 + salt * 7) % 9 - 4);
}

} // namespace tw::test
