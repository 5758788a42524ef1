#pragma once
// Numeric references of the quantization kernels (issue 12), on the exactly decoded inputs.
// Integer codes are exact: the references model the kernels' f32 arithmetic (IEEE division,
// round half to even), which the contract specifies, and the tests also check the result
// against the exact real-number bound (within half a code).
#include "../oracles.hpp"
#include "attention.hpp" // the host Philox4x32-10

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

// ---- stochastic rounding f32 -> fp8 (docs/kernels.md "quant_fp8_stochastic") --------------

// The 32 random bits of element e: word e % 4 of Philox4x32-10 at counter (e / 4, offset),
// key seed.
inline uint32_t fp8_stochastic_bits(uint64_t e, uint64_t seed, uint64_t offset) {
  const uint64_t g = e / 4;
  return philox4x32_10({uint32_t(g), uint32_t(g >> 32), uint32_t(offset), uint32_t(offset >> 32)},
                       {uint32_t(seed), uint32_t(seed >> 32)})[e % 4];
}

// The value of a finite non-negative fp8 magnitude code (OCP e4m3fn: bias 7, 3 mantissa bits;
// e5m2: bias 15, 2 mantissa bits), from the format's definition.
inline double fp8_magnitude_value(uint32_t code, bool e5m2) {
  const int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const int e = int(code >> m), mant = int(code & ((1u << m) - 1));
  return e == 0 ? std::ldexp(mant, 1 - bias - m) : std::ldexp((1 << m) + mant, e - bias - m);
}

// The code of finite x rounded stochastically with random bits r, saturating: the two
// neighbours lo <= |x| < lo + ulp on the target grid; the part of |x| past lo, counted in
// units of x's own f32 ulp (rem, below 2^shift), rounds up when rem + (r mod 2^shift)
// reaches 2^shift (so with probability rem / 2^shift for uniform r; more than 32 bits below
// the grid, never). Past the largest finite value: the largest finite code.
inline uint8_t fp8_stochastic_code(float x, uint32_t r, bool e5m2) {
  const int m = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const uint32_t max_code = e5m2 ? 0x7b : 0x7e;
  const double max_finite = fp8_magnitude_value(max_code, e5m2);
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::abs(double(x));
  if (a == 0)
    return sign;
  const int log2a = std::ilogb(a);
  const int grid_exp = std::max(log2a, 1 - bias) - m; // the target ulp is 2^grid_exp
  const int x_ulp_exp = std::max(log2a, -126) - 23;   // x's f32 ulp
  const double lo = std::ldexp(std::floor(std::ldexp(a, -grid_exp)), grid_exp);
  double v = lo;
  const int shift = grid_exp - x_ulp_exp;
  if (lo != a && shift <= 32) {
    const uint64_t rem = uint64_t(std::ldexp(a - lo, -x_ulp_exp));
    const uint64_t mask = (uint64_t{1} << shift) - 1;
    if (rem + (uint64_t(r) & mask) > mask)
      v = lo + std::ldexp(1.0, grid_exp);
  }
  if (v >= max_finite)
    return uint8_t(sign | max_code);
  for (uint32_t c = 0; c < max_code; ++c)
    if (fp8_magnitude_value(c, e5m2) == v)
      return uint8_t(sign | c);
  throw std::logic_error("fp8_stochastic_code: no fp8 code for a grid value");
}

// Codes of quant_fp8_stochastic over x [rows, K] (element e = row * K + col).
inline std::vector<uint8_t> quant_fp8_stochastic(const Matrix& x, bool e5m2, uint64_t seed,
                                                 uint64_t offset) {
  std::vector<uint8_t> codes;
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < x.cols; ++j)
      codes.push_back(fp8_stochastic_code(
          float(x.at(i, j)), fp8_stochastic_bits(uint64_t(i * x.cols + j), seed, offset), e5m2));
  return codes;
}

} // namespace tw::oracle
