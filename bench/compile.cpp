// bench/compile: what a kernel compile costs, per backend, for every kernel `tilewave emit`
// knows (the IR samples, the DSL samples, the library's gemm; default parameters, gfx1201): cold
// (no cache), warm from the disk cache (a fresh process's first compile), warm from the memory
// cache (every later compile in a process), and the first compile of a new process that hits
// the disk cache (a child process of this one: toolchain identity, disk read, nothing spawned).
//   bench_compile [--repeat N] [--arch gfx1200|gfx1201]
//   bench_compile --first-hit KERNEL BACKEND ARCH CACHE_DIR  (the child: prints microseconds)
#include <emit/compile.hpp>
#include <emit/registry.hpp>
#include <emit/subprocess.hpp>
#include <tilewave/dsl_sample_kernels.hpp>
#include <tilewave/library_kernels.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The child of the new-process figure: builds KERNEL, then times its first compile, which must
// be a disk hit. Prints "<trace us> <compile us>".
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
  const double compile_s =
      seconds([&] { compile(k, parse_backend(argv[3]), tw::parse_arch(argv[4]), warm); });
  if (outcome != CacheOutcome::disk_hit) {
    std::fprintf(stderr, "expected a disk hit, got %s\n", std::string(to_string(outcome)).c_str());
    return 1;
  }
  std::printf("%.1f %.1f\n", 1e6 * trace_s, 1e6 * compile_s);
  return 0;
}

// Median over `repeat` child processes of the first compile (a disk hit), in microseconds.
double new_process_hit_us(const std::string& kernel, tw::emit::Backend backend, tw::Arch arch,
                          const std::string& cache_dir, int repeat) {
  std::vector<double> us;
  for (int r = 0; r < repeat; ++r) {
    const tw::emit::ProcessResult p = tw::emit::run_process(
        "/proc/self/exe", {"--first-hit", kernel, std::string(tw::emit::backend_name(backend)),
                           std::string(tw::arch_name(arch)), cache_dir});
    double trace = 0, compile = 0;
    if (p.exit_code != 0 || std::sscanf(p.output.c_str(), "%lf %lf", &trace, &compile) != 2)
      throw std::runtime_error("the --first-hit child failed: " + p.failure + p.output);
    us.push_back(compile);
  }
  return median(us);
}

} // namespace

int main(int argc, char** argv) try {
  if (argc == 6 && !std::strcmp(argv[1], "--first-hit"))
    return first_hit_child(argv);
  int repeat = 3;
  tw::Arch arch = tw::Arch::gfx1201;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--arch") && i + 1 < argc)
      arch = tw::parse_arch(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_compile [--repeat N] [--arch gfx1200|gfx1201]\n");
      return 2;
    }
  }
  using namespace tw::emit;
  tw::tool::register_library_kernels(kernel_registry());
  tw::tool::register_dsl_sample_kernels(kernel_registry());
  unsetenv("TILEWAVE_DUMP");
  unsetenv("TILEWAVE_CACHE");
  TempDir cache("tilewave-bench-compile"); // never the user's cache

  std::printf("compile time per kernel, %s, median of %d (memory hit: mean of 1000)\n",
              std::string(tw::arch_name(arch)).c_str(), repeat);
  std::printf("%-18s %-7s %10s %14s %16s %18s %6s\n", "kernel", "backend", "cold ms", "disk hit us",
              "memory hit us", "new-process hit us", "VGPRs");
  for (const KernelEntry* e : kernel_registry().entries()) {
    const tw::ir::Kernel k = e->build(ParamReader(e->name, e->params, {}));
    for (Backend backend : {Backend::hip, Backend::llvm}) {
      CompileOptions cold;
      cold.use_cache = false;
      std::vector<double> cold_s, disk_s;
      CodeObject co;
      for (int r = 0; r < repeat; ++r)
        cold_s.push_back(seconds([&] { co = compile(k, backend, arch, cold); }));

      CompileOptions warm;
      warm.cache_dir = cache.path();
      compile(k, backend, arch, warm); // stores the entry
      for (int r = 0; r < repeat; ++r) {
        clear_memory_cache();
        CacheOutcome outcome = CacheOutcome::miss;
        warm.cache_outcome = &outcome;
        disk_s.push_back(seconds([&] { compile(k, backend, arch, warm); }));
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
      const double fresh = new_process_hit_us(e->name, backend, arch, cache.path(), repeat);
      std::printf("%-18s %-7s %10.1f %14.1f %16.1f %18.1f %6d\n", e->name.c_str(),
                  std::string(backend_name(backend)).c_str(), 1e3 * median(cold_s),
                  1e6 * median(disk_s), 1e6 * mem, fresh, co.resources.vgprs);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_compile: %s\n", e.what());
  return 1;
}
