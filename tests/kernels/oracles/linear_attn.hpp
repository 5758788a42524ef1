#pragma once
// Reference of linear attention (issue 11, kernels/attention/linear_attn_api.hpp): the
// quadratic form in float64, written from the contract (no chunks, no state):
//   num_i = sum_{j <= i} w_ij v_j,  w_ij = scale * (q_i . k_j) * lambda^(i - j)
//   o_i = num_i, or num_i / (den_i + eps) with den_i = sum_{j <= i} w_ij.
// The result is [B * S * heads_q, Dv] (row (b * S + i) * heads_q + h). accum_magnitude is the
// error scale of a kernel that rounds each term once to the input dtype: sum |w_ij| |v_j|, and
// for the normalized form (that + |o_i| sum |w_ij|) / |den_i + eps|.
#include "../oracles.hpp"

#include <kernels/attention/linear_attn_api.hpp>

namespace tw::oracle {

inline Reference linear_attn(const kernels::LinearAttnArgs& a) {
  const std::vector<double> q = decode_flat(a.q), k = decode_flat(a.k), v = decode_flat(a.v);
  const int64_t B = a.q.shape[0], S = a.q.shape[1], H = a.q.shape[2], D = a.q.shape[3];
  const int64_t Hkv = a.k.shape[2], Dv = a.v.shape[3];
  const std::vector<double> lambda = a.decay ? decode_flat(*a.decay) : std::vector<double>{};
  const double scale = double(a.scale.value_or(float(1.0 / std::sqrt(double(D)))));
  const int64_t rows = B * S * H;
  Reference r{Matrix(rows, Dv), Matrix(rows, Dv), Matrix(rows, Dv)};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t hk = h / (H / Hkv);
      const double lam = a.decay ? lambda[size_t(h)] : 1.0;
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> num(size_t(Dv), 0.0), mag(size_t(Dv), 0.0);
        double den = 0, den_mag = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q[size_t(((b * S + i) * H + h) * D + d)] *
                   k[size_t(((b * S + j) * Hkv + hk) * D + d)];
          const double w = scale * dot * std::pow(lam, double(i - j));
          den += w;
          den_mag += std::abs(w);
          for (int64_t n = 0; n < Dv; ++n) {
            const double vj = v[size_t(((b * S + j) * Hkv + hk) * Dv + n)];
            num[size_t(n)] += w * vj;
            mag[size_t(n)] += std::abs(w * vj);
          }
        }
        const int64_t row = (b * S + i) * H + h;
        for (int64_t n = 0; n < Dv; ++n) {
          double o = num[size_t(n)], m = mag[size_t(n)];
          if (a.normalize) {
            const double z = den + double(a.eps);
            o /= z;
            m = (m + std::abs(o) * den_mag) / std::abs(z);
          }
          r.value.at(row, n) = o;
          r.accum_magnitude.at(row, n) = m;
        }
      }
    }
  return r;
}

} // namespace tw::oracle
