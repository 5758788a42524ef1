#pragma once
// What the flash attention kernel tests share: a case description, random exactly-representable
// inputs, the launch through launch_flash_attn on the memcheck emulator with both emitters, and
// the comparison against a float64 reference of the contract (shared/KERNELS.md "Attention"):
// softmax(Q K^T * sm_scale [softcapped] + bias + alibi, masked) V on the decoded inputs.
#include "gemm_harness.hpp"

#include <kernels/attention/flash_attn_launch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tw::oracle::attention_test {

struct Case {
  DType dtype = DType::bf16, out = DType::bf16;
  int64_t batch = 1, sq = 17, sk = 17, hq = 1, hkv = 1, d = 64, dv = 64;
  bool causal = false;
  int64_t left = -1, right = -1;
  float softcap = 0.0f;
  kernels::AttnBiasKind bias = kernels::AttnBiasKind::none;
  DType bias_dtype = DType::f32;
  bool bias_per_head = false;
  kernels::FlashAttnProblem::Alibi alibi = kernels::FlashAttnProblem::Alibi::none;
  bool lse = false;
  std::vector<int32_t> cu_q, cu_k; // varlen when not empty
  int num_splits = 1;
  float q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f;
  uint64_t seed = 1;

  bool varlen() const { return !cu_q.empty(); }
  std::string describe() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s B=%lld Sq=%lld Sk=%lld Hq=%lld Hkv=%lld D=%lld Dv=%lld",
                  std::string(kernels::dtype_name(dtype)).c_str(), (long long)batch, (long long)sq,
                  (long long)sk, (long long)hq, (long long)hkv, (long long)d, (long long)dv);
    return buf;
  }
};

struct Inputs {
  HostTensor q, k, v, bias, slopes, cu_q, cu_k;
};

inline Inputs make_inputs(const Case& c) {
  Inputs in;
  const bool vl = c.varlen();
  const int64_t tq = vl ? c.cu_q.back() : 0, tk = vl ? c.cu_k.back() : 0;
  const Extents qs = vl ? Extents{tq, c.hq, c.d} : Extents{c.batch, c.sq, c.hq, c.d};
  const Extents ks = vl ? Extents{tk, c.hkv, c.d} : Extents{c.batch, c.sk, c.hkv, c.d};
  const Extents vs = vl ? Extents{tk, c.hkv, c.dv} : Extents{c.batch, c.sk, c.hkv, c.dv};
  in.q = random_tensor(c.dtype, qs, c.seed * 3 + 1);
  in.k = random_tensor(c.dtype, ks, c.seed * 3 + 2);
  in.v = random_tensor(c.dtype, vs, c.seed * 3 + 3);
  if (c.bias != kernels::AttnBiasKind::none) {
    const Extents bs = c.bias_per_head ? Extents{c.hq, c.sq, c.sk} : Extents{c.sq, c.sk};
    if (c.bias == kernels::AttnBiasKind::bool_mask)
      in.bias = random_tensor(c.bias_dtype, bs, c.seed * 7 + 5, ValueRange{0, 1});
    else
      in.bias = random_tensor(c.bias_dtype, bs, c.seed * 7 + 5, ValueRange{-2, 2});
  }
  if (c.alibi == kernels::FlashAttnProblem::Alibi::per_head)
    in.slopes = random_tensor(DType::f32, {c.hq}, c.seed * 11 + 1, ValueRange{0.01, 0.5});
  if (vl) {
    in.cu_q = HostTensor(DType::i32, {int64_t(c.cu_q.size())});
    in.cu_k = HostTensor(DType::i32, {int64_t(c.cu_k.size())});
    for (size_t i = 0; i < c.cu_q.size(); ++i) {
      in.cu_q.set({int64_t(i)}, c.cu_q[i]);
      in.cu_k.set({int64_t(i)}, c.cu_k[i]);
    }
  }
  return in;
}

inline constexpr float scalar_alibi_slope = 0.25f;

// The float64 reference. out [rows = (b, i, h) flattened like the output tensor, Dv], lse per
// (b, h, i). Varlen: b is the sequence, rows follow the packed token order.
struct Expected {
  std::vector<double> out;                    // same element order as the output tensor
  std::vector<double> lse;                    // dense [B, Hq, Sq]; varlen [Hq, Tq]
  std::vector<double> m_part, l_part, o_part; // split partials [S, B, Hq, Sq(, Dv)]
};

