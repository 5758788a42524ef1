#pragma once
// Transcendental helpers of element-wise kernels, on Float32, built from the IR's hardware
// exp2 and IEEE division:
//   exp(x)      = exp2(x * log2(e))           (v_exp_f32: about 1 ulp of f32)
//   sigmoid(x)  = 1 / (1 + exp(-x))           (exp(-x) = inf gives 0; no NaN for any finite x)
//   silu(x)     = x / (1 + exp(-x))           (x * sigmoid(x) with one division)
#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

inline Float32 exp(const Float32& x) {
  return exp2(x * Float32(1.4426950408889634));
}

inline Float32 sigmoid(const Float32& x) {
  return Float32(1.0) / (Float32(1.0) + exp(-x));
}

inline Float32 silu(const Float32& x) {
  return x / (Float32(1.0) + exp(-x));
}

} // namespace tw::dsl
