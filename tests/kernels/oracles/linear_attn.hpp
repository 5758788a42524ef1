#pragma once
// Reference of linear attention (issue 11, kernels/attention/linear_attn_api.hpp): the
// quadratic form in float64, written from the contract (no chunks, no state):
//   num_i = sum_{j <= i} w_ij v_j,  w_ij = scale * (q_i . k_j) * lambda^(i - j)
//   o_i = num_i, or num_i / (den_i + eps) with den_i = sum_{j <= i} w_ij.
// The result is [B * S * heads_q, Dv] (row (b * S + i) * heads_q + h); varlen (cu_seqlens):
// [T * heads_q, Dv], row t * heads_q + h for packed token t, each sequence its own recurrence
// (rows of tokens past the last sequence stay 0). accum_magnitude is the
// error scale of a kernel that rounds each term once to the input dtype: sum |w_ij| |v_j|, and
// for the normalized form (that + |o_i| sum |w_ij|) / |den_i + eps|.
#include "../oracles.hpp"

#include <kernels/attention/linear_attn_api.hpp>

namespace tw::oracle {

inline Reference linear_attn(const kernels::LinearAttnArgs& a) {
  const std::vector<double> q = decode_flat(a.q), k = decode_flat(a.k), v = decode_flat(a.v);
  const bool varlen = a.cu_seqlens.has_value();
  const int hx = varlen ? 1 : 2;
  const int64_t H = a.q.shape[size_t(hx)], D = a.q.shape.back();
  const int64_t Hkv = a.k.shape[size_t(hx)], Dv = a.v.shape.back();
  // Sequences: first packed token and length (dense: b * S, S).
  std::vector<int64_t> first, length;
  int64_t tokens = 0;
  if (varlen) {
    const std::vector<double> cu = decode_flat(*a.cu_seqlens);
    for (size_t b = 0; b + 1 < cu.size(); ++b) {
      first.push_back(int64_t(cu[b]));
      length.push_back(int64_t(cu[b + 1] - cu[b]));
    }
    tokens = a.q.shape[0];
  } else {
    for (int64_t b = 0; b < a.q.shape[0]; ++b) {
      first.push_back(b * a.q.shape[1]);
      length.push_back(a.q.shape[1]);
    }
    tokens = a.q.shape[0] * a.q.shape[1];
  }
  const int64_t B = int64_t(first.size());
  const std::vector<double> lambda = a.decay ? decode_flat(*a.decay) : std::vector<double>{};
  const double scale = double(a.scale.value_or(float(1.0 / std::sqrt(double(D)))));
  const int64_t rows = tokens * H;
  Reference r{Matrix(rows, Dv), Matrix(rows, Dv), Matrix(rows, Dv)};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t hk = h / (H / Hkv);
      const double lam = a.decay ? lambda[size_t(h)] : 1.0;
      const int64_t t0 = first[size_t(b)], S = length[size_t(b)];
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> num(size_t(Dv), 0.0), mag(size_t(Dv), 0.0);
        double den = 0, den_mag = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q[size_t(((t0 + i) * H + h) * D + d)] * k[size_t(((t0 + j) * Hkv + hk) * D + d)];
          const double w = scale * dot * std::pow(lam, double(i - j));
          den += w;
          den_mag += std::abs(w);
          for (int64_t n = 0; n < Dv; ++n) {
            const double vj = v[size_t(((t0 + j) * Hkv + hk) * Dv + n)];
            num[size_t(n)] += w * vj;
            mag[size_t(n)] += std::abs(w * vj);
          }
        }
        const int64_t row = (t0 + i) * H + h;
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
