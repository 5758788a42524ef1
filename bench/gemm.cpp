// bench_gemm: per GEMM-family kernel and shape, the compiled code's resource report (both
// backends), the emulator's instruction mix for ONE workgroup (block (0, 0) of the real
// problem: a full run of 4096^3 on the emulator would take hours), and the WMMA share of the
// K-loop instructions. The K-loop share comes from two one-workgroup runs with K and K / 2:
// the difference is exactly the instructions of K / 2 / bk loop iterations (printed per
// iteration and wave by instruction class). Then the timing model's figure (runtime/emu/timing,
// docs/timing.md) for the whole problem on the RX 9070 XT: the real grid with only the sampled
// workgroups emulated (--model-only), modeled TFLOP/s, the share of the matching WMMA peak and
// the modeled occupancy (hardware limits: VGPRs, LDS per WGP, workgroup size; the same rule
// as the resource report's, atoms/occupancy.hpp). Each shape runs the tile configuration the
// heuristic picks for gfx1201 (kernels/gemm/gemm_config.hpp; split-K as the partial and the
// reduce launch, their modeled times added), and, when that is not the family's first config
// (128 x 128, 4 waves, no split), the modeled time of that one too (before / after).
// Shapes: 4096^3; M = 1, 16, 64 with N = K = 4096 (decode); 256 x 256 x 4096 (few tiles);
// 4096 x 32 x 4096 (skinny N). --sweep: every configuration at the shapes the heuristic's
// rules were derived from (print_sweep).
#include <kernels/gemm/gemm_kernel.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <emit/compile.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu_device.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::kernels;
using namespace tw::kernels::gemm_kernel;

namespace {

// --fast-forward: model with TimingOptions::fast_forward on (the same figures; for
// comparing the model's cost with and without it, and scripts/check_timing_exact.sh).
bool g_fast_forward = false;
// --queue-rule NAME: TimingOptions::queue_rule (how many workgroups are simulated).
emu::timing::QueueRule g_queue_rule = emu::timing::QueueRule::two_rounds;

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
  dev.launch(dev.get_kernel(mod, co.kernel_name), {1, 1},
             {uint32_t(gemm_tile_shape(c.spec.tile).threads())}, args.span());
  return dev.last_stats();
}

// The modeled time of the whole problem of case `c` in configuration `config` (the sampled
// workgroups emulated per launch): one launch, or with split-K the partial launch and the
// reduce launch (their modeled times add up).
struct Modeled {
  emu::timing::TimingReport main; // the unsplit or partial launch
  double seconds = 0, tflops = 0; // the whole problem
  double reduce_seconds = 0;      // split-K: the reduce launch
};
Modeled modeled(runtime::EmuDevice& dev, const Case& c, GemmConfig config, runtime::DevicePtr aux) {
  GemmLaunchArgs g;
  const int64_t a_bytes = dtype_storage_bytes(c.spec.a, c.m * c.k);
  const int64_t x_bytes = c.m * c.k * 2; // a bf16 / f16 activation the fused kernels read
  g.a = dev.allocate(size_t(std::max(a_bytes, x_bytes)));
  g.b = dev.allocate(size_t(dtype_storage_bytes(c.spec.b, c.k * c.n)));
  g.out = dev.allocate(size_t(dtype_storage_bytes(c.spec.out, c.m * c.n)));
  g.scale_a = g.scale_b = aux;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.lda = g.ldb = is_packed_int4(c.spec.a) ? c.k / 2 : c.k;
  g.ldo = c.n;
  g.ld_scale_a = g.ld_scale_b = (c.k + 31) / 32;
  GemmKernelSpec spec = c.spec;
  spec.tile = config.tile;
  const GemmKSplit split = gemm_k_split(gemm_k_tiles(spec, c.k), config.split_k);
  std::vector<GemmKernelSpec> passes = {spec};
  if (split.splits > 1) {
    g.workspace = dev.allocate(size_t(gemm_workspace_bytes(spec.tile, c.m, c.n, split.splits)));
    g.split_k = split.splits;
    g.k_tiles_per_split = split.tiles_per_split;
    passes = {gemm_partial_pass(spec), gemm_reduce_pass(spec)};
  }
  for (GemmKernelSpec& p : passes)
    gemm_clip_edges(p, g); // as run_gemm_kernel picks them
  Modeled result;
  for (size_t i = 0; i < passes.size(); ++i) {
    emu::timing::TimingOptions o;
    o.model_only = true;
    o.fast_forward = g_fast_forward;
    o.queue_rule = g_queue_rule;
    o.work_flops = 2.0 * double(c.m) * double(c.n) * double(c.k);
    o.compare_plain = c.m == 4096 && c.n == 4096 && i == 0; // 4096^3 prints the model's cost
    dev.set_timing_model(o);
    const emit::CodeObject co = compile_gemm_kernel(passes[i]);
    const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
    dev.launch(dev.get_kernel(mod, co.kernel_name), gemm_grid(passes[i], g),
               {uint32_t(gemm_tile_shape(spec.tile).threads())}, gemm_kernel_args(g).span());
    const emu::timing::TimingReport report = dev.last_timing().value();
    if (i == 0)
      result.main = report;
    else
      result.reduce_seconds = report.seconds;
    result.seconds += report.seconds;
  }
  dev.set_timing_model(std::nullopt);
  result.tflops = 2.0 * double(c.m) * double(c.n) * double(c.k) / result.seconds * 1e-12;
  for (runtime::DevicePtr p : {g.a, g.b, g.out})
    dev.free(p);
  if (g.workspace)
    dev.free(g.workspace);
  return result;
}

