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
// The bias / mask is [Sq, Sk] or [Hq, Sq, Sk] indexed top-left [(h,) i, j] in every sequence
// (varlen: its rows and columns are the longest lengths; the kernels take it with dense queries
// over a paged cache, whose sequences this reference sees as varlen ones).
// A row that sees no key (every s_ij = -inf) has out 0 and lse -inf. Sq_b, Sk_b are the
// sequence's own lengths (dense: Sq, Sk). The softcap applies before the bias and ALiBi
// (flash-attn's order). The dropout mask is the Philox4x32-10 rule of
// /work/notes/attn_shared.md, implemented here independently of the DSL's philox.
//
// int8 inputs (docs/kernels.md "int8 attention"): the PV product reads P quantized to int8.
// Keys are taken in KV blocks of `int8_kv_block` keys aligned at multiples of it, split by
// split (split s of S covers [s*ceil(Sk/S), min(Sk, (s+1)*ceil(Sk/S)))), in increasing order;
// m_run is the running max of the row's scores over the split's blocks so far (this block
// included). Key j of that block enters PV as q_j = round_half_even(127 * exp(s_ij - m_run))
// (dropout: 0 when dropped), i.e. with the weight q_j / 127 * exp(m_run - m_i) / l_i (times
// 1 / (1 - p) when kept): out_i = sum_j weight_j * v_j * v_descale. l_i, m_i and lse stay those
// of the unquantized scores. A kernel computes exp(s - m_run) in f32, so a q_j whose 127 exp(..)
// lies within f32 noise of a half-integer may round either way: `p_rounding_ambiguity` holds
// per output element the sum over such keys of |weight change of one step| * |v_jd| * v_descale
// (a derived allowance, zero for the other keys and for float dtypes).
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
  Matrix p_rounding_ambiguity; // int8 only (see the header); else zeros
};

// Relative error bound of 127 * exp(s - m_run) as a kernel computes it in f32 from scores and
// a running max of magnitude s_abs, m_abs (natural-log units): the score path (products with
// sm_scale, descales and log2(e), softcap's tanh, bias, ALiBi: at most 16 f32 roundings of the
// exponent's terms), exp2 (a few ulp) and the two products with 127 and the dropout scales,
// each 2^-24 relative; the sum is then doubled.
inline double int8_p_relative_error(double s_abs, double m_abs) {
  constexpr double u = 0x1p-24;
  return 2.0 * (16.0 * u * (s_abs + m_abs) * 1.4426950408889634 * 0.6931471805599453 + 8.0 * u);
}

// The rows of a kernel's `out` (or any [B, Sq, Hq, Dv] / [Tq, Hq, Dv] view) in the layout of
// AttentionReference::out, and of its lse ([B, Hq, Sq] / [Hq, Tq]) in the layout of ::lse.
inline Matrix decode_attention_rows(const TensorView& t) {
  const int64_t cols = t.shape.back();
  Matrix m(cols > 0 ? t.numel() / cols : 0, cols);
  m.v = decode_flat(t);
  return m;
}

