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

// ---- 4-bit quantizers (quant_svdquant, quant_w4a8; docs/kernels.md) -----------------------

// The codes, scales and zero points the f32 rules give, written independently of the kernels:
// per row and group the statistics of the decoded elements, the scale as stored (round_to),
// then each code from that stored scale.
struct Int4Quantized {
  Matrix codes;                  // [rows, K]: int4 in [-8, 7] or uint4 in [0, 15]
  Matrix group_scale;            // [rows, groups]: s (svdquant) or r_g (w4a8 modes 1, 2)
  std::vector<double> row_scale; // w4a8: s (mode 0) or S (modes 1, 2)
  Matrix zeros, correction;      // mode 2
  Matrix used;                   // [rows, groups] the scale the codes use (mode 0: one group)
};

// group_size 0: the whole row is one group (w4a8 mode 0). `stored`: dtype the group scale is
// stored in; two_level: r_g = s_g / S stored, s' = r_g * S used.
inline Int4Quantized int4_quantize(const Matrix& x, int64_t group_size, bool asymmetric,
                                   bool two_level, DType stored) {
  const int64_t g = group_size == 0 ? std::max<int64_t>(x.cols, 1) : group_size;
  const int64_t groups = group_size == 0 ? 1 : (x.cols + g - 1) / g;
  Int4Quantized r{Matrix(x.rows, x.cols), Matrix(x.rows, groups), {},
                  Matrix(x.rows, groups), Matrix(x.rows, groups), Matrix(x.rows, groups)};
  for (int64_t i = 0; i < x.rows; ++i) {
    std::vector<float> s_g(static_cast<size_t>(groups)), lo(static_cast<size_t>(groups));
    for (int64_t b = 0; b < groups; ++b) {
      float amax = 0, mn = 0, mx = 0;
      for (int64_t j = b * g; j < std::min(x.cols, (b + 1) * g); ++j) {
        const float v = float(x.at(i, j));
        amax = std::max(amax, std::abs(v));
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
      lo[size_t(b)] = mn;
      s_g[size_t(b)] = asymmetric ? (mx - mn) / 15.0f : amax / 7.0f;
    }
    float row = 1.0f;
    if (two_level) {
      const float top = *std::max_element(s_g.begin(), s_g.end());
      row = top == 0.0f ? 1.0f : top / 448.0f;
      r.row_scale.push_back(row);
    }
    for (int64_t b = 0; b < groups; ++b) {
      const float st = float(round_to(stored, two_level ? s_g[size_t(b)] / row : s_g[size_t(b)]));
      const float used = two_level ? st * row : st;
      r.group_scale.at(i, b) = st;
      r.used.at(i, b) = used;
      float z = 0;
      if (asymmetric && used != 0.0f)
        z = std::clamp(std::nearbyint(-lo[size_t(b)] / used), 0.0f, 15.0f);
      r.zeros.at(i, b) = z;
      r.correction.at(i, b) = z * used;
      for (int64_t j = b * g; j < std::min(x.cols, (b + 1) * g); ++j)
        r.codes.at(i, j) = used == 0.0f
                               ? 0.0
                               : std::clamp(double(std::nearbyint(float(x.at(i, j)) / used)) + z,
                                            asymmetric ? 0.0 : -8.0, asymmetric ? 15.0 : 7.0);
    }
    if (group_size == 0)
      r.row_scale.push_back(r.used.at(i, 0));
  }
  return r;
}

inline Int4Quantized quant_svdquant(const kernels::QuantSvdquantArgs& a) {
  return int4_quantize(decode_matrix(a.x), a.group_size, false, false, a.x.dtype);
}

inline Int4Quantized quant_w4a8(const kernels::QuantW4a8Args& a) {
  return int4_quantize(decode_matrix(a.x), a.mode == 0 ? 0 : a.group_size, a.mode == 2, a.mode != 0,
                       a.mode == 0 ? DType::f32 : a.group_scale->dtype);
}

// ---- int8 ConvRot (quant_convrot) --------------------------------------------------------

struct ConvrotReference {
  Matrix rotated;                // [rows, Kp]: the exact rotation of the zero-filled rows
  std::vector<double> scale;     // amax / 127 of each rotated row (1 when all zero)
  std::vector<double> f32_error; // per row: a bound of the f32 butterfly's error on y
};

// y = x_padded (H_n / sqrt(n)) per group, H_n[i][k] = (-1)^popcount(i & k), as the matrix
// product in float64 (not a butterfly).
inline ConvrotReference quant_convrot(const kernels::QuantConvrotArgs& a) {
  const Matrix x = decode_matrix(a.x);
  const int64_t n = kernels::convrot_group(x.cols, a.group_size);
  const int64_t width = kernels::convrot_width(x.cols, a.group_size);
  ConvrotReference r{Matrix(x.rows, width), {}, {}};
  const double norm = 1.0 / std::sqrt(double(n));
  for (int64_t i = 0; i < x.rows; ++i) {
    double amax = 0, worst_group = 0;
    for (int64_t b = 0; b < width / n; ++b) {
      double magnitude = 0;
      for (int64_t c = 0; c < n; ++c) {
        const int64_t col = b * n + c;
        magnitude += col < x.cols ? std::abs(x.at(i, col)) : 0.0;
        double y = 0;
        for (int64_t kk = 0; kk < n && b * n + kk < x.cols; ++kk)
          y += (std::popcount(uint64_t(c & kk)) % 2 ? -1.0 : 1.0) * x.at(i, b * n + kk);
        r.rotated.at(i, col) = y * norm;
        amax = std::max(amax, std::abs(y * norm));
      }
      worst_group = std::max(worst_group, magnitude);
    }
    r.scale.push_back(amax == 0 ? 1.0 : amax / 127.0);
    // log2(n) f32 additions per output, each within 2^-24 of a partial bounded by the
    // group's sum of |x|, then the normalizing product.
    r.f32_error.push_back((std::log2(double(n)) + 2) * 0x1p-24 * worst_group * norm);
  }
  return r;
}

} // namespace tw::oracle