inline Expected reference(const Case& c, const Inputs& in) {
  const bool vl = c.varlen();
  const int64_t nb = vl ? int64_t(c.cu_q.size()) - 1 : c.batch;
  const int64_t tq = vl ? c.cu_q.back() : c.batch * c.sq;
  const double scale = 1.0 / std::sqrt(double(c.d));
  const double inf = std::numeric_limits<double>::infinity();
  const int64_t msq = c.sq; // vl: max_seqlen_q is c.sq
  Expected e;
  e.out.assign(size_t(tq * c.hq * c.dv), 0.0);
  e.lse.assign(size_t(vl ? c.hq * tq : c.batch * c.hq * c.sq), -inf);
  const int S = c.num_splits;
  if (S > 1) {
    e.m_part.assign(size_t(S * nb * c.hq * msq), -inf);
    e.l_part.assign(size_t(S * nb * c.hq * msq), 0.0);
    e.o_part.assign(size_t(S * nb * c.hq * msq * c.dv), 0.0);
  }
  const double qd = c.q_descale, kd = c.k_descale, vd = c.v_descale;
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t q0 = vl ? c.cu_q[size_t(b)] : 0, k0 = vl ? c.cu_k[size_t(b)] : 0;
    const int64_t sq = vl ? c.cu_q[size_t(b) + 1] - q0 : c.sq;
    const int64_t sk = vl ? c.cu_k[size_t(b) + 1] - k0 : c.sk;
    const auto qat = [&](int64_t i, int64_t h, int64_t x) {
      return vl ? in.q.at({q0 + i, h, x}) : in.q.at({b, i, h, x});
    };
    const auto kat = [&](int64_t j, int64_t h, int64_t x) {
      return vl ? in.k.at({k0 + j, h, x}) : in.k.at({b, j, h, x});
    };
    const auto vat = [&](int64_t j, int64_t h, int64_t x) {
      return vl ? in.v.at({k0 + j, h, x}) : in.v.at({b, j, h, x});
    };
    for (int64_t h = 0; h < c.hq; ++h) {
      const int64_t hk = h / (c.hq / c.hkv);
      const double slope = c.alibi == kernels::FlashAttnProblem::Alibi::scalar ? scalar_alibi_slope
                           : c.alibi == kernels::FlashAttnProblem::Alibi::per_head
                               ? in.slopes.at({h})
                               : 0.0;
      for (int64_t i = 0; i < sq; ++i) {
        std::vector<double> s(size_t(sk), -inf);
        const int64_t o = i + sk - sq;
        const int64_t left = c.left,
                      right =
                          c.causal ? (c.right >= 0 ? std::min<int64_t>(c.right, 0) : 0) : c.right;
        for (int64_t j = 0; j < sk; ++j) {
          if ((left >= 0 && j < o - left) || (right >= 0 && j > o + right))
            continue;
          double dot = 0;
          for (int64_t x = 0; x < c.d; ++x)
            dot += qat(i, h, x) * qd * kat(j, hk, x) * kd;
          double sc = dot * scale;
          if (c.softcap > 0)
            sc = std::tanh(sc / c.softcap) * c.softcap;
          sc += -slope * double(std::llabs(o - j));
          if (c.bias != kernels::AttnBiasKind::none) {
            const double bv = c.bias_per_head ? in.bias.at({h, i, j}) : in.bias.at({i, j});
            if (c.bias == kernels::AttnBiasKind::bool_mask) {
              if (bv == 0)
                continue;
            } else {
              sc += bv;
            }
          }
          s[size_t(j)] = sc;
        }
        const auto softmax_into = [&](int64_t lo, int64_t hi, double& m, double& l,
                                      std::vector<double>& acc) {
          m = -inf;
          for (int64_t j = lo; j < hi; ++j)
            m = std::max(m, s[size_t(j)]);
          l = 0;
          acc.assign(size_t(c.dv), 0.0);
          if (m == -inf)
            return;
          for (int64_t j = lo; j < hi; ++j) {
            const double p = std::exp(s[size_t(j)] - m);
            l += p;
            for (int64_t x = 0; x < c.dv; ++x)
              acc[size_t(x)] += p * vat(j, hk, x) * vd;
          }
        };
        double m, l;
        std::vector<double> acc;
        softmax_into(0, sk, m, l, acc);
        const int64_t row = vl ? (q0 + i) * c.hq + h : (b * c.sq + i) * c.hq + h;
        for (int64_t x = 0; x < c.dv; ++x)
          e.out[size_t(row * c.dv + x)] = l > 0 ? acc[size_t(x)] / l : 0.0;
        const double lse = l > 0 ? m + std::log(l) : -inf;
        e.lse[size_t(vl ? h * tq + q0 + i : (b * c.hq + h) * c.sq + i)] = lse;
        if (S > 1) {
          const int64_t per = (sk + S - 1) / S;
          for (int sp = 0; sp < S; ++sp) {
            const int64_t lo = std::min(sk, sp * per), hi = std::min(sk, (sp + 1) * per);
            double ms, ls;
            std::vector<double> as;
            softmax_into(lo, hi, ms, ls, as);
            const int64_t r = ((sp * nb + b) * c.hq + h) * msq + i;
            e.m_part[size_t(r)] = ms;
            e.l_part[size_t(r)] = ls;
            for (int64_t x = 0; x < c.dv; ++x)
              e.o_part[size_t(r * c.dv + x)] = as[size_t(x)];
          }
        }
      }
    }
  }
  return e;
}

