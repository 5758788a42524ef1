// bench/compile: what a kernel compile costs, per backend, for every kernel `tilewave emit`
// knows (the IR samples, the DSL samples, the library's gemm; default parameters, gfx1201): cold
// (no cache), warm from the disk cache (a fresh process's first compile), warm from the memory
// cache (every later compile in a process), and the first compile of a new process that hits
// the disk cache (a child process of this one: toolchain identity, disk read, nothing spawned).
// "cold cpu ms" is the cold compile's CPU time on the compiling thread (the run of median CPU).
//   bench_compile [--repeat N] [--arch gfx1200|gfx1201] [--kernel NAME]... [--backend hip|llvm]
//                 [--stages]
//   --kernel / --backend  only these kernels (repeatable) / this backend
//   --stages              also where the time of a cold compile, a disk hit and a new process's
//                         disk hit goes (emit::CompileStageTimes; the median run of each), as
//                         wall clock and as the compiling thread's CPU time ("cpu" rows: what
//                         the compile itself cost, without the time other processes of a
//                         shared machine had the core)
//   bench_compile --first-hit KERNEL BACKEND ARCH CACHE_DIR  (the child: prints microseconds)
#include <emit/compile.hpp>
#include <emit/registry.hpp>
#include <emit/stage_times.hpp>
#include <emit/subprocess.hpp>
#include <tilewave/dsl_sample_kernels.hpp>
#include <tilewave/library_kernels.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One compile's stages in microseconds, in a fixed order (the child prints them; the table too):
// wall-clock or the compiling thread's CPU time.
std::vector<double> stage_us(const tw::emit::CompileStageTimes& t, bool cpu) {
  const tw::emit::StageTime parts[] = {t.verify,    t.key,      t.toolchain,    t.memory,
                                       t.disk_read, t.describe, t.build_module, t.optimize,
                                       t.codegen,   t.link,     t.hip_compile,  t.disk_write};
  std::vector<double> us;
  for (const tw::emit::StageTime& s : parts)
    us.push_back(1e6 * (cpu ? s.cpu_s : s.wall_s));
  return us;
}
constexpr const char* kStageNames[] = {"verify", "key", "toolch",  "memory", "disk", "describe",
                                       "build",  "opt", "codegen", "link",   "hip",  "write"};

struct Timed {
  double total_us = 0;               // wall clock of the whole compile() call
  double total_cpu_us = 0;           // the calling thread's CPU time of it
  std::vector<double> stages_us;     // stage_us order, wall clock
  std::vector<double> stages_cpu_us; // stage_us order, thread CPU time
};

// The wall-clock figures of the run of median wall time and the CPU figures of the run of
// median CPU time (on a loaded machine they need not be the same run).
Timed median_run(std::vector<Timed> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Timed& a, const Timed& b) { return a.total_us < b.total_us; });
  Timed m = runs[runs.size() / 2];
  std::sort(runs.begin(), runs.end(),
            [](const Timed& a, const Timed& b) { return a.total_cpu_us < b.total_cpu_us; });
  m.total_cpu_us = runs[runs.size() / 2].total_cpu_us;
  m.stages_cpu_us = runs[runs.size() / 2].stages_cpu_us;
  return m;
}

// One compile of `k`, timed as a whole and by stage.
Timed timed_compile(const tw::ir::Kernel& k, tw::emit::Backend backend, tw::Arch arch,
                    tw::emit::CompileOptions options, tw::emit::CodeObject* out = nullptr) {
  tw::emit::CompileStageTimes times;
  options.stage_times = &times;
  tw::emit::CodeObject co;
  Timed r;
  const double cpu0 = tw::emit::thread_cpu_seconds();
  r.total_us = 1e6 * seconds([&] { co = tw::emit::compile(k, backend, arch, options); });
  r.total_cpu_us = 1e6 * (tw::emit::thread_cpu_seconds() - cpu0);
  r.stages_us = stage_us(times, false);
  r.stages_cpu_us = stage_us(times, true);
  if (out)
    *out = std::move(co);
  return r;
}

