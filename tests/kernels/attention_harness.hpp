#pragma once
// What the flash attention kernel tests share: a case description, random exactly-representable
// inputs, the run through kernels::flash_attn (validation, split choice, launch, split-KV
// combine) on the memcheck emulator with both emitters, and the comparison against the
// float64 oracle (tests/kernels/oracles/attention.hpp) on the decoded inputs.
#include "gemm_harness.hpp"

#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/attention/flash_attn_kernel.hpp>

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
  float dropout_p = 0.0f;
  uint64_t dropout_seed = 0, dropout_offset = 0;
  uint64_t seed = 1;
  int query_tile = 0; // FlashAttnArgs::query_tile (0: the default)

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

// The relative rounding of P to the PV operand dtype (bf16 2^-9, f16 2^-11, e4m3 2^-4, e5m2
// 2^-3), doubled for the f32 sums and the exp2 approximation. int8: the oracle applies P's
// quantization rule itself (and allows the ambiguous roundings separately), so what remains is
// the f32 error of l and of O's block sums, at most int8_p_relative_error(60, 60) < 2^-12 for
// scores and row maxima of magnitude <= 60 (the int8 tests' scores stay far below).
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
  case DType::int8:
    return 0x1p-12;
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

// The arguments of a case over `view` (host views for the oracle, device views for the kernel).
template <class View>
kernels::FlashAttnArgs args_of(const Case& c, const Inputs& in, HostTensor& out, HostTensor& lse,
                               View&& view) {
  kernels::FlashAttnArgs a;
  a.q = view(in.q);
  a.k = view(in.k);
  a.v = view(in.v);
  a.out = view(out);
  if (c.lse)
    a.lse = view(lse);
  if (c.bias != kernels::AttnBiasKind::none) {
    a.bias = view(in.bias);
    a.bias_kind = c.bias;
  }
  if (c.alibi == kernels::FlashAttnProblem::Alibi::scalar)
    a.alibi_slope = scalar_alibi_slope;
  if (c.alibi == kernels::FlashAttnProblem::Alibi::per_head)
    a.alibi_slopes = view(in.slopes);
  if (c.varlen()) {
    a.cu_seqlens_q = view(in.cu_q);
    a.cu_seqlens_k = view(in.cu_k);
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
  a.dropout_p = c.dropout_p;
  a.dropout_seed = c.dropout_seed;
  a.dropout_offset = c.dropout_offset;
  a.query_tile = c.query_tile;
  return a;
}

// Compares a run's out (and lse when the case asks) on `dev` against the oracle: per element
// one ulp of the output plus the P rounding times sum_j |P_ij v_jd|. Returns out's bytes.
inline std::vector<uint8_t> check_outputs(const Case& c, const AttentionReference& want,
                                          runtime::Device& dev, const kernels::FlashAttnArgs& a,
                                          HostTensor& out, HostTensor& lse) {
  const auto got = download_flat(dev, a.out, out);
  const Matrix& w = want.out.value;
  int64_t bad = 0;
  for (int64_t r = 0; r < w.rows; ++r)
    for (int64_t x = 0; x < w.cols; ++x) {
      const double wv = w.at(r, x), g = got[size_t(r * w.cols + x)];
      const double tol = ulp(c.out, wv) + p_rounding(c.dtype) * want.out.accum_magnitude.at(r, x) +
                         want.p_rounding_ambiguity.at(r, x) + 1e-6;
      if (!(std::abs(g - wv) <= tol) && bad++ < 3)
        MESSAGE("out row " << r << " col " << x << ": got " << g << ", want " << wv
                           << ", tolerance " << tol);
    }
  CHECK_MESSAGE(bad == 0, "out: " << bad << " of " << w.rows * w.cols << " outside tolerance");
  if (c.lse) {
    const auto gl = download_flat(dev, *a.lse, lse);
    int64_t lbad = 0;
    for (size_t n = 0; n < want.lse.v.size(); ++n) {
      const double wv = want.lse.v[n];
      const bool ok =
          std::isinf(wv) ? gl[n] == wv : std::abs(gl[n] - wv) <= 1e-4 * (1 + std::abs(wv));
      if (!ok && lbad++ < 3)
        MESSAGE("lse[" << n << "]: got " << gl[n] << ", want " << wv);
    }
    CHECK_MESSAGE(lbad == 0, "lse: " << lbad << " of " << want.lse.v.size() << " wrong");
  }
  return out.bytes();
}

// Runs the case with both emitters on the memcheck emulator and checks out (and lse) against
// the oracle (check_outputs). Returns the output bytes of the last run (reproducibility checks).
inline std::vector<uint8_t> run_case(const Case& c) {
  CAPTURE(c.describe());
  CAPTURE(c.num_splits);
  CAPTURE(c.query_tile);
  const Inputs in = make_inputs(c);
  const bool vl = c.varlen();
  const int64_t tq = vl ? c.cu_q.back() : 0;
  const Extents out_shape = vl ? Extents{tq, c.hq, c.dv} : Extents{c.batch, c.sq, c.hq, c.dv};
  const Extents lse_shape = vl ? Extents{c.hq, tq} : Extents{c.batch, c.hq, c.sq};
  HostTensor ref_out(c.out, out_shape), ref_lse(DType::f32, lse_shape);
  kernels::flash_attn_kernel::FlashAttnKernelSpec spec;
  spec.dtype = c.dtype;
  const AttentionReference want =
      flash_attn(args_of(c, in, ref_out, ref_lse, [](const HostTensor& t) { return t.view(); }),
                 c.dtype == DType::int8 ? kernels::flash_attn_kernel::kv_block(spec) : 0);
  runtime::EmuDevice& dev = emu_device();
  std::vector<uint8_t> last;
  for_each_backend([&](emit::Backend) {
    DeviceTensors dt(dev);
    HostTensor out(c.out, out_shape), lse(DType::f32, lse_shape);
    const kernels::FlashAttnArgs a =
        args_of(c, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
    kernels::flash_attn(dev, a);
    last = check_outputs(c, want, dev, a, out, lse);
  });
  return last;
}

} // namespace tw::oracle::attention_test