std::string config_text(GemmConfig c) {
  const GemmTileShape s = gemm_tile_shape(c.tile);
  std::string t = std::string(gemm_tile_name(c.tile)) + " (" + std::to_string(s.m) + " x " +
                  std::to_string(s.n) + ", " + std::to_string(s.waves()) + " waves)";
  if (c.split_k > 1)
    t += ", split-K " + std::to_string(c.split_k);
  return t;
}

// The model's cost at 4096^3 over `repeats` modeled launches: the median of each part.
// The case runs in the heuristic's configuration (unsplit at 4096^3).
void print_cost(runtime::EmuDevice& dev, const Case& c, runtime::DevicePtr aux, int repeats,
                const std::string& backend) {
  const GemmConfig config = gemm_config_for(c.spec, c.m, c.n, c.k);
  std::vector<double> rec, mod, plain, ratio;
  double skipped = 0;
  for (int i = 0; i < repeats; ++i) {
    const emu::timing::TimingReport t = modeled(dev, c, config, aux).main;
    skipped =
        double(t.skipped_instructions) / double(std::max<uint64_t>(t.simulated_instructions, 1));
    rec.push_back(t.recording_cpu_seconds);
    mod.push_back(t.host_cpu_seconds);
    plain.push_back(t.plain_cpu_seconds);
    ratio.push_back((t.recording_cpu_seconds + t.host_cpu_seconds) / t.plain_cpu_seconds);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  std::printf("  %-4s model cost, median of %d: %.4f s CPU recording + %.4f s CPU modeling vs "
              "%.4f s CPU plain emulation: %.2fx (runs %.2fx to %.2fx)",
              backend.c_str(), repeats, median(rec), median(mod), median(plain), median(ratio),
              *std::min_element(ratio.begin(), ratio.end()),
              *std::max_element(ratio.begin(), ratio.end()));
  if (g_fast_forward)
    std::printf("; the simulation fast-forwarded %.0f%% of its instructions", 100 * skipped);
  std::printf("\n");
}

struct Shape {
  const char* what;
  int64_t m, n, k;
};

// Per K-loop iteration and wave: the difference of the K and K / 2 runs, over the K / 2 / bk
// iterations of the workgroup's waves.
void print_loop_mix(const emu::LaunchStats& full, const emu::LaunchStats& half, double iterations,
                    int waves, const char* backend) {
  const double per = iterations * double(waves);
  std::printf("  %-4s K loop per iteration and wave:", backend);
  for (size_t i = 0; i < full.instructions.size(); ++i) {
    const double d = double(full.instructions[i]) - double(half.instructions[i]);
    if (d > 0)
      std::printf(" %s %.1f", emu::class_name(static_cast<emu::InstrClass>(i)), d / per);
  }
  const double loop_total = double(full.total_instructions() - half.total_instructions());
  const double loop_wmma = double(full.wmma_instructions - half.wmma_instructions);
  std::printf("; WMMA share %.1f%%\n", 100.0 * loop_wmma / loop_total);
}

// --sweep: the modeled time of every tile configuration (each tile, split-K 1, 2, 4, 8, 16
// where the K tiles allow it) at the shapes the heuristic's rules were derived from
// (docs/kernels.md "GEMM tile configurations"): M = 1, 16, 64, 256 x N = 32, 64, 4096 with
// K = 4096, and tile counts around the CU count. One line per configuration; the heuristic's
// choice is marked. Skips configurations with more than 16 workgroups per CU (split-K beyond
// the CUs) to bound the run time.
void print_sweep(runtime::EmuDevice& dev, const char* kernel, const GemmKernelSpec& spec,
                 runtime::DevicePtr aux, const std::string& backend) {
  const std::vector<Shape> shapes = {
      {"M=1 N=32", 1, 32, 4096},         {"M=1 N=64", 1, 64, 4096},
      {"M=1 N=4096", 1, 4096, 4096},     {"M=16 N=32", 16, 32, 4096},
      {"M=16 N=64", 16, 64, 4096},       {"M=16 N=4096", 16, 4096, 4096},
      {"M=64 N=32", 64, 32, 4096},       {"M=64 N=64", 64, 64, 4096},
      {"M=64 N=4096", 64, 4096, 4096},   {"M=256 N=32", 256, 32, 4096},
      {"M=256 N=64", 256, 64, 4096},     {"M=256 N=4096", 256, 4096, 4096},
      {"M=4096 N=32", 4096, 32, 4096},   {"M=4096 N=64", 4096, 64, 4096},
      {"few tiles", 256, 256, 4096},     {"few tiles", 512, 512, 4096},
      {"tiles = CUs", 1024, 1024, 4096}, {"short K", 256, 256, 1024},
      {"M=1 short K", 1, 4096, 1024},    {"M=16 long K", 16, 4096, 16384}};
  const int cus = gemm_compute_units(Arch::gfx1201);
  for (const Shape& sh : shapes) {
    const Case c{kernel, spec, sh.m, sh.n, sh.k};
    const GemmConfig chosen = gemm_config_for(spec, sh.m, sh.n, sh.k);
    const int64_t k_tiles = gemm_k_tiles(spec, sh.k);
    for (GemmTile t : all_gemm_tiles) {
      const int64_t tiles = gemm_tiles(t, sh.m, sh.n);
      for (int split : {1, 2, 4, 8, 16}) {
        if (split > 1 &&
            (gemm_k_split(k_tiles, split).splits != split || tiles * split > int64_t{16} * cus))
          continue;
        const GemmConfig config{t, split};
        const Modeled m = modeled(dev, c, config, aux);
        std::printf("  %-4s sweep %-12s M=%-4lld N=%-4lld K=%-5lld %-28s %5lld tiles: modeled "
                    "(gfx1201) %8.1f us",
                    backend.c_str(), sh.what, static_cast<long long>(sh.m),
                    static_cast<long long>(sh.n), static_cast<long long>(sh.k),
                    config_text(config).c_str(), static_cast<long long>(tiles), m.seconds * 1e6);
        if (m.reduce_seconds > 0)
          std::printf(" (partial %.1f + reduce %.1f)", m.main.seconds * 1e6,
                      m.reduce_seconds * 1e6);
        std::printf(", %s%s\n", m.main.bound.c_str(), config == chosen ? "  <- heuristic" : "");
        std::fflush(stdout);
      }
    }
  }
}

} // namespace

