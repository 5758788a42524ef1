// Emulator speed, each figure side by side with the implementation before the fast emulator
// (issue 15): wave-instructions per second on an ALU, an LDS and a global-memory loop, WMMA /
// SWMMAC per second for every form (fast path vs the reference mode, measured in this run),
// a 512^3 f16 WMMA GEMM end to end (checked against a host product), and the library's flash
// attention kernel (bf16, D = 128, B = 1, H = 4, Sq = Sk = 512) end to end (checked against a
// host softmax(Q K^T / sqrt(D)) V).
//
// Rates are per CPU second of this process (the machine is shared: wall time swings with the
// load of other processes, CPU time much less); launches run on one host thread unless noted.
// "before" figures of the loops and the GEMM are recorded: this same program built against
// commit 9d6eb36 (the emulator before issue 15) on this machine; `bench_emu --quick` runs
// short versions for profiling. The flash attention "before" figure is recorded from main at
// d1f9d84 (which already has the first fast-emulator work, emufast): this program built
// against that commit's libraries, on this machine.
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <runtime/emu_device.hpp>
#include <runtime/kernel_args.hpp>

#if __has_include(<runtime/emu/valu/mma_engine.hpp>)
#include <atoms/mma/gfx12_instrs.hpp>
#include <atoms/mma/reference.hpp>
#include <runtime/emu/valu/mma_engine.hpp>
#define TW_BENCH_MMA_ENGINE 1
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string_view>
#include <thread>
#include <vector>

using namespace tw;

namespace {

std::vector<uint8_t> load(const char* name) {
  std::ifstream f(std::string(TW_BENCH_KERNEL_DIR) + "/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// CPU seconds of f().
double cpu_time(const std::function<void()>& f) {
  const double t0 = cpu_seconds();
  f();
  return cpu_seconds() - t0;
}

// f16 bits of small integers / halves (exact; the GEMM inputs below).
uint16_t to_f16(float x) {
  const _Float16 h = static_cast<_Float16>(x);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

// Figures of commit 9d6eb36 measured with this program (see the header comment) on the shared
// 2-core machine, 2026-12-03; 0 = none. M wave-instructions per CPU second; the GEMM in CPU s.
struct Recorded {
  std::string_view what;
  double value;
};
constexpr Recorded kBefore[] = {
    {"alu_loop", 5.364},    {"alu_loop (memcheck on)", 4.000}, {"lds_loop", 3.928},
    {"global_loop", 5.078}, {"gemm_wmma 512^3 f16", 0.616},
};
// Flash attention: main at d1f9d84 (see the header comment); CPU seconds of one launch (the
// median of three runs: 0.176, 0.164, 0.162; 2026-12-04, machine shared and loaded).
constexpr Recorded kMain[] = {
    {"flash_attn bf16 D=128 S=512", 0.164},
};

double main_figure(std::string_view what) {
  for (const Recorded& r : kMain)
    if (r.what == what)
      return r.value;
  return 0;
}

double before(std::string_view what) {
  for (const Recorded& r : kBefore)
    if (r.what == what)
      return r.value;
  return 0;
}

// `now` next to the recorded figure; the factor is how many times faster now is (a rate that
// grew, or a time that shrank).
void side_by_side(std::string_view what, double now, double was, const char* unit,
                  bool lower_is_better = false) {
  if (was > 0)
    std::printf("%-36s %10.3f %s   before %10.3f   x%.1f faster\n", std::string(what).c_str(), now,
                unit, was, lower_is_better ? was / now : now / was);
  else
    std::printf("%-36s %10.3f %s\n", std::string(what).c_str(), now, unit);
}

// One launch; prints the wave-instructions per CPU second next to the recorded figure.
void loop_figure(runtime::EmuDevice& dev, runtime::KernelHandle k, const char* what,
                 unsigned groups, const runtime::KernelArgs& args) {
  const double cpu = cpu_time([&] { dev.launch(k, {groups, 1, 1}, {256, 1, 1}, args.span()); });
  const auto& s = dev.last_stats();
  std::printf("  %s: %llu wave-instructions (VALU %llu, SALU %llu, VMEM %llu, LDS %llu), "
              "%.3f s CPU, %.3f s wall\n",
              what, static_cast<unsigned long long>(s.total_instructions()),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Valu)),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Salu)),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Vmem)),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Lds)), cpu, s.seconds);
  side_by_side(what, double(s.total_instructions()) / cpu / 1e6, before(what), "M wave-instr/s");
}

