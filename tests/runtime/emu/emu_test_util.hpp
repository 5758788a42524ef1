#pragma once
// Helpers for emulator tests: the compiled variants of a test kernel, and EmuRun, which
// loads one variant on an EmuDevice (memcheck on), manages buffers and launches.
#include <runtime/emu_device.hpp>
#include <runtime/kernel_args.hpp>

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace tw::test {

struct KernelVariant {
  std::string label; // "gfx1201.O3", "gfx1201.O3.v5", ...
  std::string path;
};

// All compiled variants of tests/runtime/emu/kernels/<name>.hip.
inline std::vector<KernelVariant> kernel_variants(const std::string& name) {
  std::vector<KernelVariant> v;
  for (const char* arch : {"gfx1200", "gfx1201"})
    for (const char* opt : {"O0", "O3"}) {
      const std::string label = std::string(arch) + "." + opt;
      v.push_back({label, std::string(TW_TEST_KERNEL_DIR) + "/" + name + "." + label + ".hsaco"});
    }
  v.push_back(
      {"gfx1201.O3.v5", std::string(TW_TEST_KERNEL_DIR) + "/" + name + ".gfx1201.O3.v5.hsaco"});
  return v;
}

inline std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class EmuRun {
public:
  explicit EmuRun(const std::string& path) {
    dev.set_memcheck(true);
    module = dev.load_code_object(read_file_bytes(path));
  }
  template <class T>
  runtime::DevicePtr upload(const std::vector<T>& host) {
    runtime::DevicePtr p = dev.allocate(host.size() * sizeof(T));
    dev.copy_to_device(p, host.data(), host.size() * sizeof(T));
    return p;
  }
  template <class T>
  runtime::DevicePtr alloc(size_t count) {
    return dev.allocate(count * sizeof(T));
  }
  template <class T>
  std::vector<T> download(runtime::DevicePtr p, size_t count) {
    std::vector<T> host(count);
    dev.copy_to_host(host.data(), p, count * sizeof(T));
    return host;
  }
  void launch(const std::string& kernel, runtime::Dim3 grid, runtime::Dim3 block,
              const runtime::KernelArgs& args, uint32_t dynamic_lds = 0) {
    dev.launch(dev.get_kernel(module, kernel), grid, block, args.span(), dynamic_lds);
  }
  const emu::LaunchStats& stats() const { return dev.last_stats(); }

  runtime::EmuDevice dev;
  runtime::ModuleHandle module;
};

} // namespace tw::test