// bench_gemm [--cost R] [--exact] [--sweep] [kernel substring] [hip|llvm]: every kernel at the
// headline shapes (4096^3; M = 1, 16, 64 with N = K = 4096; a few-tile 256 x 256 x 4096; a
// skinny-N 4096 x 32 x 4096), or the ones named.
//   --cost R   only the timing model's cost at 4096^3: R modeled launches per kernel and
//              backend, the median CPU seconds of recording, modeling and plain emulation
//              (single runs on a shared host differ by 10-20%)
//   --sweep    the modeled time of every tile configuration at the sweep shapes (print_sweep)
//   --queue-rule NAME  TimingOptions::queue_rule (two-rounds, turnover, resident-half)
//   --exact    after each modeled figure, every figure of its report at full precision
//              (TimingReport::exact(); scripts/check_timing_exact.sh compares two builds)
int main(int argc, char** argv) {
  std::string only, only_backend;
  int cost_repeats = 0;
  bool exact = false, sweep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--exact") {
      exact = true;
    } else if (a == "--sweep") {
      sweep = true;
    } else if (a == "--fast-forward") {
      g_fast_forward = true;
    } else if (a == "--queue-rule" && i + 1 < argc) {
      try {
        g_queue_rule = emu::timing::parse_queue_rule(argv[++i]);
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_gemm: --queue-rule: %s\n", e.what());
        return 2;
      }
    } else if (a == "--cost" && i + 1 < argc) {
      cost_repeats = std::atoi(argv[++i]);
      if (cost_repeats < 1) {
        std::fprintf(stderr, "bench_gemm: --cost R needs R >= 1 (got %s)\n", argv[i]);
        return 2;
      }
    } else if (a.starts_with("--")) {
      std::fprintf(stderr,
                   "bench_gemm: unknown option %s (known: --cost R, --exact, --sweep, "
                   "--fast-forward, --queue-rule NAME)\n",
                   a.c_str());
      return 2;
    } else if (only.empty()) {
      only = a;
    } else {
      only_backend = a;
    }
  }
  const std::vector<std::pair<const char*, GemmKernelSpec>> kernels = {
      {"gemm f16->f32",
       spec_of(DType::f16, DType::f16, DType::f32, ScaleKind::none, ScaleKind::none)},
      {"gemm bf16->bf16",
       spec_of(DType::bf16, DType::bf16, DType::bf16, ScaleKind::none, ScaleKind::none)},
      {"scaled_mm e4m3->bf16",
       spec_of(DType::e4m3, DType::e4m3, DType::bf16, ScaleKind::rowwise, ScaleKind::rowwise)},
      {"int8_linear ->f16",
       spec_of(DType::int8, DType::int8, DType::f16, ScaleKind::rowwise, ScaleKind::rowwise)},
      {"w8a16 f16",
       spec_of(DType::f16, DType::int8, DType::f16, ScaleKind::none, ScaleKind::rowwise)},
      {"scaled_mm_fused_quant bf16->e4m3, dynamic",
       fused_spec(DType::e4m3, DType::e4m3, DType::bf16, DType::bf16)},
      {"mxfp8_gemm e4m3->bf16", mx_spec(DType::e4m3, DType::e4m3, DType::bf16)},
      {"iu4_gemm int4->i32",
       spec_of(DType::int4, DType::int4, DType::i32, ScaleKind::none, ScaleKind::none)},
  };
  const std::vector<Shape> shapes = {{"square", 4096, 4096, 4096},  {"decode", 1, 4096, 4096},
                                     {"decode", 16, 4096, 4096},    {"decode", 64, 4096, 4096},
                                     {"few tiles", 256, 256, 4096}, {"skinny N", 4096, 32, 4096}};
  runtime::EmuDevice dev;
  dev.set_memcheck(false); // one workgroup reads rows of the real problem only
  // Big enough for the one workgroup's rows and columns of every case (A/B: 128 x K bytes
  // and 2-byte elements; out: 128 rows of N).
  const runtime::DevicePtr buf = dev.allocate(size_t(4096) * 4096 * 4);
  for (const auto& [kernel, spec] : kernels) {
    if (!only.empty() && std::string(kernel).find(only) == std::string::npos)
      continue;
    std::printf("== %s (%s), K tile %d %s\n", kernel, spec.name().c_str(),
                gemm_tile_config(spec).k_storage, is_packed_int4(spec.a) ? "bytes" : "elements");
    for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
      const std::string bn(emit::backend_name(b));
      if (!only_backend.empty() && bn != only_backend)
        continue;
      set_gemm_target({b, Arch::gfx1201});
      if (sweep) {
        print_sweep(dev, kernel, spec, buf, bn);
        continue;
      }
      if (cost_repeats > 0) {
        print_cost(dev, {kernel, spec, 4096, 4096, 4096}, buf, cost_repeats, bn);
        continue;
      }
      for (const Shape& sh : shapes) {
        const Case c{kernel, spec, sh.m, sh.n, sh.k};
        // The heuristic's configuration for gfx1201 (kernels/gemm/gemm_config.hpp).
        const GemmConfig config = gemm_config_for(spec, sh.m, sh.n, sh.k);
        GemmKernelSpec tiled = spec;
        tiled.tile = config.tile;
        GemmLaunchArgs shape_args; // the sizes and strides one_workgroup and modeled use
        shape_args.m = sh.m;
        shape_args.n = sh.n;
        shape_args.k = sh.k;
        shape_args.lda = shape_args.ldb = is_packed_int4(spec.a) ? sh.k / 2 : sh.k;
        shape_args.ldo = sh.n;
        gemm_clip_edges(tiled, shape_args);
        const emit::CodeObject co = compile_gemm_kernel(tiled);
        const emit::ResourceReport& r = co.resources;
        std::printf("  %-4s %s M=%lld N=%lld K=%lld: config %s; %d VGPRs, %d SGPRs, %lld B LDS, "
                    "%lld B scratch, occupancy %d waves/SIMD (%s) by the report\n",
                    bn.c_str(), sh.what, static_cast<long long>(sh.m), static_cast<long long>(sh.n),
                    static_cast<long long>(sh.k), config_text(config).c_str(), r.vgprs, r.sgprs,
                    static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                    r.waves_per_simd, std::string(r.occupancy_limiter).c_str());
        const Case ct{kernel, tiled, sh.m, sh.n, sh.k};
        const emu::LaunchStats full = one_workgroup(dev, co, ct, c.k, buf);
        const emu::LaunchStats half = one_workgroup(dev, co, ct, c.k / 2, buf);
        const Modeled t = modeled(dev, c, config, buf);
        std::printf("  %-4s modeled (gfx1201): %.1f us, %.1f TFLOP/s (%.0f%% of the %s peak)",
                    bn.c_str(), t.seconds * 1e6, t.tflops, 100 * t.tflops * 1e12 / t.main.peak,
                    t.main.peak_name.c_str());
        if (t.reduce_seconds > 0)
          std::printf(" = partial %.1f us + reduce %.1f us", t.main.seconds * 1e6,
                      t.reduce_seconds * 1e6);
        std::printf(", %llu workgroups, bound: %s, occupancy %d waves/SIMD (%s)\n",
                    static_cast<unsigned long long>(t.main.workgroups), t.main.bound.c_str(),
                    t.main.occupancy.waves_per_simd, t.main.occupancy.limiter.c_str());
        if (exact)
          std::printf("%s", t.main.exact().c_str());
        const GemmConfig before{GemmTile::t128x128w4, 1}; // the family's one config until issue 14
        if (!(config == before)) {
          const Modeled old = modeled(dev, c, before, buf);
          std::printf("  %-4s modeled (gfx1201) with %s instead: %.1f us, %.1f TFLOP/s: the "
                      "heuristic's config is %.2fx as fast\n",
                      bn.c_str(), config_text(before).c_str(), old.seconds * 1e6, old.tflops,
                      old.seconds / t.seconds);
        }
        if (sh.m == 4096 && sh.n == 4096) {
          // The cost of the model: recording + modeling against the plain emulation of the
          // same sampled workgroups (the same launch without recording), in CPU seconds of
          // all threads (a loaded host's wall clock is noisy).
          std::printf("  %-4s model cost: %.3f s CPU recording + %.3f s CPU modeling vs %.3f s "
                      "CPU plain emulation of the %llu sampled workgroups: %.2fx\n",
                      bn.c_str(), t.main.recording_cpu_seconds, t.main.host_cpu_seconds,
                      t.main.plain_cpu_seconds, static_cast<unsigned long long>(t.main.sampled),
                      (t.main.recording_cpu_seconds + t.main.host_cpu_seconds) /
                          t.main.plain_cpu_seconds);
        }
        const int64_t half_k_storage = is_packed_int4(spec.a) ? c.k / 4 : c.k / 2;
        print_loop_mix(full, half,
                       double(half_k_storage) / double(gemm_tile_config(tiled).k_storage),
                       gemm_tile_shape(tiled.tile).waves(), bn.c_str());
      }
    }
  }
  dev.free(buf);
  return 0;
}