// The tolerance of one output element: P is rounded to the operand dtype before P V (relative
// 2^-8 bf16, 2^-11 f16, 2^-4 e4m3, 2^-3 e5m2 of sum |p v| / l <= max |v|), plus one ulp of
// the output and the f32 sums.
inline double p_rounding(DType t) {
  switch (t) {
  case DType::bf16:
    return 0x1p-8;
  case DType::f16:
    return 0x1p-10;
  case DType::e4m3:
    return 0x1p-3;
  case DType::e5m2:
    return 0x1p-2;
  default:
    return 0x1p-6;
  }
}

// The decoded elements of a device view (row-major order of `host`, which has its shape).
inline std::vector<double> download_flat(runtime::Device& d, const TensorView& v,
                                         HostTensor& host) {
  if (!host.bytes().empty())
    d.copy_to_host(host.bytes().data(), v.device_address, host.bytes().size());
  return decode_flat(host.view());
}

inline kernels::FlashAttnProblem problem_of(const Case& c) {
  kernels::FlashAttnProblem p;
  p.dtype = c.dtype;
  p.out_dtype = c.out;
  p.batch = c.varlen() ? int64_t(c.cu_q.size()) - 1 : c.batch;
  p.seqlen_q = c.sq;
  p.seqlen_k = c.sk;
  p.heads_q = c.hq;
  p.heads_kv = c.hkv;
  p.head_dim = c.d;
  p.head_dim_v = c.dv;
  p.varlen = c.varlen();
  p.sm_scale = float(1.0 / std::sqrt(double(c.d)));
  p.causal = c.causal;
  p.window_left = c.left;
  p.window_right = c.right;
  p.bias_kind = c.bias;
  p.bias_per_head = c.bias_per_head;
  p.alibi = c.alibi;
  p.softcap = c.softcap;
  p.return_lse = c.lse;
  p.num_splits = c.num_splits;
  return p;
}

