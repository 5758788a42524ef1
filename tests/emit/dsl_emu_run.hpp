#pragma once
// Helpers for tests that run a DSL kernel on the gfx12 emulator (memcheck on) through both
// backends: compile with every stage kept (so a test can also check the instructions the
// kernel compiled to), upload / download buffers, launch.
#include <emit/compile.hpp>
#include <runtime/emu_device.hpp>
#include <runtime/kernel_args.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace tw::test {

class DslEmuRun {
public:
  // Compiles `k` for gfx1201 with `backend` (no cache) and loads it on a fresh emulator.
  DslEmuRun(const ir::Kernel& k, emit::Backend backend)
      : art(emit::compile_with_artifacts(k, backend, Arch::gfx1201)) {
    dev.set_memcheck(true);
    module = dev.load_code_object(art.code_object.elf);
  }
  // True when the kernel's assembly holds the instruction `mnemonic` (a whole name, or with an
  // encoding suffix: v_exp_f16 matches v_exp_f16_e32, not v_exp_f16_foo).
  bool uses(const std::string& mnemonic) const {
    for (std::size_t at = art.assembly.find(mnemonic); at != std::string::npos;
         at = art.assembly.find(mnemonic, at + 1)) {
      const std::string_view rest = std::string_view(art.assembly).substr(at + mnemonic.size());
      if (rest.empty() || rest[0] == ' ' || rest[0] == '\t' || rest.substr(0, 3) == "_e3" ||
          rest.substr(0, 3) == "_e6")
        return true;
    }
    return false;
  }
  template <class T>
  runtime::DevicePtr upload(const std::vector<T>& host) {
    const runtime::DevicePtr p = dev.allocate(host.size() * sizeof(T));
    dev.copy_to_device(p, host.data(), host.size() * sizeof(T));
    return p;
  }
  template <class T>
  runtime::DevicePtr alloc(std::size_t count) {
    return dev.allocate(count * sizeof(T));
  }
  template <class T>
  std::vector<T> download(runtime::DevicePtr p, std::size_t count) {
    std::vector<T> host(count);
    dev.copy_to_host(host.data(), p, count * sizeof(T));
    return host;
  }
  void launch(runtime::Dim3 grid, runtime::Dim3 block, const runtime::KernelArgs& args) {
    dev.launch(dev.get_kernel(module, art.code_object.kernel_name), grid, block, args.span());
    dev.synchronize();
  }

  emit::CompileArtifacts art;
  runtime::EmuDevice dev;
  runtime::ModuleHandle module;
};

inline constexpr emit::Backend kBothBackends[] = {emit::Backend::hip, emit::Backend::llvm};

} // namespace tw::test
