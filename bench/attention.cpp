// bench_attention: the flash attention kernel's static quality per dtype, head dim and mask:
// the compiled code's resources (both backends), and for ONE launch at B = 1, H = 2,
// Sq = Sk = 256 on the emulator the instruction mix and the dynamic instructions per WMMA
// (issue 10 asks for fewer than 15 for bf16 D = 128). The figure is taken with zero inputs;
// the instruction stream depends on the values in one place only: a wave skips O's rescale
// when none of its queries' running maxima moved (scale_cols_unless_one), which with zeros is
// every KV block after the first. A second line gives the count for random inputs (uniform in
// [-2, 2)), where the maxima still move in some blocks. Last, the timing model's
// figure (runtime/emu/timing, docs/timing.md) for bf16 D = 128 and 256 at B = 4, H = 32, S = 4096,
// causal and not, with 64- and 128-row query tiles (the one flash_attn picks by default marked),
// on the RX 9070 XT (gfx1201) or the RX 9060 XT (gfx1200): the real grid with the sampled
// workgroups emulated (--model-only); all such figures are modeled, not measured.
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/attention/flash_attn_query_tile.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <atoms/formats/f16.hpp>

#include <emit/compile.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu_device.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::kernels;
using namespace tw::kernels::flash_attn_kernel;

namespace {

// Modeled TFLOP/s of the headline shape (separate from the static report above).
// `queue_rule`: TimingOptions::queue_rule (`bench_attention headline RULE`); `arch`: the
// machine modeled and compiled for (`bench_attention headline RULE gfx1200`).
void print_modeled_headline(emu::timing::QueueRule queue_rule, Arch arch) {
  const int64_t B = 4, H = 32, S = 4096;
  runtime::EmuDevice dev;
  dev.set_memcheck(false);
  for (const int64_t D : {128, 256})
    for (bool causal : {false, true})
      for (int waves : {4, 8}) {
        FlashAttnProblem problem; // what flash_attn's default query tile is picked by
        problem.head_dim = problem.head_dim_v = D;
        problem.seqlen_q = S;
        const bool is_default = default_query_tile(problem) == 16 * waves;
        const size_t bytes = size_t(B * H * S * D) * 2;
        FlashAttnKernelSpec s;
        s.waves = waves;
        s.dtype = DType::bf16;
        s.out = DType::bf16;
        s.head_dim_pad = s.head_dim_v_pad = int(D);
        s.windowed = causal;
        s.vec_aligned = true;
        s.v_transpose_loads = true;
        s.k_clipped = true;
        for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
          set_gemm_target({b, arch});
          const emit::CodeObject co = compile_flash_attn_kernel(s);
          FlashAttnLaunchArgs g = dense_bshd_args(B, S, H, D);
          std::vector<runtime::DevicePtr> bufs; // separate tensors: the DRAM bound counts each
          for (int i = 0; i < 4; ++i)
            bufs.push_back(dev.allocate(bytes));
          g.q = bufs[0];
          g.k = bufs[1];
          g.v = bufs[2];
          g.out = bufs[3];
          g.window_right = causal ? 0 : -1;
          g.sm_scale = 0.125f;
          emu::timing::TimingOptions o;
          o.model_only = true;
          o.compare_plain = true; // the model's cost line
          o.queue_rule = queue_rule;
          o.machine = std::string(arch_name(arch));
          // Useful work: 4 B H S^2 D (QK^T and PV), half of it under the causal mask.
          o.work_flops = 4.0 * double(B * H * D) * double(S) * double(S) / (causal ? 2.0 : 1.0);
          dev.set_timing_model(o);
          const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
          dev.launch(dev.get_kernel(mod, co.kernel_name), flash_attn_grid(g, false, s.block_q()),
                     {uint32_t(s.workgroup_threads())}, flash_attn_kernel_args(g).span());
          const emu::timing::TimingReport t = dev.last_timing().value();
          std::printf("== bf16 D=%lld %s q%d%s B=4 H=32 S=4096, %-4s modeled on the %s: %.1f "
                      "TFLOP/s (%.0f%% of the %.0f TFLOP/s %s peak), %.3f ms, bound: %s, %d "
                      "waves/SIMD\n",
                      static_cast<long long>(D), causal ? "causal" : "full  ", s.block_q(),
                      is_default ? " (default)" : "", std::string(emit::backend_name(b)).c_str(),
                      t.product.c_str(), t.tflops, 100 * t.peak_fraction, t.peak / 1e12,
                      t.peak_name.c_str(), t.seconds * 1e3, t.bound.c_str(),
                      t.occupancy.waves_per_simd);
          // The model's cost (as bench_gemm's): recording + modeling against the plain
          // emulation of the same sampled workgroups, CPU seconds of all threads.
          std::printf("   model cost: %.3f s CPU recording + %.3f s CPU modeling vs %.3f s CPU "
                      "plain emulation of the %llu sampled workgroups: %.2fx\n",
                      t.recording_cpu_seconds, t.host_cpu_seconds, t.plain_cpu_seconds,
                      static_cast<unsigned long long>(t.sampled),
                      (t.recording_cpu_seconds + t.host_cpu_seconds) / t.plain_cpu_seconds);
          dev.set_timing_model(std::nullopt);
          for (runtime::DevicePtr p : bufs)
            dev.free(p);
        }
      }
}

} // namespace

