#pragma once
// Numeric references of the element-wise and normalization kernels (issue 12), in float64 on
// the exactly decoded inputs, with the same argument structs as the entry points
// (kernels/elementwise/elementwise_api.hpp) holding host views. Each returns the exact value
// before output rounding and, in accum_magnitude, the magnitude that bounds the error of a
// correct f32 computation (compare with Tolerance::for_output(out, terms)).
#include "../oracles.hpp"

#include <kernels/elementwise/elementwise_api.hpp>

namespace tw::oracle {

inline double silu(double x) {
  return x / (1.0 + std::exp(-x));
}

// A reference whose every element is fn(i, j); the error scale is |value| plus `floor`.
template <class Fn>
Reference elementwise_reference(int64_t rows, int64_t cols, Fn&& fn, double floor = 0.0) {
  Reference r{Matrix(rows, cols), Matrix(rows, cols), Matrix(rows, cols)};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      r.value.at(i, j) = fn(i, j);
      r.accum_magnitude.at(i, j) = std::abs(r.value.at(i, j)) + floor;
    }
  return r;
}

inline Reference silu(const kernels::SiluArgs& a) {
  const Matrix x = decode_matrix(a.x);
  return elementwise_reference(x.rows, x.cols,
                               [&](int64_t i, int64_t j) { return silu(x.at(i, j)); });
}

inline Reference swiglu(const kernels::SwigluArgs& a) {
  const Matrix g = decode_matrix(a.gate), u = decode_matrix(a.up);
  return elementwise_reference(g.rows, g.cols,
                               [&](int64_t i, int64_t j) { return silu(g.at(i, j)) * u.at(i, j); });
}

// RMSNorm (center = false) and LayerNorm (center = true).
inline Reference normalize(const kernels::NormArgs& a, bool center) {
  const Matrix x = decode_matrix(a.x);
  const std::vector<double> w = decode_flat(a.weight);
  const std::vector<double> b = a.bias ? decode_flat(*a.bias) : std::vector<double>(w.size(), 0.0);
  Reference r{Matrix(x.rows, x.cols), Matrix(x.rows, x.cols), Matrix(x.rows, x.cols)};
  for (int64_t i = 0; i < x.rows; ++i) {
    double mean = 0;
    if (center) {
      for (int64_t j = 0; j < x.cols; ++j)
        mean += x.at(i, j);
      mean /= double(x.cols);
    }
    double var = 0;
    for (int64_t j = 0; j < x.cols; ++j)
      var += (x.at(i, j) - mean) * (x.at(i, j) - mean);
    var /= double(x.cols);
    const double inv = 1.0 / std::sqrt(var + double(a.eps));
    for (int64_t j = 0; j < x.cols; ++j) {
      const double scaled = (x.at(i, j) - mean) * inv * w[size_t(j)];
      r.value.at(i, j) = scaled + b[size_t(j)];
      // f32 sums over the row: relative error of the statistics scales the normalized term.
      r.accum_magnitude.at(i, j) = std::abs(scaled) + std::abs(b[size_t(j)]);
    }
  }
  return r;
}
inline Reference rms_norm(const kernels::NormArgs& a) {
  return normalize(a, false);
}
inline Reference layer_norm(const kernels::NormArgs& a) {
  return normalize(a, true);
}

// RoPE on every head of x [tokens, heads * head_dim]; `norm` (weight, eps) first applies RMSNorm
// over each head (rms_norm_rope). theta = p * base^(-2i / d) in float64, or the cached values.
// The error scale of an output is (|x1| + |x2|) * (1 + theta): the f32 angle's error grows
// with theta.
inline Reference rope_reference(const TensorView& xv, const kernels::RopeParams& p,
                                const std::optional<std::vector<double>>& norm_weight = {},
                                double eps = 0) {
  const Matrix x = decode_matrix(xv);
  const int64_t d = p.head_dim, half = d / 2, heads = x.cols / d;
  const std::vector<double> pos_ids =
      p.positions ? decode_flat(*p.positions) : std::vector<double>{};
  const Matrix cc = p.cos ? decode_matrix(*p.cos) : Matrix(),
               sc = p.sin ? decode_matrix(*p.sin) : Matrix();
  Reference r{Matrix(x.rows, x.cols), Matrix(x.rows, x.cols), Matrix(x.rows, x.cols)};
  for (int64_t t = 0; t < x.rows; ++t) {
    const double pos = p.positions ? pos_ids[size_t(t)] : double(p.position_offset + t);
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = h * d;
      double inv = 1.0;
      if (norm_weight) {
        double ss = 0;
        for (int64_t j = 0; j < d; ++j)
          ss += x.at(t, base + j) * x.at(t, base + j);
        inv = 1.0 / std::sqrt(ss / double(d) + eps);
      }
      for (int64_t i = 0; i < half; ++i) {
        const bool neox = p.style == kernels::RopeStyle::neox;
        const int64_t j1 = neox ? i : 2 * i, j2 = neox ? i + half : 2 * i + 1;
        const double w1 = norm_weight ? (*norm_weight)[size_t(j1)] : 1.0;
        const double w2 = norm_weight ? (*norm_weight)[size_t(j2)] : 1.0;
        const double x1 = x.at(t, base + j1) * inv * w1, x2 = x.at(t, base + j2) * inv * w2;
        double c, s, theta;
        if (p.cos) {
          const int64_t row = std::clamp<int64_t>(int64_t(pos), 0, cc.rows - 1);
          c = cc.at(row, i);
          s = sc.at(row, i);
          theta = 0;
        } else {
          theta = pos * std::pow(double(p.base), -2.0 * double(i) / double(d));
          c = std::cos(theta);
          s = std::sin(theta);
        }
        r.value.at(t, base + j1) = x1 * c - x2 * s;
        r.value.at(t, base + j2) = x2 * c + x1 * s;
        const double mag = (std::abs(x1) + std::abs(x2)) * (1.0 + theta);
        r.accum_magnitude.at(t, base + j1) = mag;
        r.accum_magnitude.at(t, base + j2) = mag;
      }
    }
  }
  return r;
}

inline Reference rope(const kernels::RopeArgs& a) {
  return rope_reference(a.x, a.rope);
}
inline Reference rms_norm_rope(const kernels::RmsNormRopeArgs& a) {
  return rope_reference(a.x, a.rope, decode_flat(a.weight), double(a.eps));
}

// AdaLN: layer_norm(x) * (1 + scale) + shift.
inline Reference adaln(const kernels::AdaLnArgs& a) {
  const Matrix x = decode_matrix(a.x), sc = decode_matrix(a.scale), sh = decode_matrix(a.shift);
  Reference r{Matrix(x.rows, x.cols), Matrix(x.rows, x.cols), Matrix(x.rows, x.cols)};
  for (int64_t i = 0; i < x.rows; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < x.cols; ++j)
      mean += x.at(i, j);
    mean /= double(x.cols);
    for (int64_t j = 0; j < x.cols; ++j)
      var += (x.at(i, j) - mean) * (x.at(i, j) - mean);
    var /= double(x.cols);
    const double inv = 1.0 / std::sqrt(var + double(a.eps));
    for (int64_t j = 0; j < x.cols; ++j) {
      const double scaled = (x.at(i, j) - mean) * inv * (1.0 + sc.at(i, j));
      r.value.at(i, j) = scaled + sh.at(i, j);
      r.accum_magnitude.at(i, j) = std::abs(scaled) + std::abs(sh.at(i, j));
    }
  }
  return r;
}

} // namespace tw::oracle
