// scaled_mm (fp8 e4m3 / e5m2, all four WMMA combinations) and int8_linear (iu8 WMMA, exact i32
// accumulation) through the host API on the emulator with memcheck on, through both emitters,
// against the float64 oracles: tensorwise and rowwise scales, bias, every output dtype,
// ragged shapes and K = 0.
#include "gemm_harness.hpp"

#include <kernels/gemm/gemm_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

namespace {

struct ScaledCase {
  int64_t m, n, k;
  DType a = DType::e4m3, b = DType::e4m3, out = DType::bf16;
  bool rowwise_a = false, rowwise_b = true, bias = false;
};

HostTensor scale_tensor(int64_t n, bool rowwise, uint64_t seed, ValueRange r = {0.25, 2.0}) {
  return random_tensor(DType::f32, {rowwise ? n : 1}, seed, r);
}

void run_scaled_mm(const ScaledCase& c, uint64_t seed) {
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

void run_int8_linear(const Int8Case& c, uint64_t seed) {
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

} // namespace

TEST_CASE("scaled_mm: the four fp8 combinations at ragged shapes") {
  run_scaled_mm({129, 41, 96, DType::e4m3, DType::e4m3, DType::bf16}, 11);
  run_scaled_mm({27, 100, 23, DType::e4m3, DType::e5m2, DType::f32, true, false}, 12);
  run_scaled_mm({27, 100, 23, DType::e4m3, DType::e5m2, DType::bf16, false, true}, 18);
  run_scaled_mm({27, 100, 23, DType::e4m3, DType::e4m3, DType::f16, true, false}, 17);
  run_scaled_mm({41, 13, 96, DType::e5m2, DType::e4m3, DType::f16, false, true, true}, 19);
  run_scaled_mm({13, 17, 129, DType::e5m2, DType::e4m3, DType::f32, false, false, true}, 13);
  run_scaled_mm({7, 23, 41, DType::e5m2, DType::e5m2, DType::f32, true, true, true}, 14);
}

TEST_CASE("scaled_mm: K = 0 gives bias, and a full 128 x 128 tile") {
  run_scaled_mm({17, 27, 0, DType::e4m3, DType::e4m3, DType::f32, true, true, true}, 15);
  run_scaled_mm({128, 128, 64, DType::e4m3, DType::e4m3, DType::f32}, 16);
}

TEST_CASE("int8_linear: exact i32 accumulation, scales and bias in the epilogue") {
  run_int8_linear({100, 41, 300, DType::f32, true, true, true}, 21);
  run_int8_linear({23, 129, 17, DType::bf16, false, true}, 22);
  run_int8_linear({1, 7, 13, DType::f16, true, false, true}, 23);
  run_int8_linear({13, 27, 0, DType::f32, true, true, true}, 24);
}

namespace {
void run_w8a16(int64_t m, int64_t n, int64_t k, DType x_dtype, bool with_bias, uint64_t seed) {
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
} // namespace

TEST_CASE("w8a16: int8 weights converted to f16 / bf16 in the prologue, per-channel scales") {
  run_w8a16(100, 41, 96, DType::f16, true, 31);
  run_w8a16(17, 129, 27, DType::bf16, false, 32);
  run_w8a16(7, 13, 0, DType::f16, true, 33);
  run_w8a16(128, 128, 64, DType::bf16, true, 34);
}

TEST_CASE("scaled_mm_multi: problems of different shapes in one grouped launch") {
  // Workgroups (128 x 128 tiles): 1 + 0 + 2 + 1 + 2 * 3 = 10, in one grid.
  const int64_t shapes[][3] = {{17, 41, 27}, {0, 13, 7}, {129, 7, 96}, {23, 23, 0}, {130, 300, 40}};
  std::vector<HostTensor> keep;
  kernels::ScaledMmMultiArgs host;
  for (const auto& s : shapes) {
    const auto [m, n, k] = std::tuple{s[0], s[1], s[2]};
    const uint64_t seed = 40 + uint64_t(keep.size());
    keep.push_back(random_tensor(DType::e5m2, {m, k}, seed));
    keep.push_back(random_tensor(DType::e4m3, {k, n}, seed + 1, std::nullopt,
                                 kernels::column_major_strides({k, n})));
    keep.push_back(scale_tensor(m, true, seed + 2));
    keep.push_back(scale_tensor(n, false, seed + 3));
    keep.push_back(HostTensor(DType::f32, {m, n}));
  }
  for (size_t i = 0; i < keep.size(); i += 5)
    host.problems.push_back({keep[i].view(), keep[i + 1].view(), keep[i + 2].view(),
                             keep[i + 3].view(), keep[i + 4].view()});
  const std::vector<Reference> want = scaled_mm_multi(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    std::vector<HostTensor> outs;
    kernels::ScaledMmMultiArgs args;
    for (size_t i = 0; i < keep.size(); i += 5) {
      outs.push_back(HostTensor(DType::f32, keep[i + 4].shape()));
      args.problems.push_back({d.upload(keep[i]), d.upload(keep[i + 1]), d.upload(keep[i + 2]),
                               d.upload(keep[i + 3]), d.upload(outs.back())});
    }
    kernels::scaled_mm_multi(dev, args);
    CHECK(dev.last_stats().workgroups == 10); // the last launch covered every problem
    for (size_t p = 0; p < args.problems.size(); ++p) {
      CAPTURE(p);
      const CompareResult r = compare(DeviceTensors::download(dev, args.problems[p].out, outs[p]),
                                      want[p], Tolerance::for_output(DType::f32, shapes[p][2]));
      INFO(r.summary());
      CHECK(r.ok);
    }
  });
}

namespace {
void run_mxfp8(int64_t m, int64_t n, int64_t k, DType a_dtype, DType b_dtype, DType out_dtype,
               bool with_bias, uint64_t seed) {
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
} // namespace

TEST_CASE("mxfp8_gemm: e8m0 scales per 32-element K block applied in the main loop") {
  run_mxfp8(41, 27, 100, DType::e4m3, DType::e4m3, DType::f32, true, 51);
  run_mxfp8(129, 13, 64, DType::e5m2, DType::e4m3, DType::bf16, false, 52);
  run_mxfp8(7, 130, 23, DType::e4m3, DType::e5m2, DType::f16, true, 53);
  run_mxfp8(17, 7, 0, DType::e5m2, DType::e5m2, DType::f32, true, 54);
}

namespace {
// The fused kernels: the activation x is quantized in the prologue (dynamic rowwise amax or
// a given scale), then the 8-bit GEMM runs and s_m is applied in the epilogue.
void run_fused(bool int8, int64_t m, int64_t n, int64_t k, DType x_dtype, DType q_dtype,
               kernels::ActQuantMode mode, bool rowwise_given, DType out_dtype, uint64_t seed,
               int64_t lora_rank = 0) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(int8);
  CAPTURE(kernels::dtype_name(q_dtype));
  CAPTURE(int(mode));
  const HostTensor x = random_tensor(x_dtype, {m, k}, seed, ValueRange{-3.0, 3.0});
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
    return kernels::LoraArgs{view(down), view(up), 0.5f};
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
} // namespace

TEST_CASE("scaled_mm_fused_quant: bf16 / f16 activations quantized to fp8 in the prologue") {
  using kernels::ActQuantMode;
  run_fused(false, 41, 27, 100, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, 61);
  run_fused(false, 129, 13, 23, DType::f16, DType::e5m2, ActQuantMode::given_scale, false,
            DType::f32, 62);
  run_fused(false, 7, 17, 0, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 63);
}

TEST_CASE("int8_linear_fused: roundeven + clamp [-128, 127] activation quantization") {
  using kernels::ActQuantMode;
  run_fused(true, 100, 41, 96, DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 71);
  run_fused(true, 23, 129, 27, DType::bf16, DType::int8, ActQuantMode::given_scale, true,
            DType::bf16, 72);
}

TEST_CASE("fused kernels with the LoRA block: any out dtype, ranks across LoRA tiles") {
  using kernels::ActQuantMode;
  run_fused(true, 41, 27, 100, DType::bf16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 81, 16);
  run_fused(false, 23, 129, 27, DType::f16, DType::e4m3, ActQuantMode::given_scale, true,
            DType::f32, 82, 7);
  // 16-bit outs: the LoRA product is added in f32 before the one rounding.
  run_fused(false, 23, 13, 27, DType::f16, DType::e4m3, ActQuantMode::given_scale, true,
            DType::bf16, 83, 7);
  run_fused(true, 130, 17, 41, DType::f16, DType::int8, ActQuantMode::given_scale, false,
            DType::f16, 84, 1);
  // Ranks past one 32-wide LoRA tile (a masked second tile) and two column tiles of out.
  run_fused(false, 17, 300, 13, DType::bf16, DType::e5m2, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, 85, 40);
  run_fused(true, 7, 129, 96, DType::bf16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 86, 64);
  // K = 0: out = bias + LoRA of a zero activation (0).
  run_fused(false, 13, 7, 0, DType::f16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::f16, 87, 3);
}
