#pragma once
// What every example does with the kernel it built (verified by KernelBuilder::finish):
// optionally print its IR, compile it with both backends for gfx1201 (printing each code
// object's resources), then run each code object on the default device (a gfx12 GPU through
// HIP, else the emulator) and compare with a host reference. Any failure makes the example
// exit non-zero.
#include <tilewave.hpp>

#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace tw::examples {

inline std::vector<emit::CodeObject> compile_both(const ir::Kernel& k, bool print_ir) {
  if (print_ir)
    std::printf("%s\n", ir::print(k).c_str());
  std::vector<emit::CodeObject> out;
  for (emit::Backend backend : {emit::Backend::hip, emit::Backend::llvm}) {
    emit::CodeObject co = emit::compile(k, backend, Arch::gfx1201);
    const emit::ResourceReport& r = co.resources;
    std::printf("%-4s gfx1201: %zu-byte code object, %d VGPRs, %d SGPRs, %lld B LDS, "
                "%lld B scratch, %d waves/SIMD\n",
                std::string(emit::backend_name(backend)).c_str(), co.elf.size(), r.vgprs, r.sgprs,
                static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                r.waves_per_simd);
    out.push_back(std::move(co));
  }
  return out;
}

inline runtime::Device& device() {
  static std::unique_ptr<runtime::Device> d = [] {
    auto dev = runtime::make_default_device();
    std::printf("device: %s\n", dev->name().c_str());
    return dev;
  }();
  return *d;
}

template <class T>
runtime::DevicePtr upload(const std::vector<T>& host) {
  const runtime::DevicePtr p = device().allocate(host.size() * sizeof(T));
  device().copy_to_device(p, host.data(), host.size() * sizeof(T));
  return p;
}
template <class T>
std::vector<T> download(runtime::DevicePtr p, std::size_t n) {
  std::vector<T> host(n);
  device().copy_to_host(host.data(), p, n * sizeof(T));
  return host;
}

inline void launch(const emit::CodeObject& co, runtime::Dim3 grid, runtime::Dim3 block,
                   const runtime::KernelArgs& args) {
  runtime::Device& d = device();
  const runtime::ModuleHandle m = d.load_code_object(co.elf);
  d.launch(d.get_kernel(m, co.kernel_name), grid, block, args.span());
  d.synchronize();
}

// Deterministic inputs in [-1, 1).
inline std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

// Prints "<what>: max |error| = e (tolerance t): ok / FAILED"; returns 1 on failure.
inline int check(const std::string& what, double max_error, double tolerance) {
  const bool ok = max_error <= tolerance && std::isfinite(max_error);
  std::printf("%s: max |error| vs host reference = %.3g (tolerance %.3g): %s\n", what.c_str(),
              max_error, tolerance, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

// Runs `body` and turns an exception into a printed failure.
template <class F>
int guarded(F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}

} // namespace tw::examples
