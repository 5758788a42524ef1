#pragma once
// The user's HIP runtime as a Device: libamdhip64.so is loaded with dlopen at run time (no
// link dependency) and driven through the module API. Construction fails with a
// DeviceError when the library, a GPU, or a gfx12 GPU is missing.
#include <runtime/device.hpp>

#include <map>
#include <memory>

namespace tw::runtime {

class HipDevice final : public Device {
public:
  // Loads $TILEWAVE_HIP_LIBRARY or "libamdhip64.so" and picks the first gfx12 GPU.
  HipDevice();
  ~HipDevice() override;

  std::string name() const override { return "hip: " + arch_; }
  bool is_emulator() const override { return false; }
  DevicePtr allocate(size_t bytes) override;
  void free(DevicePtr ptr) override;
  void copy_to_device(DevicePtr dst, const void* src, size_t bytes) override;
  void copy_to_host(void* dst, DevicePtr src, size_t bytes) override;
  ModuleHandle load_code_object(std::span<const uint8_t> elf) override;
  KernelHandle get_kernel(ModuleHandle module, std::string_view name) override;
  void launch(KernelHandle kernel, Dim3 grid, Dim3 block, std::span<const uint8_t> kernargs,
              uint32_t dynamic_lds = 0) override;
  void synchronize() override;

  // True when a HIP runtime with a gfx12 GPU is usable (never throws).
  static bool available();

private:
  struct Api;
  std::unique_ptr<Api> api_;
  std::string arch_;
  std::map<uint64_t, void*> modules_, functions_;
  uint64_t next_id_ = 1;
};

} // namespace tw::runtime