#ifdef TW_BENCH_MMA_ENGINE
// Every WMMA / SWMMAC form on random registers: the fast path and the reference mode.
void mma_figures(bool quick) {
  std::printf("\nWMMA / SWMMAC per CPU second (random operands, 2:4 index sets; fast path vs "
              "reference mode)\n");
  std::mt19937 rng(15);
  std::vector<uint32_t> a(8 * 32), b(8 * 32), c(8 * 32), index(32), d(8 * 32), d_ref(8 * 32);
  for (const atoms::MmaInstrInfo& info : atoms::all_mma_instrs()) {
    for (auto* x : {&a, &b, &c, &index})
      for (auto& w : *x)
        w = rng();
    // SWMMAC index sets as a 2:4 sparse matrix has them: two different positions of each group
    // of 4 (a position named twice is legal but takes mma_fast's slower, unfused sums).
    for (auto& set : index) {
      static constexpr uint32_t kPairs[6] = {0 | 1 << 2, 0 | 2 << 2, 0 | 3 << 2,
                                             1 | 2 << 2, 1 | 3 << 2, 2 | 3 << 2};
      set = 0;
      for (int group = 0; group < 8; ++group)
        set |= kPairs[rng() % 6] << (4 * group);
    }
    if (atoms::is_float_elem(info.cd_type)) // finite accumulators, as in a real GEMM
      for (auto& w : c)
        w = info.cd_type == atoms::MmaElem::f32 ? 0x3f800000u | (w & 0x7fffffu) : 0x3c003c00u;
    const atoms::MmaModifiers mods;
    const int n_ref = quick ? 20 : 400, n_fast = quick ? 200 : 20000;
    const double t_ref = cpu_time([&] {
      for (int i = 0; i < n_ref; ++i)
        atoms::mma_reference(info, mods, a.data(), b.data(), c.data(), index.data(), d_ref.data());
    });
    const double t_fast = cpu_time([&] {
      for (int i = 0; i < n_fast; ++i)
        emu::valu::mma_fast(info, mods, a.data(), b.data(), c.data(), index.data(), d.data());
    });
    const bool same = d == d_ref;
    std::printf("%-36s %10.3f M/s   reference %8.3f M/s   x%.1f   (%.3f us each)%s\n",
                std::string(info.mnemonic).c_str(), n_fast / t_fast / 1e6, n_ref / t_ref / 1e6,
                (n_fast / t_fast) / (n_ref / t_ref), t_fast / n_fast * 1e6,
                same ? "" : "  RESULTS DIFFER");
  }
}
#endif

// C = A * B^T on the emulator (gemm_wmma: one 16 x 16 tile per wave), checked on the host.
void gemm_figure(runtime::EmuDevice& dev, runtime::ModuleHandle m, int size) {
  const int M = size, N = size, K = size;
  std::vector<uint16_t> a(size_t(M) * K), bt(size_t(N) * K);
  std::vector<float> af(a.size()), bf(bt.size());
  for (size_t i = 0; i < a.size(); ++i) {
    af[i] = float(int(i * 7 % 9) - 4) * 0.5f;
    a[i] = to_f16(af[i]);
  }
  for (size_t i = 0; i < bt.size(); ++i) {
    bf[i] = float(int(i * 5 % 7) - 3) * 0.25f;
    bt[i] = to_f16(bf[i]);
  }
  auto da = dev.allocate(a.size() * 2), db = dev.allocate(bt.size() * 2);
  auto dc = dev.allocate(size_t(M) * N * 4);
  dev.copy_to_device(da, a.data(), a.size() * 2);
  dev.copy_to_device(db, bt.data(), bt.size() * 2);
  runtime::KernelArgs args;
  args.ptr(da).ptr(db).ptr(dc).add(M).add(N).add(K);
  auto k = dev.get_kernel(m, "gemm_wmma");
  dev.set_threads(0);
  const double cpu = cpu_time([&] {
    dev.launch(k, {unsigned(M / 16 * N / 16 / 4), 1, 1}, {128, 1, 1}, args.span());
  });
  const auto& s = dev.last_stats();
  std::vector<float> c(size_t(M) * N);
  dev.copy_to_host(c.data(), dc, c.size() * 4);
  double max_err = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int kk = 0; kk < K; ++kk)
        ref += double(af[size_t(i) * K + kk]) * bf[size_t(j) * K + kk];
      max_err = std::max(max_err, std::fabs(ref - c[size_t(i) * N + j]));
    }
  std::printf("  gemm_wmma %d^3 f16: %llu wave-instructions (WMMA %llu), %.1f MFLOP/s emulated, "
              "max |error| vs host %.3g\n",
              size, static_cast<unsigned long long>(s.total_instructions()),
              static_cast<unsigned long long>(s.count(emu::InstrClass::Wmma)),
              2.0 * M * N * K / s.seconds / 1e6, max_err);
  const std::string what = "gemm_wmma " + std::to_string(size) + "^3 f16";
  std::printf("  (%.3f s wall on %u host threads)\n", s.seconds,
              std::thread::hardware_concurrency());
  side_by_side(what, cpu, before(what), "s CPU", true);
  dev.free(da);
  dev.free(db);
  dev.free(dc);
}