// Runs the case with both emitters on the memcheck emulator and checks out (and lse, and the
// split partials) against the float64 reference.
inline void run_case(const Case& c) {
  CAPTURE(c.describe());
  const Inputs in = make_inputs(c);
  const Expected want = reference(c, in);
  runtime::EmuDevice& dev = emu_device();
  for_each_backend([&](emit::Backend) {
    DeviceTensors dt(dev);
    kernels::FlashAttnArgs a;
    a.q = dt.upload(in.q);
    a.k = dt.upload(in.k);
    a.v = dt.upload(in.v);
    const bool vl = c.varlen();
    const int64_t tq = vl ? c.cu_q.back() : 0;
    HostTensor out(c.out, vl ? Extents{tq, c.hq, c.dv} : Extents{c.batch, c.sq, c.hq, c.dv});
    a.out = dt.upload(out);
    HostTensor lse(DType::f32, vl ? Extents{c.hq, tq} : Extents{c.batch, c.hq, c.sq});
    if (c.lse)
      a.lse = dt.upload(lse);
    if (c.bias != kernels::AttnBiasKind::none) {
      a.bias = dt.upload(in.bias);
      a.bias_kind = c.bias;
    }
    if (c.alibi == kernels::FlashAttnProblem::Alibi::scalar)
      a.alibi_slope = scalar_alibi_slope;
    if (c.alibi == kernels::FlashAttnProblem::Alibi::per_head)
      a.alibi_slopes = dt.upload(in.slopes);
    if (vl) {
      a.cu_seqlens_q = dt.upload(in.cu_q);
      a.cu_seqlens_k = dt.upload(in.cu_k);
      a.max_seqlen_q = c.sq;
      a.max_seqlen_k = c.sk;
    }
    a.causal = c.causal;
    a.window_left = c.left;
    a.window_right = c.right;
    a.softcap = c.softcap;
    a.q_descale = c.q_descale;
    a.k_descale = c.k_descale;
    a.v_descale = c.v_descale;
    a.num_splits = c.num_splits;
    const kernels::FlashAttnProblem p = problem_of(c);
    namespace fk = kernels::flash_attn_kernel;
    const int S = c.num_splits;
    const int64_t nb = p.batch;
    HostTensor o_part(DType::f32, {S * nb * c.hq * c.sq * c.dv}),
        m_part(DType::f32, {S * nb * c.hq * c.sq}), l_part(DType::f32, {S * nb * c.hq * c.sq});
    if (S > 1) {
      // The split kernel alone: partials into a workspace (the combine is tested elsewhere).
      fk::FlashAttnLaunchArgs g = fk::launch_args_of(a, p);
      const TensorView op = dt.upload(o_part), mp = dt.upload(m_part), lp = dt.upload(l_part);
      g.o_part = op.device_address;
      g.m_part = mp.device_address;
      g.l_part = lp.device_address;
      fk::run_flash_attn_kernel(dev, fk::spec_of(a, p), g);
      const auto check = [&](const TensorView& v, HostTensor& host, const std::vector<double>& w,
                             double rel, const char* what) {
        const auto got = download_flat(dev, v, host);
        int64_t bad = 0;
        for (size_t n = 0; n < w.size(); ++n) {
          const bool both_inf = std::isinf(w[n]) && got[n] == w[n];
          if (!both_inf && !(std::abs(got[n] - w[n]) <= rel * (1 + std::abs(w[n]))))
            if (bad++ < 3)
              MESSAGE(what << "[" << n << "]: got " << got[n] << ", want " << w[n]);
        }
        CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << w.size() << " outside tolerance");
      };
      // Only rows inside each sequence are written: compare m / l / o there.
      std::vector<double> wm = want.m_part, wl = want.l_part, wo = want.o_part;
      check(mp, m_part, wm, 1e-5, "m_part");
      check(lp, l_part, wl, 1e-4, "l_part");
      check(op, o_part, wo, p_rounding(c.dtype) * double(c.sk), "o_part");
      return;
    }
    kernels::launch_flash_attn(dev, a, p);
    const auto got = download_flat(dev, a.out, out);
    double vmax = 0;
    for (double x : decode_flat(in.v.view()))
      vmax = std::max(vmax, std::abs(x) * c.v_descale);
    int64_t bad = 0;
    for (size_t n = 0; n < want.out.size(); ++n) {
      const double w = want.out[n];
      const double tol = ulp(c.out, w) + p_rounding(c.dtype) * vmax + 1e-5;
      if (!(std::abs(got[n] - w) <= tol))
        if (bad++ < 3)
          MESSAGE("out[" << n << "] (row " << n / size_t(c.dv) << ", col " << n % size_t(c.dv)
                         << "): got " << got[n] << ", want " << w << ", tolerance " << tol);
    }
    CHECK_MESSAGE(bad == 0, "out: " << bad << " of " << want.out.size() << " outside tolerance");
    if (c.lse) {
      const auto gl = download_flat(dev, *a.lse, lse);
      int64_t lbad = 0;
      for (size_t n = 0; n < want.lse.size(); ++n) {
        const double w = want.lse[n];
        const bool ok =
            std::isinf(w) ? gl[n] == w : std::abs(gl[n] - w) <= 1e-4 * (1 + std::abs(w));
        if (!ok && lbad++ < 3)
          MESSAGE("lse[" << n << "]: got " << gl[n] << ", want " << w);
      }
      CHECK_MESSAGE(lbad == 0, "lse: " << lbad << " of " << want.lse.size() << " wrong");
    }
  });
}

} // namespace tw::oracle::attention_test
