// EmuDevice: the Device interface over the emulator.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu_device.hpp>

#include <cstring>
#include <fmt/format.h>

namespace tw::runtime {

EmuDevice::EmuDevice() : memcheck_(emu::memcheck_default()) {}

EmuDevice::~EmuDevice() {
  for (auto& [id, co] : modules_)
    memory_.remove_region(co->image_base());
}

DevicePtr EmuDevice::allocate(size_t bytes) {
  try {
    return memory_.allocate(bytes, fmt::format("allocation #{} ({} bytes)", next_id_++, bytes));
  } catch (const std::bad_alloc&) {
    throw DeviceError(fmt::format("Device::allocate: out of host memory for {} bytes", bytes));
  }
}

void EmuDevice::free(DevicePtr ptr) {
  try {
    memory_.free(ptr);
  } catch (const std::exception& e) {
    throw DeviceError(std::string("Device::free: ") + e.what());
  }
}

void EmuDevice::copy_to_device(DevicePtr dst, const void* src, size_t bytes) {
  if (bytes && !memory_.find(dst, bytes))
    throw DeviceError(fmt::format("Device::copy_to_device: [0x{:x}, +{}) is not inside one "
                                  "allocation ({})",
                                  dst, bytes, memory_.describe_near(dst)));
  if (bytes)
    std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
}

void EmuDevice::copy_to_host(void* dst, DevicePtr src, size_t bytes) {
  if (bytes && !memory_.find(src, bytes))
    throw DeviceError(fmt::format("Device::copy_to_host: [0x{:x}, +{}) is not inside one "
                                  "allocation ({})",
                                  src, bytes, memory_.describe_near(src)));
  if (bytes)
    std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
}

ModuleHandle EmuDevice::load_code_object(std::span<const uint8_t> elf) {
  std::shared_ptr<emu::CodeObject> co;
  try {
    co = emu::CodeObject::load(elf);
  } catch (const std::exception& e) {
    throw DeviceError(std::string("Device::load_code_object: ") + e.what());
  }
  memory_.add_region(co->image_base(), co->image_size(), "code object image");
  const uint64_t id = next_id_++;
  modules_[id] = co;
  return {id};
}

const emu::CodeObject& EmuDevice::code_object(ModuleHandle m) const {
  auto it = modules_.find(m.id);
  if (it == modules_.end())
    throw DeviceError("EmuDevice::code_object: unknown module handle");
  return *it->second;
}

KernelHandle EmuDevice::get_kernel(ModuleHandle module, std::string_view name) {
  auto it = modules_.find(module.id);
  if (it == modules_.end())
    throw DeviceError("Device::get_kernel: unknown module handle");
  try {
    const emu::KernelInfo& k = it->second->kernel(name);
    const uint64_t id = next_id_++;
    kernels_[id] = Kernel{it->second, &k};
    return {id};
  } catch (const emu::EmuError& e) {
    throw DeviceError(std::string("Device::get_kernel: ") + e.what());
  }
}

void EmuDevice::launch(KernelHandle kernel, Dim3 grid, Dim3 block,
                       std::span<const uint8_t> kernargs, uint32_t dynamic_lds) {
  auto it = kernels_.find(kernel.id);
  if (it == kernels_.end())
    throw DeviceError("Device::launch: unknown kernel handle");
  emu::LaunchConfig cfg;
  cfg.grid = grid.array();
  cfg.block = block.array();
  cfg.kernargs.assign(kernargs.begin(), kernargs.end());
  cfg.dynamic_lds = dynamic_lds;
  cfg.memcheck = memcheck_;
  cfg.threads = threads_;
  cfg.max_instructions_per_wave = max_instructions_;
  cfg.trace = trace_;
  try {
    last_stats_ = emu::launch(*it->second.co, *it->second.info, memory_, cfg);
  } catch (const std::exception& e) {
    throw DeviceError(std::string("Device::launch: ") + e.what());
  }
}

} // namespace tw::runtime
