// Device selection.
#include <runtime/device.hpp>
#include <runtime/emu_device.hpp>
#include <runtime/hip/hip_device.hpp>

#include <cstdlib>

namespace tw::runtime {

DeviceKind parse_device_kind(std::string_view s) {
  if (s == "hip")
    return DeviceKind::Hip;
  if (s == "emu")
    return DeviceKind::Emu;
  throw DeviceError("device kind '" + std::string(s) + "' is not one of: hip, emu");
}

std::unique_ptr<Device> make_device(DeviceKind kind) {
  if (kind == DeviceKind::Hip)
    return std::make_unique<HipDevice>();
  return std::make_unique<EmuDevice>();
}

std::unique_ptr<Device> make_default_device() {
  if (const char* env = std::getenv("TILEWAVE_DEVICE"); env && *env) {
    try {
      return make_device(parse_device_kind(env));
    } catch (const DeviceError& e) {
      throw DeviceError(std::string("TILEWAVE_DEVICE=") + env + ": " + e.what());
    }
  }
  try {
    return std::make_unique<HipDevice>();
  } catch (const DeviceError&) {
    return std::make_unique<EmuDevice>(); // no HIP runtime or no gfx12 GPU
  }
}

KernelHandle Device::cached_kernel(const std::string& key,
                                   const std::function<KernelHandle(Device&)>& load) {
  {
    std::lock_guard lock(kernel_cache_mutex_);
    if (auto it = kernel_cache_.find(key); it != kernel_cache_.end())
      return it->second;
  }
  // Loaded outside the lock (a compile can take long); the first handle stored wins.
  const KernelHandle loaded = load(*this);
  std::lock_guard lock(kernel_cache_mutex_);
  return kernel_cache_.emplace(key, loaded).first->second;
}

} // namespace tw::runtime
