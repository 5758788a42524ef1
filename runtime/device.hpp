#pragma once
// The one interface for device memory and kernel launches. Two implementations: the
// user's HIP runtime (HipDevice, loaded with dlopen) and the gfx12 emulator (EmuDevice).
// Every error is a DeviceError whose message starts with the call that failed
// ("Device::launch: ...").
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tw::runtime {

class DeviceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

using DevicePtr = uint64_t; // a device address (what a kernel argument holds)

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  std::array<uint32_t, 3> array() const { return {x, y, z}; }
};

struct ModuleHandle {
  uint64_t id = 0;
};
struct KernelHandle {
  uint64_t id = 0;
};

class Device {
public:
  virtual ~Device() = default;

  virtual std::string name() const = 0; // e.g. "emu (gfx12 emulator)" or "hip: gfx1201 ..."
  virtual bool is_emulator() const = 0;

  virtual DevicePtr allocate(size_t bytes) = 0; // zero-filled
  virtual void free(DevicePtr ptr) = 0;
  virtual void copy_to_device(DevicePtr dst, const void* src, size_t bytes) = 0;
  virtual void copy_to_host(void* dst, DevicePtr src, size_t bytes) = 0;

  virtual ModuleHandle load_code_object(std::span<const uint8_t> elf) = 0;
  virtual KernelHandle get_kernel(ModuleHandle module, std::string_view name) = 0;
  // grid = workgroups per dimension (as hipModuleLaunchKernel), block = work-items per
  // workgroup; kernargs are the explicit argument bytes (see KernelArgs).
  virtual void launch(KernelHandle kernel, Dim3 grid, Dim3 block, std::span<const uint8_t> kernargs,
                      uint32_t dynamic_lds = 0) = 0;
  virtual void synchronize() = 0;

  // Loaded kernels kept per device under a caller's key (the kernel library's: a traced
  // kernel's name and target), so a repeated launch neither compiles, hashes IR nor loads a
  // code object again: `load` runs on the first call for a key; later calls are one map
  // look-up. The handles live as long as the device.
  KernelHandle cached_kernel(const std::string& key,
                             const std::function<KernelHandle(Device&)>& load);

private:
  std::mutex kernel_cache_mutex_;
  std::unordered_map<std::string, KernelHandle> kernel_cache_;
};

enum class DeviceKind { Hip, Emu };

// Creates a device of that kind; throws DeviceError naming why it cannot.
std::unique_ptr<Device> make_device(DeviceKind kind);
// TILEWAVE_DEVICE=hip|emu decides; otherwise HIP when it reports a gfx12 GPU, else the
// emulator. An invalid TILEWAVE_DEVICE value is a DeviceError.
std::unique_ptr<Device> make_default_device();
// Parses "hip" / "emu"; throws DeviceError naming the accepted values.
DeviceKind parse_device_kind(std::string_view s);

} // namespace tw::runtime