// The library's flash attention kernel (bf16 in and out, D = 128, not causal) at B = 1, H = 4,
// Sq = Sk = 512 ([B, S, H, D] tensors), one launch on every host thread; the output is checked
// against softmax(Q K^T * scale) V computed in double on the host from the same bf16 inputs.
void flash_attn_figure(runtime::EmuDevice& dev, int repeat) {
  namespace fa = kernels::flash_attn_kernel;
  const int64_t B = 1, H = 4, S = 512, D = 128;
  fa::FlashAttnKernelSpec spec;
  spec.dtype = spec.out = kernels::DType::bf16;
  spec.head_dim_pad = spec.head_dim_v_pad = int(D);
  spec.vec_aligned = true;
  spec.v_transpose_loads = true;
  spec.k_clipped = true;
  kernels::set_gemm_target({emit::Backend::llvm, Arch::gfx1201});
  const emit::CodeObject co = fa::compile_flash_attn_kernel(spec);
  const size_t n = size_t(B * S * H * D);
  auto bf16_of = [](float x) { return uint16_t(std::bit_cast<uint32_t>(x) >> 16); };
  auto float_of = [](uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); };
  std::vector<uint16_t> q(n), k(n), v(n);
  uint32_t seed = 12345;
  for (auto* t : {&q, &k, &v})
    for (auto& e : *t) {
      seed = seed * 1664525u + 1013904223u;
      e = bf16_of(float(seed >> 8) / 4194304.0f - 2.0f); // uniform in [-2, 2), exact in bf16
    }
  auto dq = dev.allocate(n * 2), dk = dev.allocate(n * 2), dv = dev.allocate(n * 2),
       dout = dev.allocate(n * 2);
  dev.copy_to_device(dq, q.data(), n * 2);
  dev.copy_to_device(dk, k.data(), n * 2);
  dev.copy_to_device(dv, v.data(), n * 2);
  fa::FlashAttnLaunchArgs g = fa::dense_bshd_args(B, S, H, D);
  g.q = dq;
  g.k = dk;
  g.v = dv;
  g.out = dout;
  g.sm_scale = float(1.0 / std::sqrt(double(D)));
  const runtime::KernelArgs args = fa::flash_attn_kernel_args(g);
  const runtime::ModuleHandle mod = dev.load_code_object(co.elf);
  const runtime::KernelHandle kh = dev.get_kernel(mod, co.kernel_name);
  dev.set_threads(0);
  std::vector<uint16_t> out(n);
  for (int r = 0; r < repeat; ++r) {
    const double cpu = cpu_time(
        [&] { dev.launch(kh, fa::flash_attn_grid(g), {uint32_t(fa::threads)}, args.span()); });
    const auto& s = dev.last_stats();
    dev.copy_to_host(out.data(), dout, n * 2);
    double max_err = 0;
    std::vector<double> p(static_cast<size_t>(S));
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < S; ++i) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(float_of(q[size_t((i * H + h) * D + d)])) *
                   float_of(k[size_t((j * H + h) * D + d)]);
          p[size_t(j)] = dot * g.sm_scale;
          mx = std::max(mx, p[size_t(j)]);
        }
        double sum = 0;
        for (auto& e : p)
          sum += (e = std::exp(e - mx));
        for (int64_t d = 0; d < D; ++d) {
          double o = 0;
          for (int64_t j = 0; j < S; ++j)
            o += p[size_t(j)] * float_of(v[size_t((j * H + h) * D + d)]);
          const double got = float_of(out[size_t((i * H + h) * D + d)]);
          max_err = std::max(max_err, std::fabs(o / sum - got));
        }
      }
    std::printf("  flash_attn bf16 D=128 B=1 H=4 Sq=Sk=512: %llu wave-instructions (WMMA %llu), "
                "%.3f s wall, %.1f M wave-instr per CPU s, max |error| vs host %.3g\n",
                static_cast<unsigned long long>(s.total_instructions()),
                static_cast<unsigned long long>(s.count(emu::InstrClass::Wmma)), s.seconds,
                double(s.total_instructions()) / cpu / 1e6, max_err);
    const char* what = "flash_attn bf16 D=128 S=512";
    const double was = main_figure(what);
    if (was > 0)
      std::printf("%-36s %10.3f s CPU   main d1f9d84 %6.3f   x%.1f faster\n", what, cpu, was,
                  was / cpu);
    else
      std::printf("%-36s %10.3f s CPU\n", what, cpu);
  }
  for (auto p : {dq, dk, dv, dout})
    dev.free(p);
}

} // namespace

