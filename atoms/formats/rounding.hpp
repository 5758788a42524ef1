#pragma once
// Rounding modes of the f32 -> narrow float conversions.
namespace tw::num {

enum class Rounding {
  nearest_even, // IEEE default; v_cvt_f16_f32 with the default MODE
  toward_zero,  // truncation; v_cvt_pk_rtz_f16_f32
  stochastic,   // round up with probability (discarded part / ulp), driven by given random bits
};

} // namespace tw::num
