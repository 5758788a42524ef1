#pragma once
// The float64 reference of flash attention forward (kernels/attention/flash_attn_api.hpp),
// included from tests/kernels/oracles.hpp. It takes the kernel's FlashAttnArgs with host
// views, decodes every element exactly and computes, per batch (or varlen sequence) b,
// query head h (kv head h / (Hq / Hkv)), query row i and key j of the sequence:
//
//   s_ij = (sum_d q_id * q_descale * k_jd * k_descale) * sm_scale    (sm_scale 0: 1/sqrt(D))
//   s_ij = softcap * tanh(s_ij / softcap)                              (softcap > 0)
//   s_ij += bias[(h,) i, j]                                            (additive bias)
//   s_ij += -slope_h * |i + Sk_b - Sq_b - j|                           (ALiBi)
//   s_ij = -inf when a mask hides key j from row i: causal (j > o), window (j < o - left or
//          j > o + right), bool mask == 0, with o = i + Sk_b - Sq_b (bottom-right origin)
//   m_i = max_j s_ij, l_i = sum_j exp(s_ij - m_i), lse_i = m_i + log(l_i)
//   P_ij = exp(s_ij - m_i) / l_i, then dropout: P_ij * keep_ij / (1 - p)
//   out_i = sum_j P_ij * v_j * v_descale
// A row that sees no key (every s_ij = -inf) has out 0 and lse -inf. Sq_b, Sk_b are the
// sequence's own lengths (dense: Sq, Sk). The softcap applies before the bias and ALiBi
// (flash-attn's order). The dropout mask is the Philox4x32-10 rule of
// /work/notes/attn_shared.md, implemented here independently of the DSL's philox.
#include <kernels/attention/flash_attn_api.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace tw::oracle {

// ---- Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32 with 10 rounds) ----------

// One block of four 32-bit words from a 128-bit counter and a 64-bit key.
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                             std::array<uint32_t, 2> key) {
  constexpr uint32_t mul0 = 0xD2511F53u, mul1 = 0xCD9E8D57u;   // round multipliers
  constexpr uint32_t bump0 = 0x9E3779B9u, bump1 = 0xBB67AE85u; // Weyl key schedule
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += bump0;
      key[1] += bump1;
    }
    const uint64_t p0 = uint64_t(mul0) * counter[0], p1 = uint64_t(mul1) * counter[2];
    counter = {uint32_t(p1 >> 32) ^ counter[1] ^ key[0], uint32_t(p1),
               uint32_t(p0 >> 32) ^ counter[3] ^ key[1], uint32_t(p0)};
  }
  return counter;
}

// The keep threshold of dropout probability p: uint32(floor(p * 2^32)).
inline uint32_t dropout_threshold(float p) {
  return uint32_t(std::floor(double(p) * 4294967296.0));
}

// Whether element `idx` = ((b*Hq + h)*SQ + i)*SK + j survives dropout (attn_shared.md).
inline bool dropout_keep(uint64_t seed, uint64_t offset, float p, uint64_t idx) {
  const uint64_t group = idx / 4;
  const std::array<uint32_t, 4> r = philox4x32_10(
      {uint32_t(group), uint32_t(group >> 32), uint32_t(offset), uint32_t(offset >> 32)},
      {uint32_t(seed), uint32_t(seed >> 32)});
  return r[idx % 4] >= dropout_threshold(p);
}

// ---- the reference ------------------------------------------------------------------------

// out: one row per (token, query head) in the memory order of `out`'s logical index, i.e.
// row (b*Sq + i)*Hq + h (dense) or t*Hq + h (varlen token t), Dv columns. Its
// accum_magnitude is sum_j |P_ij * v_jd| (after dropout), the scale of the PV sum's error.
// lse: [B*Hq, Sq] (dense, row b*Hq + h) or [Hq, Tq] (varlen): the shape of args.lse.
// Varlen tokens past cu_seqlens_q[B] belong to no sequence: their rows and lse stay 0.
struct AttentionReference {
  Reference out;
  Matrix lse;
};

// The rows of a kernel's `out` (or any [B, Sq, Hq, Dv] / [Tq, Hq, Dv] view) in the layout of
// AttentionReference::out, and of its lse ([B, Hq, Sq] / [Hq, Tq]) in the layout of ::lse.
inline Matrix decode_attention_rows(const TensorView& t) {
  const int64_t cols = t.shape.back();
  Matrix m(cols > 0 ? t.numel() / cols : 0, cols);
  m.v = decode_flat(t);
  return m;
}