int main(int argc, char** argv) {
  // --quick: short versions for profiling; --only alu|lds|global|mma|gemm|flash: one figure
  // (the loops repeated --repeat N times, so a profile of one figure has enough samples).
  bool quick = false;
  std::string_view only;
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr,
                   "bench_emu: unknown argument '%s' (--quick, --only "
                   "alu|lds|global|mma|gemm|flash, --repeat N)\n",
                   argv[i]);
      return 2;
    }
  }
  auto wanted = [&](std::string_view figure) { return only.empty() || only == figure; };
  runtime::EmuDevice dev;
  dev.set_memcheck(false);
  auto m = dev.load_code_object(load("emu_bench.hsaco"));
  std::printf("host threads: %u%s\n", std::thread::hardware_concurrency(),
              quick ? " (quick run)" : "");
  const unsigned groups = quick ? 1 : 8;
  const int iters = quick ? 200 : 2000;
  dev.set_threads(1);

  auto out = dev.allocate(groups * 256 * 4);
  {
    runtime::KernelArgs args;
    args.ptr(out).add(iters);
    auto k = dev.get_kernel(m, "alu_loop");
    for (int r = 0; r < repeat && wanted("alu"); ++r) {
      loop_figure(dev, k, "alu_loop", groups, args);
      dev.set_memcheck(true);
      loop_figure(dev, k, "alu_loop (memcheck on)", groups, args);
      dev.set_memcheck(false);
    }
    for (int r = 0; r < repeat && wanted("lds"); ++r)
      loop_figure(dev, dev.get_kernel(m, "lds_loop"), "lds_loop", groups, args);
  }
  {
    const unsigned n = 1u << 16;
    auto in = dev.allocate(n * 4);
    std::vector<float> host(n, 1.0f);
    dev.copy_to_device(in, host.data(), n * 4);
    runtime::KernelArgs args;
    args.ptr(in).ptr(out).add(n).add(iters);
    for (int r = 0; r < repeat && wanted("global"); ++r)
      loop_figure(dev, dev.get_kernel(m, "global_loop"), "global_loop", groups, args);
    dev.free(in);
  }
  dev.free(out);
#ifdef TW_BENCH_MMA_ENGINE
  if (wanted("mma"))
    mma_figures(quick);
#endif
  std::printf("\n");
  for (int r = 0; r < repeat && wanted("gemm"); ++r)
    gemm_figure(dev, m, quick ? 128 : 512);
  if (wanted("flash"))
    flash_attn_figure(dev, repeat);
  return 0;
}
