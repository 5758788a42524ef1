#pragma once
// sin and cos of an f32 angle (the IR has no trigonometric op; RoPE computes its rotation in
// the kernel):
//   auto [s, c] = sincos(theta);
// Reduction: k = round_half_even(x * 2 / pi), r = x - k * pi / 2 with pi / 2 split into three
// f32 parts (Cody-Waite, each step one fma), so r is accurate for |x| up to about 2^17; then
// the classic minimax polynomials of sin and cos on [-pi/4, pi/4] and the quadrant k mod 4
// picks and signs them. A few ulp of f32 in that range (tests/emit/test_run_dsl_ops.cpp).
#include <dsl/handles/convert.hpp>

#include <numbers>

namespace tw::dsl {

struct SinCos {
  Float32 sin, cos;
};

inline SinCos sincos(const Float32& x) {
  constexpr double half_pi = std::numbers::pi / 2;
  constexpr float c1 = static_cast<float>(half_pi);
  constexpr float c2 = static_cast<float>(half_pi - double(c1));
  constexpr float c3 = static_cast<float>(half_pi - double(c1) - double(c2));
  const Float32 k = round_half_even(x * Float32(2.0 / std::numbers::pi));
  Float32 r = fma(-k, Float32(c1), x);
  r = fma(-k, Float32(c2), r);
  r = fma(-k, Float32(c3), r);
  const Float32 r2 = r * r;
  // sin(r) = r + r^3 * p(r^2), cos(r) = 1 - r^2 / 2 + r^4 * q(r^2) on [-pi/4, pi/4].
  const Float32 p = fma(fma(Float32(-1.9515295891e-4), r2, Float32(8.3321608736e-3)), r2,
                        Float32(-1.6666654611e-1));
  const Float32 s = fma(r * r2, p, r);
  const Float32 q = fma(fma(Float32(2.443315711809948e-5), r2, Float32(-1.388731625493765e-3)), r2,
                        Float32(4.166664568298827e-2));
  const Float32 c = fma(r2 * r2, q, fma(r2, Float32(-0.5), Float32(1.0)));
  const Int32 quadrant = cast<i32>(k) & 3; // two's complement: also right for negative k
  const Bool swap = (quadrant & 1) == 1;
  const Float32 sin_abs = select(swap, c, s), cos_abs = select(swap, s, c);
  const Float32 sin_v = select(quadrant >= 2, -sin_abs, sin_abs);
  const Float32 cos_v = select(quadrant == 1 || quadrant == 2, -cos_abs, cos_abs);
  return {sin_v, cos_v};
}

} // namespace tw::dsl