inline AttentionReference flash_attn(const kernels::FlashAttnArgs& args) {
  const bool varlen = args.cu_seqlens_q.has_value();
  const TensorView& qv = args.q;
  const int tok = varlen ? 1 : 2; // the dimension of the token index within a sequence
  const int64_t hq = qv.shape[size_t(tok)], d = qv.shape.back();
  const int64_t hkv = args.k.shape[size_t(tok)], dv = args.v.shape.back();
  if (hkv == 0 || hq % hkv != 0)
    throw std::invalid_argument("oracle flash_attn: Hq must be a multiple of Hkv");
  const int64_t group = hq / hkv;

  // Sequences: [q_begin, q_begin + sq) and [k_begin, k_begin + sk) token ranges.
  std::vector<int64_t> q_begin, q_len, k_begin, k_len;
  int64_t idx_sq = 0, idx_sk = 0; // SQ, SK of the dropout index
  if (varlen) {
    const std::vector<double> cq = decode_flat(*args.cu_seqlens_q);
    const std::vector<double> ck = decode_flat(*args.cu_seqlens_k);
    for (size_t b = 0; b + 1 < cq.size(); ++b) {
      q_begin.push_back(int64_t(cq[b]));
      q_len.push_back(int64_t(cq[b + 1] - cq[b]));
      k_begin.push_back(int64_t(ck[b]));
      k_len.push_back(int64_t(ck[b + 1] - ck[b]));
    }
    idx_sq = args.max_seqlen_q;
    idx_sk = args.max_seqlen_k;
    if (args.bias)
      throw std::invalid_argument("oracle flash_attn: bias / mask is dense only");
  } else {
    const int64_t batch = qv.shape[0], sq = qv.shape[1], sk = args.k.shape[1];
    for (int64_t b = 0; b < batch; ++b) {
      q_begin.push_back(b * sq);
      q_len.push_back(sq);
      k_begin.push_back(b * sk);
      k_len.push_back(sk);
    }
    idx_sq = sq;
    idx_sk = sk;
  }
  // Flat decoded inputs: token-major (dense [B, S] flattens to B*S tokens).
  const std::vector<double> q = decode_flat(qv), k = decode_flat(args.k), v = decode_flat(args.v);
  std::vector<double> bias, slopes;
  bool bias_per_head = false;
  if (args.bias) {
    bias = decode_flat(*args.bias);
    bias_per_head = args.bias->rank() == 3;
  }
  if (args.alibi_slopes)
    slopes = decode_flat(*args.alibi_slopes);

  const int64_t total_q = varlen ? qv.shape[0] : qv.shape[0] * qv.shape[1];
  AttentionReference r;
  r.out = Reference{Matrix(total_q * hq, dv), Matrix(total_q * hq, dv), Matrix(total_q * hq, dv)};
  r.lse = varlen ? Matrix(hq, total_q) : Matrix(qv.shape[0] * hq, qv.shape[1]);

  const double scale = args.sm_scale != 0.0f ? double(args.sm_scale) : 1.0 / std::sqrt(double(d));
  const double qk_descale = double(args.q_descale) * double(args.k_descale);
  const double ninf = -std::numeric_limits<double>::infinity();
  const double keep_scale = 1.0 / (1.0 - double(args.dropout_p));
  std::vector<double> s;
  for (size_t b = 0; b < q_begin.size(); ++b) {
    const int64_t sq = q_len[b], sk = k_len[b];
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kh = h / group;
      const double slope = args.alibi_slope    ? double(*args.alibi_slope)
                           : args.alibi_slopes ? slopes[size_t(h)]
                                               : 0.0;
      for (int64_t i = 0; i < sq; ++i) {
        const int64_t tq = q_begin[b] + i, origin = i + sk - sq;
        s.assign(size_t(sk), ninf);
        double m = ninf;
        for (int64_t j = 0; j < sk; ++j) {
          const int64_t tk = k_begin[b] + j;
          if (args.causal && j > origin)
            continue;
          if (args.window_left >= 0 && j < origin - args.window_left)
            continue;
          if (args.window_right >= 0 && j > origin + args.window_right)
            continue;
          const double bias_ij =
              args.bias ? bias[size_t(((bias_per_head ? h * sq : 0) + i) * sk + j)] : 0.0;
          if (args.bias_kind == kernels::AttnBiasKind::bool_mask && bias_ij == 0.0)
            continue;
          double x = 0;
          for (int64_t e = 0; e < d; ++e)
            x += q[size_t((tq * hq + h) * d + e)] * k[size_t((tk * hkv + kh) * d + e)];
          x *= qk_descale * scale;
          if (args.softcap > 0.0f)
            x = double(args.softcap) * std::tanh(x / double(args.softcap));
          if (args.bias_kind == kernels::AttnBiasKind::additive)
            x += bias_ij;
          x -= slope * double(std::abs(origin - j));
          s[size_t(j)] = x;
          m = std::max(m, x);
        }
        double& lse = varlen ? r.lse.at(h, tq) : r.lse.at(int64_t(b) * hq + h, i);
        const int64_t row = tq * hq + h;
        if (m == ninf) { // no key visible: out stays 0
          lse = ninf;
          continue;
        }
        double l = 0;
        for (double x : s)
          l += std::exp(x - m);
        lse = m + std::log(l);
        for (int64_t j = 0; j < sk; ++j) {
          double p = std::exp(s[size_t(j)] - m) / l;
          if (args.dropout_p > 0.0f) {
            const uint64_t idx = uint64_t(((int64_t(b) * hq + h) * idx_sq + i) * idx_sk + j);
            p = dropout_keep(args.dropout_seed, args.dropout_offset, args.dropout_p, idx)
                    ? p * keep_scale
                    : 0.0;
          }
          if (p == 0.0)
            continue;
          const int64_t tk = k_begin[b] + j;
          for (int64_t e = 0; e < dv; ++e) {
            const double term = p * v[size_t((tk * hkv + kh) * dv + e)] * double(args.v_descale);
            r.out.value.at(row, e) += term;
            r.out.accum_magnitude.at(row, e) += std::abs(term);
          }
        }
      }
    }
  }
  return r;
}

} // namespace tw::oracle