// The child of the new-process figure: builds KERNEL, then times its first compile, which must
// be a disk hit. Prints "<trace us> <compile us> <compile cpu us> <stage us>... <stage cpu us>...".
int first_hit_child(char** argv) {
  using namespace tw::emit;
  const auto t0 = Clock::now();
  tw::tool::register_library_kernels(kernel_registry());
  tw::tool::register_dsl_sample_kernels(kernel_registry());
  const tw::ir::Kernel k = kernel_registry().build(argv[2]);
  const double trace_s = std::chrono::duration<double>(Clock::now() - t0).count();
  CompileOptions warm;
  warm.cache_dir = argv[5];
  CacheOutcome outcome = CacheOutcome::miss;
  warm.cache_outcome = &outcome;
  const Timed t = timed_compile(k, parse_backend(argv[3]), tw::parse_arch(argv[4]), warm);
  if (outcome != CacheOutcome::disk_hit) {
    std::fprintf(stderr, "expected a disk hit, got %s\n", std::string(to_string(outcome)).c_str());
    return 1;
  }
  std::printf("%.1f %.1f %.1f", 1e6 * trace_s, t.total_us, t.total_cpu_us);
  for (double us : t.stages_us)
    std::printf(" %.1f", us);
  for (double us : t.stages_cpu_us)
    std::printf(" %.1f", us);
  std::printf("\n");
  return 0;
}

// The run of median time over `repeat` child processes of the first compile (a disk hit).
Timed new_process_hit(const std::string& kernel, tw::emit::Backend backend, tw::Arch arch,
                      const std::string& cache_dir, int repeat) {
  std::vector<Timed> runs;
  for (int r = 0; r < repeat; ++r) {
    const tw::emit::ProcessResult p = tw::emit::run_process(
        "/proc/self/exe", {"--first-hit", kernel, std::string(tw::emit::backend_name(backend)),
                           std::string(tw::arch_name(arch)), cache_dir});
    std::istringstream in(p.output);
    double trace = 0;
    Timed t;
    t.stages_us.resize(std::size(kStageNames));
    t.stages_cpu_us.resize(std::size(kStageNames));
    in >> trace >> t.total_us >> t.total_cpu_us;
    for (double& us : t.stages_us)
      in >> us;
    for (double& us : t.stages_cpu_us)
      in >> us;
    if (p.exit_code != 0 || !in)
      throw std::runtime_error("the --first-hit child failed: " + p.failure + p.output);
    runs.push_back(t);
  }
  return median_run(runs);
}

// Two rows per compile: wall clock, then the compiling thread's CPU time ("... cpu").
void print_stage_rows(const std::string& kernel, tw::emit::Backend backend, const std::string& what,
                      const Timed& t) {
  const auto row = [&](const std::string& label, double total, const std::vector<double>& us) {
    std::printf("%-18s %-7s %-15s %10.1f", kernel.c_str(),
                std::string(tw::emit::backend_name(backend)).c_str(), label.c_str(), total);
    double sum = 0;
    for (double x : us) {
      std::printf(" %8.1f", x);
      sum += x;
    }
    std::printf(" %8.1f\n", total - sum);
  };
  row(what, t.total_us, t.stages_us);
  row(what + " cpu", t.total_cpu_us, t.stages_cpu_us);
}

} // namespace

