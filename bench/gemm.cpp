// bench_gemm: per GEMM-family kernel and shape, the compiled code's resource report (both
// backends), the emulator's instruction mix for ONE workgroup (block (0, 0) of the real
// problem: a full run of 4096^3 on the emulator would take hours), and the WMMA share of the
// K-loop instructions. The K-loop share comes from two one-workgroup runs with K and K / 2:
// the difference is exactly the instructions of K / 2 / bk loop iterations. Then the timing
// model's figure (runtime/emu/timing, docs/timing.md) at M = N = K = 4096 on the RX 9070 XT:
// the real grid with only 3 sampled workgroups emulated (--model-only), modeled TFLOP/s and
// the share of the matching WMMA peak.
#include <kernels/gemm/gemm_kernel.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <emit/compile.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu_device.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::kernels;
using namespace tw::kernels::gemm_kernel;

namespace {

struct Case {
  const char* kernel;
  GemmKernelSpec spec;
  int64_t m, n, k;
};

GemmKernelSpec spec_of(DType a, DType b, DType out, ScaleKind sa, ScaleKind sb) {
  GemmKernelSpec s;
  s.a = a;
  s.b = b;
  s.out = out;
  s.a_vec_aligned = s.b_vec_aligned = true;
  s.scale_a = sa;
  s.scale_b = sb;
  s.alpha_beta = a == DType::f16 || a == DType::bf16 ? b == a : false;
  return s;
}

GemmKernelSpec mx_spec(DType a, DType b, DType out) {
  GemmKernelSpec s = spec_of(a, b, out, ScaleKind::none, ScaleKind::none);
  s.mx_block_scales = true;
  return s;
}

GemmKernelSpec fused_spec(DType q, DType b, DType out, DType x) {
  GemmKernelSpec s = spec_of(q, b, out, ScaleKind::none, ScaleKind::rowwise);
  s.act_quant = ActQuant::dynamic_rowwise;
  s.x = x;
  return s;
}

emu::LaunchStats one_workgroup(runtime::EmuDevice& dev, const emit::CodeObject& co, const Case& c,
                               int64_t k, runtime::DevicePtr buf) {
  GemmLaunchArgs g;
  g.a = g.b = g.out = g.scale_a = g.scale_b = buf; // zero-filled: the values do not matter
  g.m = c.m;
  g.n = c.n;
  g.k = k;
  g.lda = g.ldb = is_packed_int4(c.spec.a) ? k / 2 : k; // storage elements (int4: bytes)
  g.ldo = c.n;
  g.ld_scale_a = g.ld_scale_b = (k + 31) / 32; // MX block scales (e8m0 code 0 here)
  const runtime::KernelArgs args = gemm_kernel_args(g);
  const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
  dev.launch(dev.get_kernel(mod, co.kernel_name), {1, 1}, {uint32_t(threads)}, args.span());
  return dev.last_stats();
}

// The modeled time of the whole M = N = K = `size` launch (3 sampled workgroups emulated).
emu::timing::TimingReport modeled(runtime::EmuDevice& dev, const emit::CodeObject& co,
                                  const Case& c, int64_t size, runtime::DevicePtr aux) {
  GemmLaunchArgs g;
  const int64_t a_bytes = dtype_storage_bytes(c.spec.a, size * size);
  const int64_t x_bytes = size * size * 2; // a bf16 / f16 activation the fused kernels read
  g.a = dev.allocate(size_t(std::max(a_bytes, x_bytes)));
  g.b = dev.allocate(size_t(dtype_storage_bytes(c.spec.b, size * size)));
  g.out = dev.allocate(size_t(dtype_storage_bytes(c.spec.out, size * size)));
  g.scale_a = g.scale_b = aux;
  g.m = g.n = g.k = size;
  g.lda = g.ldb = is_packed_int4(c.spec.a) ? size / 2 : size;
  g.ldo = size;
  g.ld_scale_a = g.ld_scale_b = (size + 31) / 32;
  emu::timing::TimingOptions o;
  o.model_only = true;
  o.work_flops = 2.0 * double(size) * double(size) * double(size);
  dev.set_timing_model(o);
  const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
  dev.launch(dev.get_kernel(mod, co.kernel_name), gemm_grid(g), {uint32_t(threads)},
             gemm_kernel_args(g).span());
  emu::timing::TimingReport report = dev.last_timing().value();
  dev.set_timing_model(std::nullopt);
  for (runtime::DevicePtr p : {g.a, g.b, g.out})
    dev.free(p);
  return report;
}

} // namespace

