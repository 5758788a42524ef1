#pragma once
// What every example does with the kernel it built: print its IR (already verified by
// KernelBuilder::finish), then compile it with both backends for gfx1201 and print each code
// object's resources. A failing compile is printed and makes the example fail.
#include <tilewave.hpp>

#include <cstdio>
#include <exception>

#if __has_include(<emit/compile.hpp>)
#include <emit/compile.hpp>
#endif

namespace tw::examples {

inline int report(const ir::Kernel& k, bool print_ir = true) {
  if (print_ir)
    std::printf("%s\n", ir::print(k).c_str());
  int failures = 0;
  for (emit::Backend backend : {emit::Backend::hip, emit::Backend::llvm}) {
    try {
      const emit::CodeObject co = emit::compile(k, backend, Arch::gfx1201);
      const emit::ResourceReport& r = co.resources;
      std::printf("%-4s gfx1201: %zu-byte code object, %d VGPRs, %d SGPRs, %lld B LDS, "
                  "%lld B scratch, %d waves/SIMD\n",
                  std::string(emit::backend_name(backend)).c_str(), co.elf.size(), r.vgprs, r.sgprs,
                  static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                  r.waves_per_simd);
    } catch (const std::exception& e) {
      std::printf("%-4s gfx1201: compile failed: %s\n",
                  std::string(emit::backend_name(backend)).c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

} // namespace tw::examples
