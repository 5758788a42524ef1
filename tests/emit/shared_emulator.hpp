#pragma once
// One emulator device shared by a test file's cases, with upload / download / launch helpers
// and a loop over both backends (no compile cache: each run compiles what is being tested).
#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace tw::test {

inline runtime::Device& emulator() {
  static std::unique_ptr<runtime::Device> d = runtime::make_device(runtime::DeviceKind::Emu);
  return *d;
}

template <class T>
runtime::DevicePtr upload(const std::vector<T>& host) {
  const runtime::DevicePtr p = emulator().allocate(host.size() * sizeof(T));
  emulator().copy_to_device(p, host.data(), host.size() * sizeof(T));
  return p;
}

template <class T>
std::vector<T> download(runtime::DevicePtr p, std::size_t n) {
  std::vector<T> host(n);
  emulator().copy_to_host(host.data(), p, n * sizeof(T));
  return host;
}

// Launches `co` on a 1-D grid of `groups` workgroups of `block` work-items and waits.
inline void run(const emit::CodeObject& co, std::uint32_t groups, std::uint32_t block,
                const runtime::KernelArgs& args) {
  runtime::Device& d = emulator();
  const runtime::ModuleHandle m = d.load_code_object(co.elf);
  d.launch(d.get_kernel(m, co.kernel_name), {groups, 1, 1}, {block, 1, 1}, args.span());
  d.synchronize();
}

// body(code object) for the kernel compiled by each backend (gfx1201).
template <class F>
void for_both_backends(const ir::Kernel& k, F&& body) {
  emit::CompileOptions o;
  o.use_cache = false;
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    body(emit::compile(k, b, Arch::gfx1201, o));
  }
}

} // namespace tw::test