// Optional filters: bench_attention [dtype [head_dim [full|causal [hip|llvm]]]], e.g.
// `bench_attention bf16 128` (`bench_attention headline [RULE [ARCH]]`: only the modeled
// figures, RULE the TimingOptions::queue_rule, two-rounds by default, ARCH gfx1201 (the
// default) or gfx1200); with
// TILEWAVE_BENCH_TRACE=1 the emulator prints the instruction trace of wave 0 of workgroup 0 (of
// workgroup x with TILEWAVE_BENCH_TRACE_WG=x) of every launch run to stderr (for an
// instruction histogram).
int main(int argc, char** argv) {
  const std::string only_dtype = argc > 1 ? argv[1] : "";
  if (only_dtype == "headline") { // `bench_attention headline`: the modeled figures only
    const std::string arch = argc > 3 ? argv[3] : "gfx1201";
    if (arch != "gfx1201" && arch != "gfx1200") {
      std::fprintf(stderr, "bench_attention headline: ARCH is '%s'; expected gfx1201 or gfx1200\n",
                   arch.c_str());
      return 2;
    }
    print_modeled_headline(argc > 2 ? emu::timing::parse_queue_rule(argv[2])
                                    : emu::timing::QueueRule::two_rounds,
                           arch == "gfx1200" ? Arch::gfx1200 : Arch::gfx1201);
    return 0;
  }
  const int only_d = argc > 2 ? std::atoi(argv[2]) : 0;
  const std::string only_mask = argc > 3 ? argv[3] : "", only_backend = argc > 4 ? argv[4] : "";
  runtime::EmuDevice dev;
  dev.set_memcheck(false);
  if (const char* t = std::getenv("TILEWAVE_BENCH_TRACE"); t && std::string(t) == "1") {
    emu::TraceConfig tc;
    tc.enabled = true;
    // TILEWAVE_BENCH_TRACE_WG=x: trace wave 0 of workgroup (x, 0, 0) instead (a causal query
    // tile other than the first, which sees only the diagonal)
    if (const char* wg = std::getenv("TILEWAVE_BENCH_TRACE_WG"))
      tc.workgroup[0] = uint32_t(std::atoi(wg));
    dev.set_trace(tc);
  }
  const int64_t B = 1, H = 2, S = 256;
  const runtime::DevicePtr buf = dev.allocate(size_t(8) << 20); // zero-filled
  // Random inputs: q, k, v in separate buffers (the output gets its own), as element codes.
  const size_t tensor_bytes = size_t(B * S * H * 256) * 2;
  runtime::DevicePtr rq = dev.allocate(tensor_bytes), rk = dev.allocate(tensor_bytes),
                     rv = dev.allocate(tensor_bytes), rout = dev.allocate(tensor_bytes);
  const auto fill_random = [&](DType t, uint32_t seed) {
    for (runtime::DevicePtr p : {rq, rk, rv}) {
      std::vector<uint8_t> bytes(tensor_bytes);
      for (size_t i = 0; i < bytes.size(); i += 2) {
        seed = seed * 1664525u + 1013904223u;
        const float x = float(seed >> 8) / 4194304.0f - 2.0f; // uniform in [-2, 2)
        uint16_t code = 0;
        if (t == DType::bf16)
          code = uint16_t(std::bit_cast<uint32_t>(x) >> 16);
        else if (t == DType::f16)
          code = num::f32_to_f16(x);
        else // fp8: two codes of magnitude below the NaN / inf codes, random signs
          code = uint16_t((seed >> 3) & 0x3f3f) | uint16_t(seed & 0x8080);
        std::memcpy(&bytes[i], &code, 2);
      }
      dev.copy_to_device(p, bytes.data(), bytes.size());
    }
  };
  for (DType t : {DType::bf16, DType::f16, DType::e4m3, DType::e5m2})
    for (int d : {64, 128, 256})
      for (bool causal : {false, true}) {
        if ((!only_dtype.empty() && only_dtype != dtype_name(t)) || (only_d && only_d != d) ||
            (!only_mask.empty() && only_mask != (causal ? "causal" : "full")))
          continue;
        FlashAttnKernelSpec s;
        s.dtype = t;
        s.out = DType::bf16;
        s.head_dim_pad = s.head_dim_v_pad = d;
        s.windowed = causal;
        s.vec_aligned = true;
        s.v_transpose_loads = true;
        s.k_clipped = true;
        std::printf("== %s D=%d %s (%s)\n", std::string(dtype_name(t)).c_str(), d,
                    causal ? "causal" : "full", s.name().c_str());
        for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
          if (!only_backend.empty() && only_backend != emit::backend_name(b))
            continue;
          set_gemm_target({b, Arch::gfx1201});
          const emit::CodeObject co = compile_flash_attn_kernel(s);
          const emit::ResourceReport& r = co.resources;
          const std::string be(emit::backend_name(b));
          std::printf("  %-4s resources: %d VGPRs, %d SGPRs, %lld B LDS, %lld B scratch, %d "
                      "waves/SIMD\n",
                      be.c_str(), r.vgprs, r.sgprs, static_cast<long long>(r.lds_bytes),
                      static_cast<long long>(r.scratch_bytes), r.waves_per_simd);
          FlashAttnLaunchArgs g = dense_bshd_args(B, S, H, d);
          g.q = g.k = g.v = g.out = buf;
          g.window_right = causal ? 0 : -1;
          g.sm_scale = 0.125f;
          const runtime::KernelArgs args = flash_attn_kernel_args(g);
          const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
          dev.launch(dev.get_kernel(mod, co.kernel_name), flash_attn_grid(g), {uint32_t(threads)},
                     args.span());
          const emu::LaunchStats st = dev.last_stats();
          fill_random(t, 12345u + uint32_t(d));
          FlashAttnLaunchArgs gr = g;
          gr.q = rq;
          gr.k = rk;
          gr.v = rv;
          gr.out = rout;
          dev.launch(dev.get_kernel(mod, co.kernel_name), flash_attn_grid(gr), {uint32_t(threads)},
                     flash_attn_kernel_args(gr).span());
          const emu::LaunchStats rst = dev.last_stats();
          std::printf("  %-4s one launch B=%lld H=%lld Sq=Sk=%lld:", be.c_str(),
                      static_cast<long long>(B), static_cast<long long>(H),
                      static_cast<long long>(S));
          for (size_t i = 0; i < st.instructions.size(); ++i)
            if (st.instructions[i])
              std::printf(" %s %llu", emu::class_name(static_cast<emu::InstrClass>(i)),
                          static_cast<unsigned long long>(st.instructions[i]));
          std::printf("\n  %-4s WMMA %llu of %llu wave instructions: %.2f instructions per WMMA\n",
                      be.c_str(), static_cast<unsigned long long>(st.wmma_instructions),
                      static_cast<unsigned long long>(st.total_instructions()),
                      double(st.total_instructions()) / double(st.wmma_instructions));
          std::printf("  %-4s random inputs: %llu wave instructions: %.2f instructions per WMMA\n",
                      be.c_str(), static_cast<unsigned long long>(rst.total_instructions()),
                      double(rst.total_instructions()) / double(rst.wmma_instructions));
        }
      }
  dev.free(buf);
  for (runtime::DevicePtr p : {rq, rk, rv, rout})
    dev.free(p);
  if (argc <= 1) // the headline figures only for the full report
    print_modeled_headline(emu::timing::QueueRule::two_rounds, Arch::gfx1201);
  return 0;
}