int main(int argc, char** argv) try {
  if (argc == 6 && !std::strcmp(argv[1], "--first-hit"))
    return first_hit_child(argv);
  using namespace tw::emit;
  int repeat = 3;
  tw::Arch arch = tw::Arch::gfx1201;
  std::vector<std::string> only_kernels;
  std::optional<Backend> only_backend;
  bool stages = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--arch") && i + 1 < argc)
      arch = tw::parse_arch(argv[++i]);
    else if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc)
      only_kernels.emplace_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--backend") && i + 1 < argc)
      only_backend = parse_backend(argv[++i]);
    else if (!std::strcmp(argv[i], "--stages"))
      stages = true;
    else {
      std::fprintf(stderr, "usage: bench_compile [--repeat N] [--arch gfx1200|gfx1201] "
                           "[--kernel NAME]... [--backend hip|llvm] [--stages]\n");
      return 2;
    }
  }
  tw::tool::register_library_kernels(kernel_registry());
  tw::tool::register_dsl_sample_kernels(kernel_registry());
  std::vector<const KernelEntry*> kernels;
  for (const std::string& name : only_kernels)
    kernels.push_back(&kernel_registry().find(name)); // throws naming an unknown kernel
  if (only_kernels.empty())
    kernels = kernel_registry().entries();
  std::vector<Backend> backends = {Backend::hip, Backend::llvm};
  if (only_backend)
    backends = {*only_backend};
  unsetenv("TILEWAVE_DUMP");
  unsetenv("TILEWAVE_CACHE");
  TempDir cache("tilewave-bench-compile"); // never the user's cache

  std::printf("compile time per kernel, %s, median of %d (memory hit: mean of 1000)\n",
              std::string(tw::arch_name(arch)).c_str(), repeat);
  std::printf("%-18s %-7s %10s %12s %14s %16s %18s %6s\n", "kernel", "backend", "cold ms",
              "cold cpu ms", "disk hit us", "memory hit us", "new-process hit us", "VGPRs");
  if (stages) {
    std::printf("stage rows (--stages), microseconds: total, then each stage, then the rest; "
                "wall clock, then (\"cpu\") the compiling thread's CPU time\n");
    std::printf("%-18s %-7s %-15s %10s", "kernel", "backend", "compile", "total us");
    for (const char* name : kStageNames)
      std::printf(" %8s", name);
    std::printf(" %8s\n", "rest");
  }
  for (const KernelEntry* e : kernels) {
    const tw::ir::Kernel k = e->build(ParamReader(e->name, e->params, {}));
    for (Backend backend : backends) {
      CompileOptions cold;
      cold.use_cache = false;
      std::vector<Timed> cold_runs, disk_runs;
      CodeObject co;
      for (int r = 0; r < repeat; ++r)
        cold_runs.push_back(timed_compile(k, backend, arch, cold, &co));

      CompileOptions warm;
      warm.cache_dir = cache.path();
      compile(k, backend, arch, warm); // stores the entry
      for (int r = 0; r < repeat; ++r) {
        clear_memory_cache();
        CacheOutcome outcome = CacheOutcome::miss;
        warm.cache_outcome = &outcome;
        disk_runs.push_back(timed_compile(k, backend, arch, warm));
        if (outcome != CacheOutcome::disk_hit)
          throw std::runtime_error("expected a disk hit, got " + std::string(to_string(outcome)));
      }
      warm.cache_outcome = nullptr;
      constexpr int kMemoryRuns = 1000;
      const double mem = seconds([&] {
                           for (int r = 0; r < kMemoryRuns; ++r)
                             compile(k, backend, arch, warm);
                         }) /
                         kMemoryRuns;
      const Timed fresh = new_process_hit(e->name, backend, arch, cache.path(), repeat);
      const Timed cold_median = median_run(cold_runs), disk_median = median_run(disk_runs);
      std::printf("%-18s %-7s %10.1f %12.1f %14.1f %16.1f %18.1f %6d\n", e->name.c_str(),
                  std::string(backend_name(backend)).c_str(), 1e-3 * cold_median.total_us,
                  1e-3 * cold_median.total_cpu_us, disk_median.total_us, 1e6 * mem, fresh.total_us,
                  co.resources.vgprs);
      std::fflush(stdout);
      if (stages) {
        print_stage_rows(e->name, backend, "cold", cold_median);
        print_stage_rows(e->name, backend, "disk hit", disk_median);
        print_stage_rows(e->name, backend, "new process", fresh);
      }
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_compile: %s\n", e.what());
  return 1;
}
