// bench/dispatch: the host cost of launching a kernel that is already compiled, split into the
// steps a cached launch takes: the compile-cache look-up (emit::compile: IR print, key digest,
// memory hit), argument packing (runtime::KernelArgs), loading the code object and finding the
// kernel (what a first launch does), the per-device look-up of a loaded kernel
// (Device::cached_kernel: what the kernel library does on every later launch) and
// Device::launch itself. Emulator path: the launch also runs the kernel, so it is timed on
// the vector_add sample with one wave whose threads all fall past n = 0 (a handful of
// instructions), and the launch's own host work (argument segment, dispatch packet, the
// wave set-up) is part of the figure. HIP path: the same steps on a gfx12 GPU, when a HIP
// runtime exists.
//   bench_dispatch [--repeat N]
#include <dsl/samples/vector_add.hpp>
#include <emit/compile.hpp>
#include <emit/subprocess.hpp>
#include <runtime/device.hpp>
#include <runtime/emu_device.hpp>
#include <runtime/hip/hip_device.hpp>
#include <runtime/kernel_args.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Median over `repeat` batches of the mean microseconds of one call in a batch of `batch`.
template <class F>
double median_us(int repeat, int batch, F&& f) {
  std::vector<double> us;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i)
      f();
    us.push_back(1e6 * std::chrono::duration<double>(Clock::now() - t0).count() / batch);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

void measure(tw::runtime::Device& dev, const tw::ir::Kernel& kernel, int repeat) {
  using namespace tw;
  const emit::TempDir cache("tilewave-bench-dispatch"); // never the user's cache
  emit::CompileOptions options;
  options.cache_dir = cache.path();
  const emit::CodeObject co = emit::compile(kernel, emit::Backend::llvm, Arch::gfx1201, options);
  const runtime::DevicePtr a = dev.allocate(1024), b = dev.allocate(1024), c = dev.allocate(1024);
  const runtime::ModuleHandle module = dev.load_code_object(co.elf);
  const runtime::KernelHandle handle = dev.get_kernel(module, co.kernel_name);
  const std::int64_t n = 0; // every thread is past n: the launch does (almost) nothing
  runtime::KernelArgs packed;
  packed.ptr(a).ptr(b).ptr(c).add<std::int64_t>(n);

  const double lookup = median_us(repeat, 200, [&] {
    (void)emit::compile(kernel, emit::Backend::llvm, Arch::gfx1201, options);
  });
  std::vector<runtime::KernelArgs> kept(16); // the packed arguments stay observable
  int next = 0;
  const double pack = median_us(repeat, 10000, [&] {
    runtime::KernelArgs args;
    args.ptr(a).ptr(b).ptr(c).add<std::int64_t>(n);
    kept[next++ % 16] = std::move(args);
  });
  const double load = median_us(
      repeat, 20, [&] { (void)dev.get_kernel(dev.load_code_object(co.elf), co.kernel_name); });
  const std::string key = "bench_dispatch/" + co.kernel_name;
  (void)dev.cached_kernel(key, [&](runtime::Device&) { return handle; });
  const double cached = median_us(repeat, 10000, [&] {
    (void)dev.cached_kernel(key, [&](runtime::Device&) -> runtime::KernelHandle {
      throw std::logic_error("bench_dispatch: the kernel cache missed");
    });
  });
  const double launch = median_us(repeat, 200, [&] {
    dev.launch(handle, {1, 1, 1}, {32, 1, 1}, packed.span());
    dev.synchronize();
  });
  std::printf("%s\n", dev.name().c_str());
  std::printf("  compile-cache look-up (memory hit)      %10.2f us\n", lookup);
  std::printf("  argument packing (4 arguments)          %10.2f us\n", pack);
  std::printf("  load code object + get kernel           %10.2f us\n", load);
  std::printf("  loaded-kernel look-up (cached_kernel)   %10.2f us\n", cached);
  std::printf("  launch + synchronize (one wave, n = 0)  %10.2f us\n", launch);
  std::printf("  cached launch (the kernel library): kernel look-up + packing + launch = %.2f us\n",
              cached + pack + launch);
  std::printf("  before the per-device cache: compile look-up + packing + load + launch = %.2f "
              "us\n",
              lookup + pack + load + launch);
}

} // namespace

int main(int argc, char** argv) try {
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: bench_dispatch [--repeat N]\n");
      return 2;
    }
  }
  const tw::ir::Kernel kernel = tw::samples::build_vector_add();
  std::printf("host dispatch cost of a compiled vector_add (llvm backend, gfx1201), median of %d\n",
              repeat);
  tw::runtime::EmuDevice emu;
  measure(emu, kernel, repeat);
  if (tw::runtime::HipDevice::available()) {
    tw::runtime::HipDevice hip;
    measure(hip, kernel, repeat);
  } else {
    std::printf("HIP path: not measured (no HIP runtime with a gfx12 GPU on this machine)\n");
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_dispatch: %s\n", e.what());
  return 1;
}
