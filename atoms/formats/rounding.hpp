#pragma once
// Rounding modes of the conversions to narrower formats.
namespace tw::num {

enum class Rounding {
  nearest_even,    // IEEE default; v_cvt_f16_f32 with the default MODE
  toward_zero,     // truncation; v_cvt_pk_rtz_f16_f32, or MODE round = 3
  toward_positive, // MODE round = 1 (+inf)
  toward_negative, // MODE round = 2 (-inf)
  stochastic,      // f32 sources only: random bits added under the discarded bits (fp8.hpp)
};

} // namespace tw::num