inline AttentionReference flash_attn(const kernels::FlashAttnArgs& args,
                                     int64_t int8_kv_block = 0) {
  const bool varlen = args.cu_seqlens_q.has_value();
  const TensorView& qv = args.q;
  const int tok = varlen ? 1 : 2; // the dimension of the token index within a sequence
  const int64_t hq = qv.shape[size_t(tok)], d = qv.shape.back();
  const int64_t hkv = args.k.shape[size_t(tok)], dv = args.v.shape.back();
  if (hkv == 0 || hq % hkv != 0)
    throw std::invalid_argument("oracle flash_attn: Hq must be a multiple of Hkv");
  const int64_t group = hq / hkv;
  const bool int8 = qv.dtype == DType::int8;
  if (int8 && (int8_kv_block <= 0 || args.num_splits < 1))
    throw std::invalid_argument("oracle flash_attn: int8 inputs need the kernel's KV block "
                                "(int8_kv_block) and an explicit num_splits >= 1: P's "
                                "quantization follows them");

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
  int64_t bias_rows = 0, bias_cols = 0; // [(Hq,) rows, cols], indexed [(h,) i, j]
  if (args.bias) {
    bias = decode_flat(*args.bias);
    bias_per_head = args.bias->rank() == 3;
    bias_rows = args.bias->shape[args.bias->rank() - 2];
    bias_cols = args.bias->shape.back();
  }
  if (args.alibi_slopes)
    slopes = decode_flat(*args.alibi_slopes);

  const int64_t total_q = varlen ? qv.shape[0] : qv.shape[0] * qv.shape[1];
  AttentionReference r;
  r.out = Reference{Matrix(total_q * hq, dv), Matrix(total_q * hq, dv), Matrix(total_q * hq, dv)};
  r.lse = varlen ? Matrix(hq, total_q) : Matrix(qv.shape[0] * hq, qv.shape[1]);
  r.p_rounding_ambiguity = Matrix(total_q * hq, dv);

  const double scale = args.sm_scale != 0.0f ? double(args.sm_scale) : 1.0 / std::sqrt(double(d));
  const double qk_descale = double(args.q_descale) * double(args.k_descale);
  const double ninf = -std::numeric_limits<double>::infinity();
  const double keep_scale = 1.0 / (1.0 - double(args.dropout_p));
  std::vector<double> s, weight, ambiguity;
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
              args.bias ? bias[size_t(((bias_per_head ? h * bias_rows : 0) + i) * bias_cols + j)]
                        : 0.0;
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
        // weight_j: what P_ij is in the PV product (before dropout)
        weight.assign(size_t(sk), 0.0);
        ambiguity.assign(size_t(sk), 0.0);
        if (!int8) {
          for (int64_t j = 0; j < sk; ++j)
            weight[size_t(j)] = std::exp(s[size_t(j)] - m) / l;
        } else {
          const int64_t per = (sk + args.num_splits - 1) / args.num_splits;
          for (int64_t lo = 0; lo < sk; lo += per) {
            const int64_t hi = std::min(sk, lo + per);
            double m_run = ninf;
            for (int64_t blk = lo / int8_kv_block * int8_kv_block; blk < hi; blk += int8_kv_block) {
              const int64_t j0 = std::max(lo, blk), j1 = std::min(hi, blk + int8_kv_block);
              for (int64_t j = j0; j < j1; ++j)
                m_run = std::max(m_run, s[size_t(j)]);
              if (m_run == ninf)
                continue;
              const double back = std::exp(m_run - m) / (127.0 * l); // one quantization step
              for (int64_t j = j0; j < j1; ++j) {
                const double x = 127.0 * std::exp(s[size_t(j)] - m_run);
                weight[size_t(j)] = std::nearbyint(x) * back; // ties to even
                const double slack =
                    x * int8_p_relative_error(std::abs(s[size_t(j)]), std::abs(m_run));
                if (std::abs(x - std::floor(x) - 0.5) <= slack)
                  ambiguity[size_t(j)] = back;
              }
            }
          }
        }
        for (int64_t j = 0; j < sk; ++j) {
          double p = weight[size_t(j)], amb = ambiguity[size_t(j)];
          if (args.dropout_p > 0.0f) {
            const uint64_t idx = uint64_t(((int64_t(b) * hq + h) * idx_sq + i) * idx_sk + j);
            const bool keep =
                dropout_keep(args.dropout_seed, args.dropout_offset, args.dropout_p, idx);
            p = keep ? p * keep_scale : 0.0;
            amb = keep ? amb * keep_scale : 0.0;
          }
          if (p == 0.0 && amb == 0.0)
            continue;
          const int64_t tk = k_begin[b] + j;
          for (int64_t e = 0; e < dv; ++e) {
            const double vd = v[size_t((tk * hkv + kh) * dv + e)] * double(args.v_descale);
            r.out.value.at(row, e) += p * vd;
            r.out.accum_magnitude.at(row, e) += std::abs(p * vd);
            r.p_rounding_ambiguity.at(row, e) += amb * std::abs(vd);
          }
        }
      }
    }
  }
  return r;
}

} // namespace tw::oracle
