#pragma once
// Reference of quant QK-norm (issue 11, kernels/attention/qk_norm_quant_api.hpp), written from
// the contract in float64: RMSNorm over each head, RoPE on its tail, the head's abs-max scale
// and each element's code. A code is the rounding of y / s to the code dtype; where the exact
// y / s lies within `boundary` (relative) of a rounding boundary, an f32 kernel may land on
// either side, so both neighbouring codes are listed.
#include "../oracles.hpp"

#include <kernels/attention/qk_norm_quant_api.hpp>

namespace tw::oracle {

struct QkNormQuantReference {
  Matrix y;                                 // normalized and rotated values, x's shape
  std::vector<double> scale;                // [tokens * heads], s = amax / qmax (1 when 0)
  std::vector<std::vector<uint32_t>> codes; // per element of y (row-major): the allowed codes
};

// The code of v in `codes` (RNE; int8 clamps, fp8 saturates), as its bit pattern.
inline uint32_t code_bits(DType codes, double v) {
  if (codes == DType::int8)
    return uint8_t(int8_t(std::clamp(std::nearbyint(v), -128.0, 127.0)));
  // Through f32 first: only a value within an f32 step of an fp8 boundary can round
  // differently, and the caller's boundary slack lists both codes there.
  const float f = float(v);
  return codes == DType::e4m3 ? num::f32_to_e4m3(f, num::Saturate::yes)
                              : num::f32_to_e5m2(f, num::Saturate::yes);
}

// x: [tokens, heads * head_dim]; weight: [head_dim]; rope as for qk_norm_quant (rope.head_dim
// 0 = the whole head).
inline QkNormQuantReference qk_norm_quant(const TensorView& xv, const TensorView& weight,
                                          int64_t head_dim, kernels::RopeParams rope, double eps,
                                          DType codes, double boundary = 1e-5) {
  const Matrix x = decode_matrix(xv);
  const std::vector<double> w = decode_flat(weight);
  if (rope.head_dim == 0)
    rope.head_dim = head_dim;
  const int64_t d = head_dim, r = rope.head_dim, half = r / 2, nope = d - r, heads = x.cols / d;
  const std::vector<double> pos_ids =
      rope.positions ? decode_flat(*rope.positions) : std::vector<double>{};
  const Matrix cc = rope.cos ? decode_matrix(*rope.cos) : Matrix(),
               sc = rope.sin ? decode_matrix(*rope.sin) : Matrix();
  const double qmax = quant_max(codes);
  QkNormQuantReference out{Matrix(x.rows, x.cols), {}, {}};
  for (int64_t t = 0; t < x.rows; ++t) {
    const double pos = rope.positions ? pos_ids[size_t(t)] : double(rope.position_offset + t);
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = h * d;
      double ss = 0;
      for (int64_t j = 0; j < d; ++j)
        ss += x.at(t, base + j) * x.at(t, base + j);
      const double inv = 1.0 / std::sqrt(ss / double(d) + eps);
      for (int64_t j = 0; j < d; ++j)
        out.y.at(t, base + j) = x.at(t, base + j) * inv * w[size_t(j)];
      for (int64_t i = 0; i < half; ++i) {
        const bool neox = rope.style == kernels::RopeStyle::neox;
        const int64_t j1 = base + nope + (neox ? i : 2 * i),
                      j2 = base + nope + (neox ? i + half : 2 * i + 1);
        double c, s;
        if (rope.cos) {
          const int64_t row = std::clamp<int64_t>(int64_t(pos), 0, cc.rows - 1);
          c = cc.at(row, i);
          s = sc.at(row, i);
        } else {
          const double theta = pos * std::pow(double(rope.base), -2.0 * double(i) / double(r));
          c = std::cos(theta);
          s = std::sin(theta);
        }
        const double x1 = out.y.at(t, j1), x2 = out.y.at(t, j2);
        out.y.at(t, j1) = x1 * c - x2 * s;
        out.y.at(t, j2) = x2 * c + x1 * s;
      }
      double amax = 0;
      for (int64_t j = 0; j < d; ++j)
        amax = std::max(amax, std::abs(out.y.at(t, base + j)));
      out.scale.push_back(amax == 0 ? 1.0 : amax / qmax);
    }
  }
  for (int64_t t = 0; t < x.rows; ++t)
    for (int64_t j = 0; j < x.cols; ++j) {
      const double v = out.y.at(t, j) / out.scale[size_t(t * heads + j / d)];
      std::vector<uint32_t> allowed = {code_bits(codes, v)};
      for (double e : {-boundary, boundary}) {
        const uint32_t near = code_bits(codes, v * (1.0 + e));
        if (std::find(allowed.begin(), allowed.end(), near) == allowed.end())
          allowed.push_back(near);
      }
      out.codes.push_back(allowed);
    }
  return out;
}

} // namespace tw::oracle
