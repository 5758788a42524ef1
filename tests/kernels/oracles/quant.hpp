#pragma once
// Numeric references of the quantization kernels (issue 12), on the exactly decoded inputs.
// Integer codes are exact: the references model the kernels' f32 arithmetic (IEEE division,
// round half to even), which the contract specifies, and the tests also check the result
// against the exact real-number bound (within half a code).
#include "../oracles.hpp"

#include <kernels/quant/quant_api.hpp>

#include <cfenv>

namespace tw::oracle {

// The int8 code of x / s in f32: round half to even, clamp to [-128, 127].
inline double int8_code(float x, float s) {
  const float y = x / s;
  return std::clamp(double(std::nearbyint(y)), -128.0, 127.0);
}

// s = amax / 127 in f32, 1 for an all-zero set.
inline float int8_absmax_scale(float amax) {
  return amax == 0.0f ? 1.0f : amax / 127.0f;
}

struct Int8Quantized {
  Matrix codes;              // [rows, K]
  std::vector<double> scale; // one (tensorwise) or one per row
};

inline Int8Quantized quant_int8(const kernels::QuantInt8Args& a) {
  const Matrix x = decode_matrix(a.x);
  Int8Quantized r{Matrix(x.rows, x.cols), {}};
  const bool rowwise = a.granularity == kernels::QuantGranularity::rowwise;
  if (a.given_scale) {
    const float g = *a.given_scale;
    r.scale = {std::copysign(std::max(std::abs(g), 1e-30f), g)};
  } else if (!rowwise) {
    float amax = 0;
    for (double v : x.v)
      amax = std::max(amax, float(std::abs(v)));
    r.scale = {int8_absmax_scale(amax)};
  } else {
    for (int64_t i = 0; i < x.rows; ++i) {
      float amax = 0;
      for (int64_t j = 0; j < x.cols; ++j)
        amax = std::max(amax, float(std::abs(x.at(i, j))));
      r.scale.push_back(int8_absmax_scale(amax));
    }
  }
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < x.cols; ++j)
      r.codes.at(i, j) = int8_code(float(x.at(i, j)), float(scale_at(r.scale, i)));
  return r;
}

// FP8 dequantization: x * s in float64 (the kernel rounds the f32 product once more).
inline Reference dequant_fp8(const kernels::DequantFp8Args& a) {
  const Matrix x = decode_matrix(a.x);
  const std::vector<double> s = decode_flat(a.scale);
  Reference r{Matrix(x.rows, x.cols), Matrix(x.rows, x.cols), Matrix(x.rows, x.cols)};
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < x.cols; ++j) {
      r.value.at(i, j) = x.at(i, j) * scale_at(s, i);
      r.accum_magnitude.at(i, j) = std::abs(r.value.at(i, j));
    }
  return r;
}

// AWQ dequantization: (q - zeros[k / G]) * scales[k / G], exact in float64.
inline Reference dequant_awq(const kernels::DequantAwqArgs& a) {
  const Matrix q = decode_matrix(a.qweight), z = decode_matrix(a.zeros),
               s = decode_matrix(a.scales);
  Reference r{Matrix(q.rows, q.cols), Matrix(q.rows, q.cols), Matrix(q.rows, q.cols)};
  for (int64_t k = 0; k < q.rows; ++k)
    for (int64_t n = 0; n < q.cols; ++n) {
      const int64_t g = k / a.group_size;
      r.value.at(k, n) = (q.at(k, n) - z.at(g, n)) * s.at(g, n);
      r.accum_magnitude.at(k, n) = std::abs(r.value.at(k, n));
    }
  return r;
}

} // namespace tw::oracle
