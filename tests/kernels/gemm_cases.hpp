#pragma once
// The case runners of the GEMM-family kernel tests, shared by the normal tests
// (test_gemm_f16.cpp, test_gemm_scaled.cpp, test_gemm_iu4.cpp) and the slow sweep
// (slow/test_gemm_sweep.cpp). Each builds random, exactly representable host inputs from a seed,
// computes the float64 oracle, then runs the kernel through the host API on the emulator (memcheck
// on) once per backend (for_each_backend: HIP and LLVM emitters) and compares within the accuracy
// contract; integer results (iu4_gemm) exactly.
#include "gemm_harness.hpp"

#include <kernels/gemm/gemm_api.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <vector>

namespace tw::oracle {

// ---- gemm (f16 / bf16) -------------------------------------------------------------------

struct GemmCase {
  int64_t m, n, k;
  DType in = DType::f16, out = DType::f32;
  bool a_col = false, b_col = false; // column-major a / b
  bool bias = false, beta = false;
  float alpha = 1.0f;
};

inline Extents col_strides(int64_t rows, int64_t cols) {
  (void)cols;
  return {1, std::max<int64_t>(rows, 1)};
}

inline void run_gemm(const GemmCase& c, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(kernels::dtype_name(c.in));
  CAPTURE(kernels::dtype_name(c.out));
  CAPTURE(c.a_col);
  CAPTURE(c.b_col);
  const HostTensor a = random_tensor(c.in, {c.m, c.k}, seed, std::nullopt,
                                     c.a_col ? col_strides(c.m, c.k) : Extents{});
  const HostTensor b = random_tensor(c.in, {c.k, c.n}, seed + 1, std::nullopt,
                                     c.b_col ? col_strides(c.k, c.n) : Extents{});
  const HostTensor cin = random_tensor(c.out, {c.m, c.n}, seed + 2);
  const HostTensor bias = random_tensor(c.out, {c.n}, seed + 3);
  const HostTensor host_out(c.out, {c.m, c.n});
  kernels::GemmArgs host{a.view(), b.view(), host_out.view()};
  host.alpha = c.alpha;
  if (c.beta) {
    host.c = cin.view();
    host.beta = -0.5f;
  }
  if (c.bias)
    host.bias = bias.view();
  const Reference want = gemm(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(c.out, {c.m, c.n});
    kernels::GemmArgs args{d.upload(a), d.upload(b), d.upload(out)};
    args.alpha = host.alpha;
    args.beta = host.beta;
    if (c.beta)
      args.c = d.upload(cin);
    if (c.bias)
      args.bias = d.upload(bias);
    kernels::gemm(dev, args);
    const Matrix got = DeviceTensors::download(dev, args.out, out);
    const CompareResult r = compare(got, want, Tolerance::for_output(c.out, c.k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

// ---- scaled_mm, int8_linear ---------------------------------------------------------------

struct ScaledCase {
  int64_t m, n, k;
  DType a = DType::e4m3, b = DType::e4m3, out = DType::bf16;
  bool rowwise_a = false, rowwise_b = true, bias = false;
};

inline HostTensor scale_tensor(int64_t n, bool rowwise, uint64_t seed, ValueRange r = {0.25, 2.0}) {
  return random_tensor(DType::f32, {rowwise ? n : 1}, seed, r);
}

inline void run_scaled_mm(const ScaledCase& c, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(kernels::dtype_name(c.a));
  CAPTURE(kernels::dtype_name(c.b));
  CAPTURE(kernels::dtype_name(c.out));
  const HostTensor a = random_tensor(c.a, {c.m, c.k}, seed);
  const HostTensor b = random_tensor(c.b, {c.k, c.n}, seed + 1, std::nullopt,
                                     kernels::column_major_strides({c.k, c.n}));
  const HostTensor sa = scale_tensor(c.m, c.rowwise_a, seed + 2);
  const HostTensor sb = scale_tensor(c.n, c.rowwise_b, seed + 3);
  const HostTensor bias = random_tensor(c.out, {c.n}, seed + 4);
  const HostTensor host_out(c.out, {c.m, c.n});
  kernels::ScaledMmArgs host{a.view(), b.view(), sa.view(), sb.view(), host_out.view()};
  if (c.bias)
    host.bias = bias.view();
  const Reference want = scaled_mm(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(c.out, {c.m, c.n});
    kernels::ScaledMmArgs args{d.upload(a), d.upload(b), d.upload(sa), d.upload(sb), d.upload(out)};
    if (c.bias)
      args.bias = d.upload(bias);
    kernels::scaled_mm(dev, args);
    const CompareResult r = compare(DeviceTensors::download(dev, args.out, out), want,
                                    Tolerance::for_output(c.out, c.k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

struct Int8Case {
  int64_t m, n, k;
  DType out = DType::f32;
  bool rowwise_x = true, rowwise_w = true, bias = false;
};

inline void run_int8_linear(const Int8Case& c, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(kernels::dtype_name(c.out));
  const HostTensor x = random_tensor(DType::int8, {c.m, c.k}, seed);
  const HostTensor w = random_tensor(DType::int8, {c.n, c.k}, seed + 1);
  // int8 products reach 2^14 per term: small scales keep f16 outputs finite.
  const HostTensor sx = scale_tensor(c.m, c.rowwise_x, seed + 2, {0.002, 0.02});
  const HostTensor sw = scale_tensor(c.n, c.rowwise_w, seed + 3, {0.002, 0.02});
  const HostTensor bias = random_tensor(c.out, {c.n}, seed + 4);
  const HostTensor host_out(c.out, {c.m, c.n});
  kernels::Int8LinearArgs host{x.view(), w.view(), sx.view(), sw.view(), host_out.view()};
  if (c.bias)
    host.bias = bias.view();
  const Reference want = int8_linear(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(c.out, {c.m, c.n});
    kernels::Int8LinearArgs args{d.upload(x), d.upload(w), d.upload(sx), d.upload(sw),
                                 d.upload(out)};
    if (c.bias)
      args.bias = d.upload(bias);
    kernels::int8_linear(dev, args);
    // The i32 accumulation is exact; only the epilogue's f32 roundings remain.
    const CompareResult r =
        compare(DeviceTensors::download(dev, args.out, out), want, Tolerance::for_output(c.out, 0));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

// ---- w8a16 -------------------------------------------------------------------------------

inline void run_w8a16(int64_t m, int64_t n, int64_t k, DType x_dtype, bool with_bias,
                      uint64_t seed) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(kernels::dtype_name(x_dtype));
  const HostTensor x = random_tensor(x_dtype, {m, k}, seed);
  const HostTensor w = random_tensor(DType::int8, {n, k}, seed + 1);
  const HostTensor sc = scale_tensor(n, true, seed + 2, {0.002, 0.02});
  const HostTensor bias = random_tensor(x_dtype, {n}, seed + 3);
  const HostTensor host_out(x_dtype, {m, n});
  kernels::W8A16Args host{x.view(), w.view(), sc.view(), host_out.view()};
  if (with_bias)
    host.bias = bias.view();
  const Reference want = w8a16(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(x_dtype, {m, n});
    kernels::W8A16Args args{d.upload(x), d.upload(w), d.upload(sc), d.upload(out)};
    if (with_bias)
      args.bias = d.upload(bias);
    kernels::w8a16(dev, args);
    const CompareResult r = compare(DeviceTensors::download(dev, args.out, out), want,
                                    Tolerance::for_output(x_dtype, k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

// ---- scaled_mm_multi ---------------------------------------------------------------------

// A list of scaled_mm problems of different shapes in one grouped launch. Every problem shares
// the dtypes, scale granularities and bias presence (the kernel's rule). Problem i draws its
// inputs from seed + 5 * i. `workgroups`: what the launch must cover (one per 128 x 128 tile
// of every non-empty problem), checked on the emulator's statistics.
struct ScaledMultiCase {
  std::vector<std::array<int64_t, 3>> shapes; // {m, n, k} per problem
  DType a = DType::e5m2, b = DType::e4m3, out = DType::f32;
  bool rowwise_a = true, rowwise_b = false, bias = false;
};

inline void run_scaled_mm_multi(const ScaledMultiCase& c, uint64_t seed, uint64_t workgroups) {
  CAPTURE(kernels::dtype_name(c.a));
  CAPTURE(kernels::dtype_name(c.b));
  CAPTURE(kernels::dtype_name(c.out));
  struct Problem {
    HostTensor a, b, sa, sb, bias, out;
  };
  std::vector<Problem> keep;
  kernels::ScaledMmMultiArgs host;
  for (const auto& [m, n, k] : c.shapes) {
    const uint64_t s = seed + 5 * uint64_t(keep.size());
    keep.push_back(
        {random_tensor(c.a, {m, k}, s),
         random_tensor(c.b, {k, n}, s + 1, std::nullopt, kernels::column_major_strides({k, n})),
         scale_tensor(m, c.rowwise_a, s + 2), scale_tensor(n, c.rowwise_b, s + 3),
         random_tensor(c.out, {n}, s + 4), HostTensor(c.out, {m, n})});
  }
  for (const Problem& p : keep) {
    host.problems.push_back({p.a.view(), p.b.view(), p.sa.view(), p.sb.view(), p.out.view()});
    if (c.bias)
      host.problems.back().bias = p.bias.view();
  }
  const std::vector<Reference> want = scaled_mm_multi(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    std::vector<HostTensor> outs;
    kernels::ScaledMmMultiArgs args;
    for (const Problem& p : keep) {
      outs.push_back(HostTensor(c.out, p.out.shape()));
      args.problems.push_back(
          {d.upload(p.a), d.upload(p.b), d.upload(p.sa), d.upload(p.sb), d.upload(outs.back())});
      if (c.bias)
        args.problems.back().bias = d.upload(p.bias);
    }
    kernels::scaled_mm_multi(dev, args);
    CHECK(dev.last_stats().workgroups == workgroups); // the last launch covered every problem
    for (size_t p = 0; p < args.problems.size(); ++p) {
      CAPTURE(p);
      CAPTURE(c.shapes[p][0]);
      CAPTURE(c.shapes[p][1]);
      CAPTURE(c.shapes[p][2]);
      const CompareResult r = compare(DeviceTensors::download(dev, args.problems[p].out, outs[p]),
                                      want[p], Tolerance::for_output(c.out, c.shapes[p][2]));
      INFO(r.summary());
      CHECK(r.ok);
    }
  });
}
// ---- mxfp8_gemm --------------------------------------------------------------------------

inline void run_mxfp8(int64_t m, int64_t n, int64_t k, DType a_dtype, DType b_dtype,
                      DType out_dtype, bool with_bias, uint64_t seed) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(kernels::dtype_name(a_dtype));
  CAPTURE(kernels::dtype_name(b_dtype));
  const int64_t blocks = (k + 31) / 32;
  const HostTensor a = random_tensor(a_dtype, {m, k}, seed);
  const HostTensor b =
      random_tensor(b_dtype, {k, n}, seed + 1, std::nullopt, kernels::column_major_strides({k, n}));
  const HostTensor sa = random_tensor(DType::e8m0, {m, blocks}, seed + 2);
  const HostTensor sb = random_tensor(DType::e8m0, {n, blocks}, seed + 3);
  const HostTensor bias = random_tensor(out_dtype, {n}, seed + 4);
  const HostTensor host_out(out_dtype, {m, n});
  kernels::Mxfp8GemmArgs host{a.view(), b.view(), sa.view(), sb.view(), host_out.view()};
  if (with_bias)
    host.bias = bias.view();
  const Reference want = mxfp8_gemm(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(out_dtype, {m, n});
    kernels::Mxfp8GemmArgs args{d.upload(a), d.upload(b), d.upload(sa), d.upload(sb),
                                d.upload(out)};
    if (with_bias)
      args.bias = d.upload(bias);
    kernels::mxfp8_gemm(dev, args);
    const CompareResult r = compare(DeviceTensors::download(dev, args.out, out), want,
                                    Tolerance::for_output(out_dtype, k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

// ---- scaled_mm_fused_quant, int8_linear_fused (with and without LoRA) ----------------------

// The fused kernels: the activation x is quantized in the prologue (dynamic rowwise amax or
// a given scale), then the 8-bit GEMM runs and s_m is applied in the epilogue.
inline void run_fused(bool int8, int64_t m, int64_t n, int64_t k, DType x_dtype, DType q_dtype,
                      kernels::ActQuantMode mode, bool rowwise_given, DType out_dtype,
                      uint64_t seed, int64_t lora_rank = 0, int64_t x_ld = 0,
                      float lora_scale = 0.5f) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(int8);
  CAPTURE(kernels::dtype_name(q_dtype));
  CAPTURE(int(mode));
  CAPTURE(x_ld);
  CAPTURE(lora_scale);
  // x_ld: a padded leading stride of x (0: contiguous).
  const HostTensor x = random_tensor(x_dtype, {m, k}, seed, ValueRange{-3.0, 3.0},
                                     x_ld ? Extents{x_ld, 1} : Extents{});
  const HostTensor b =
      int8 ? random_tensor(DType::int8, {n, k}, seed + 1)
           : random_tensor(q_dtype == DType::e4m3 ? DType::e5m2 : DType::e4m3, {k, n}, seed + 1,
                           std::nullopt, kernels::column_major_strides({k, n}));
  const HostTensor given = scale_tensor(m, rowwise_given, seed + 2, {0.01, 0.05});
  const HostTensor sb = scale_tensor(n, true, seed + 3, {0.01, 0.05});
  const HostTensor bias = random_tensor(out_dtype, {n}, seed + 4);
  const HostTensor host_out(out_dtype, {m, n}), host_scale_out(DType::f32, {m});
  const HostTensor down = random_tensor(x_dtype, {std::max<int64_t>(lora_rank, 1), k}, seed + 5);
  const HostTensor up = random_tensor(x_dtype, {n, std::max<int64_t>(lora_rank, 1)}, seed + 6);
  const auto make_lora = [&](auto view) -> std::optional<kernels::LoraArgs> {
    if (lora_rank == 0)
      return std::nullopt;
    return kernels::LoraArgs{view(down), view(up), lora_scale};
  };
  const auto make_quant = [&](const HostTensor& g, const HostTensor& so, auto view) {
    kernels::ActivationQuant q;
    q.dtype = q_dtype;
    q.mode = mode;
    if (mode == kernels::ActQuantMode::given_scale)
      q.scale = view(g);
    else
      q.scale_out = view(so);
    return q;
  };
  const auto host_view = [](const HostTensor& t) { return t.view(); };
  Reference want;
  if (int8) {
    kernels::Int8LinearFusedArgs a{x.view(), make_quant(given, host_scale_out, host_view), b.view(),
                                   sb.view(), host_out.view()};
    a.bias = bias.view();
    a.lora = make_lora(host_view);
    want = int8_linear_fused(a);
  } else {
    kernels::ScaledMmFusedQuantArgs a{x.view(), make_quant(given, host_scale_out, host_view),
                                      b.view(), sb.view(), host_out.view()};
    a.bias = bias.view();
    a.lora = make_lora(host_view);
    want = scaled_mm_fused_quant(a);
  }
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(out_dtype, {m, n}), scale_out(DType::f32, {m});
    const auto dev_view = [&](const HostTensor& t) { return d.upload(t); };
    const kernels::ActivationQuant q = make_quant(given, scale_out, dev_view);
    const TensorView dout = d.upload(out);
    if (int8) {
      kernels::Int8LinearFusedArgs a{d.upload(x), q, d.upload(b), d.upload(sb), dout};
      a.bias = d.upload(bias);
      a.lora = make_lora(dev_view);
      kernels::int8_linear_fused(dev, a);
    } else {
      kernels::ScaledMmFusedQuantArgs a{d.upload(x), q, d.upload(b), d.upload(sb), dout};
      a.bias = d.upload(bias);
      a.lora = make_lora(dev_view);
      kernels::scaled_mm_fused_quant(dev, a);
    }
    Tolerance tol = Tolerance::for_output(out_dtype, int8 ? 0 : k);
    if (lora_rank > 0) {
      // t = x @ down^T is rounded to the activation dtype (a first launch), then the kernel's
      // LoRA block sums over R in f32 next to the main product's sum over K.
      tol.accumulation = f32_accumulation(k + lora_rank);
      tol.intermediate = x_dtype == DType::bf16 ? 0x1p-8 : 0x1p-11;
    }
    const CompareResult r = compare(DeviceTensors::download(dev, dout, out), want, tol);
    INFO(r.summary());
    CHECK(r.ok);
    if (q.scale_out) { // s_m = amax / qmax, exactly the oracle's rule
      dev.copy_to_host(scale_out.bytes().data(), q.scale_out->device_address,
                       scale_out.bytes().size());
      const std::vector<double> s = decode_flat(scale_out.view());
      const QuantizedActivation qa =
          quantize_activation(x.view(), make_quant(given, host_scale_out, host_view));
      for (int64_t i = 0; i < m; ++i)
        CHECK(s[size_t(i)] == qa.scale[size_t(i)]);
    }
  });
}

// ---- iu4_gemm ----------------------------------------------------------------------------

struct Iu4Case {
  int64_t m, n, k;
  DType a = DType::int4, b = DType::int4;
  int64_t ld_pad = 0; // extra nibbles (even) of leading stride beyond K rounded up to even
};

// A K-contiguous packed operand: `rows` runs of k nibbles, leading stride even. Every nibble
// of the stride that lies past K (the odd-K high nibble, the padding) is set to 0xA / 0xB so
// that a kernel which reads it gets a wrong sum.
inline HostTensor packed_operand(DType t, int64_t rows, int64_t k, int64_t ld, bool row_major,
                                 uint64_t seed) {
  const kernels::Extents shape = row_major ? kernels::Extents{rows, k} : kernels::Extents{k, rows};
  const kernels::Extents strides = row_major ? kernels::Extents{ld, 1} : kernels::Extents{1, ld};
  HostTensor h = random_tensor(t, shape, seed, std::nullopt, strides);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kk = k; kk < ld && r * ld + kk < int64_t(h.bytes().size()) * 2; ++kk) {
      uint8_t& byte = h.bytes()[size_t((r * ld + kk) / 2)];
      byte = (kk % 2) ? uint8_t((byte & 0x0F) | 0xB0) : uint8_t((byte & 0xF0) | 0x0A);
    }
  return h;
}

inline void run_iu4(const Iu4Case& c, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(kernels::dtype_name(c.a));
  CAPTURE(kernels::dtype_name(c.b));
  const int64_t ld = std::max<int64_t>(2, (c.k + 1) / 2 * 2 + c.ld_pad); // even, >= 1
  const HostTensor a = packed_operand(c.a, c.m, c.k, ld, true, seed);
  const HostTensor b = packed_operand(c.b, c.n, c.k, ld, false, seed + 1);
  const HostTensor host_out(DType::i32, {c.m, c.n});
  const Reference want = iu4_gemm(kernels::Iu4GemmArgs{a.view(), b.view(), host_out.view()});
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(DType::i32, {c.m, c.n});
    // Garbage in the output: every element must be written.
    for (uint8_t& byte : out.bytes())
      byte = 0x5C;
    kernels::Iu4GemmArgs args{d.upload(a), d.upload(b), d.upload(out)};
    kernels::iu4_gemm(dev, args);
    const Matrix got = DeviceTensors::download(dev, args.out, out);
    int64_t mismatches = 0;
    std::ostringstream first; // the first few mismatches, reported with the CHECK
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j)
        if (got.at(i, j) != want.value.at(i, j) && mismatches++ < 5)
          first << " out[" << i << ", " << j << "] = " << got.at(i, j) << ", expected "
                << want.value.at(i, j) << ";";
    INFO(mismatches << " mismatches:" << first.str());
    CHECK(mismatches == 0);
  });
}

} // namespace tw::oracle
