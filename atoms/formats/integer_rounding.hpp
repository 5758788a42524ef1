#pragma once
// f32 -> integer the way the quantizers need it: round half to even, then clamp to the
// target range. NaN -> 0 (as v_cvt_i32_f32 does); +-inf clamp like any large value.
#include <bit>
#include <cstdint>

namespace tw::num {

constexpr int round_half_even_clamped(float x, int lo, int hi) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return 0;
  // lo and hi are integers, so anything at or past them clamps before rounding; what is left
  // is small enough for an exact int conversion.
  if (x <= float(lo))
    return lo;
  if (x >= float(hi))
    return hi;
  int truncated = int(x);                  // toward zero
  const float frac = x - float(truncated); // exact: both share the same binade or less
  if (frac > 0.5f || (frac == 0.5f && (truncated & 1)))
    ++truncated;
  else if (frac < -0.5f || (frac == -0.5f && (truncated & 1)))
    --truncated;
  return truncated < lo ? lo : (truncated > hi ? hi : truncated);
}

} // namespace tw::num