int main() {
  const std::vector<Case> cases = {
      {"gemm f16->f32",
       spec_of(DType::f16, DType::f16, DType::f32, ScaleKind::none, ScaleKind::none), 4096, 4096,
       4096},
      {"gemm bf16->bf16",
       spec_of(DType::bf16, DType::bf16, DType::bf16, ScaleKind::none, ScaleKind::none), 1024, 1024,
       1024},
      {"scaled_mm e4m3->bf16",
       spec_of(DType::e4m3, DType::e4m3, DType::bf16, ScaleKind::rowwise, ScaleKind::rowwise), 1024,
       1024, 1024},
      {"int8_linear ->f16",
       spec_of(DType::int8, DType::int8, DType::f16, ScaleKind::rowwise, ScaleKind::rowwise), 1024,
       1024, 1024},
      {"w8a16 f16",
       spec_of(DType::f16, DType::int8, DType::f16, ScaleKind::none, ScaleKind::rowwise), 1024,
       1024, 1024},
      {"scaled_mm_fused_quant bf16->e4m3, dynamic",
       fused_spec(DType::e4m3, DType::e4m3, DType::bf16, DType::bf16), 1024, 1024, 1024},
      {"mxfp8_gemm e4m3->bf16", mx_spec(DType::e4m3, DType::e4m3, DType::bf16), 1024, 1024, 1024},
      {"iu4_gemm int4->i32",
       spec_of(DType::int4, DType::int4, DType::i32, ScaleKind::none, ScaleKind::none), 1024, 1024,
       1024},
  };
  runtime::EmuDevice dev;
  dev.set_memcheck(false); // one workgroup reads rows of the real problem only
  // Big enough for the one workgroup's rows and columns of every case (A/B: 128 x K bytes
  // and 2-byte elements; out: 128 rows of N).
  const runtime::DevicePtr buf = dev.allocate(size_t(4096) * 4096 * 4);
  for (const Case& c : cases) {
    std::printf("== %s, M=N=K=%lld (%s)\n", c.kernel, static_cast<long long>(c.m),
                c.spec.name().c_str());
    for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
      set_gemm_target({b, Arch::gfx1201});
      const emit::CodeObject co = compile_gemm_kernel(c.spec);
      const emit::ResourceReport& r = co.resources;
      std::printf("  %-4s resources: %d VGPRs, %d SGPRs, %lld B LDS, %lld B scratch, %d "
                  "waves/SIMD\n",
                  std::string(emit::backend_name(b)).c_str(), r.vgprs, r.sgprs,
                  static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                  r.waves_per_simd);
      const emu::LaunchStats full = one_workgroup(dev, co, c, c.k, buf);
      const emu::LaunchStats half = one_workgroup(dev, co, c, c.k / 2, buf);
      std::printf("  %-4s one workgroup (K=%lld), %.2f s emulated:\n",
                  std::string(emit::backend_name(b)).c_str(), static_cast<long long>(c.k),
                  full.seconds);
      for (size_t i = 0; i < full.instructions.size(); ++i)
        if (full.instructions[i])
          std::printf("       %-8s %llu\n", emu::class_name(static_cast<emu::InstrClass>(i)),
                      static_cast<unsigned long long>(full.instructions[i]));
      const double loop_total = double(full.total_instructions() - half.total_instructions());
      const double loop_wmma = double(full.wmma_instructions - half.wmma_instructions);
      std::printf("       WMMA %llu of %llu wave instructions (%.1f%%); K loop: %.1f%% WMMA\n",
                  static_cast<unsigned long long>(full.wmma_instructions),
                  static_cast<unsigned long long>(full.total_instructions()),
                  100.0 * double(full.wmma_instructions) / double(full.total_instructions()),
                  100.0 * loop_wmma / loop_total);
      const emu::timing::TimingReport t = modeled(dev, co, c, 4096, buf);
      const double recording = dev.last_stats().seconds;
      // The cost of the model: recording + modeling against the plain emulation of the same
      // sampled workgroups (one workgroup at K = 4096 without the model, times the sample).
      const double plain = double(t.sampled) * one_workgroup(dev, co, c, 4096, buf).seconds;
      std::printf("  %-4s modeled on the %s, M=N=K=4096: %.1f TFLOP/s (%.0f%% of the %.0f TFLOP/s "
                  "%s peak), %.3f ms, bound: %s, %d waves/SIMD\n"
                  "       host: %.2f s to emulate %llu sampled workgroups while recording, "
                  "%.2f s to model (plain emulation of one: %.2f s)\n",
                  std::string(emit::backend_name(b)).c_str(), t.product.c_str(), t.tflops,
                  100 * t.peak_fraction, t.peak / 1e12, t.peak_name.c_str(), t.seconds * 1e3,
                  t.bound.c_str(), t.occupancy.waves_per_simd, recording,
                  static_cast<unsigned long long>(t.sampled), t.host_seconds, full.seconds);
      std::printf("       model cost: %.2f s recording + modeling vs %.2f s plain emulation of "
                  "the %llu sampled workgroups: %.1fx\n",
                  recording + t.host_seconds, plain, static_cast<unsigned long long>(t.sampled),
                  (recording + t.host_seconds) / plain);
    }
  }
  dev.free(buf);
  return 0;
}
