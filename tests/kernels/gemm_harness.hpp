#pragma once
// What every GEMM kernel test does: host tensors (random, exactly representable) are copied
// to an emulator Device with memcheck on, the kernel runs through the host API once per
// backend (HIP and LLVM emitters), and the output is decoded and compared with the oracle.
#include "oracles.hpp"

#include <kernels/gemm/gemm_config.hpp>
#include <kernels/gemm/gemm_target.hpp>
#include <runtime/emu_device.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <vector>

namespace tw::oracle {

class DeviceTensors {
public:
  explicit DeviceTensors(runtime::EmuDevice& d) : dev_(d) {}
  ~DeviceTensors() {
    for (auto p : allocs_)
      dev_.free(p);
  }
  // A device copy of `t` (same dtype, shape and strides).
  TensorView upload(const HostTensor& t) {
    const size_t bytes = std::max<size_t>(t.bytes().size(), 1);
    const runtime::DevicePtr p = dev_.allocate(bytes);
    allocs_.push_back(p);
    if (!t.bytes().empty())
      dev_.copy_to_device(p, t.bytes().data(), t.bytes().size());
    return TensorView::on_device(dev_, p, t.dtype(), t.shape(), t.strides());
  }
  // Reads a device view back into `host` (allocated with the same shape and strides).
  static Matrix download(runtime::Device& d, const TensorView& v, HostTensor& host) {
    if (!host.bytes().empty())
      d.copy_to_host(host.bytes().data(), v.device_address, host.bytes().size());
    return decode_matrix(host.view());
  }

private:
  runtime::EmuDevice& dev_;
  std::vector<runtime::DevicePtr> allocs_;
};

inline runtime::EmuDevice& emu_device() {
  static runtime::EmuDevice d;
  d.set_memcheck(true);
  return d;
}

inline constexpr emit::Backend both_backends[] = {emit::Backend::hip, emit::Backend::llvm};

// Runs body() once per backend with the GEMM target set to it.
template <class Body>
void for_each_backend(Body&& body) {
  struct Restore { // also when body() throws
    kernels::GemmTarget saved = kernels::gemm_target();
    ~Restore() { kernels::set_gemm_target(saved); }
  } restore;
  for (emit::Backend b : both_backends) {
    kernels::set_gemm_target({b, Arch::gfx1201});
    CAPTURE(emit::backend_name(b));
    body(b);
  }
}

// Every GEMM launch in its scope runs with `config` instead of the heuristic's choice
// (kernels/gemm/gemm_config.hpp); the heuristic again afterwards, also when the scope throws.
class ForceGemmConfig {
public:
  explicit ForceGemmConfig(kernels::gemm_kernel::GemmConfig config) {
    kernels::gemm_kernel::set_gemm_config_override(config);
  }
  ~ForceGemmConfig() { kernels::gemm_kernel::set_gemm_config_override(std::nullopt); }
  ForceGemmConfig(const ForceGemmConfig&) = delete;
  ForceGemmConfig& operator=(const ForceGemmConfig&) = delete;
};

} // namespace tw::oracle
