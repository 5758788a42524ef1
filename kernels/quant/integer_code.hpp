#pragma once
// The integer code rule the quantizers share: y (an f32, already divided by the scale) rounded
// half to even, then clamped to [lo, hi], as an integer-valued f32.
#include <dsl/dsl.hpp>

namespace tw::kernels {

inline dsl::Float32 integer_code(const dsl::Float32& y, double lo, double hi) {
  using namespace tw::dsl;
  return min(max(round_half_even(y), Float32(lo)), Float32(hi));
}

} // namespace tw::kernels
