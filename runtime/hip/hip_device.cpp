// HipDevice: dlopen of the HIP runtime and the module API.
#include <runtime/hip/hip_device.hpp>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace tw::runtime {

// The subset of the HIP C API used here (hipError_t is int, handles are pointers).
struct HipDevice::Api {
  void* lib = nullptr;
  int (*hipInit)(unsigned) = nullptr;
  int (*hipGetDeviceCount)(int*) = nullptr;
  int (*hipSetDevice)(int) = nullptr;
  int (*hipGetDeviceProperties)(void*, int) = nullptr;
  int (*hipMalloc)(void**, size_t) = nullptr;
  int (*hipFree)(void*) = nullptr;
  int (*hipMemcpy)(void*, const void*, size_t, int) = nullptr;
  int (*hipMemset)(void*, int, size_t) = nullptr;
  int (*hipModuleLoadData)(void**, const void*) = nullptr;
  int (*hipModuleUnload)(void*) = nullptr;
  int (*hipModuleGetFunction)(void**, void*, const char*) = nullptr;
  int (*hipModuleLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, void*, void**, void**) = nullptr;
  int (*hipDeviceSynchronize)() = nullptr;
  const char* (*hipGetErrorString)(int) = nullptr;

  ~Api() {
    if (lib)
      dlclose(lib);
  }
  std::string error(int e) const {
    return hipGetErrorString ? fmt::format("{} ({})", hipGetErrorString(e), e)
                             : fmt::format("hipError {}", e);
  }
};

namespace {

const char* library_name() {
  const char* env = std::getenv("TILEWAVE_HIP_LIBRARY");
  return env && *env ? env : "libamdhip64.so";
}

template <class F>
void resolve(void* lib, F& fn, const char* name, const char* alt = nullptr) {
  void* p = dlsym(lib, name);
  if (!p && alt)
    p = dlsym(lib, alt);
  if (!p)
    throw DeviceError(fmt::format("HipDevice: the HIP runtime has no symbol '{}'", name));
  fn = reinterpret_cast<F>(p);
}

} // namespace

HipDevice::HipDevice() : api_(std::make_unique<Api>()) {
  const char* libname = library_name();
  api_->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
  if (!api_->lib) {
    const char* why = dlerror();
    throw DeviceError(fmt::format(
        "HipDevice: cannot load the HIP runtime '{}' ({}). No HIP runtime is installed: "
        "install ROCm with a gfx12 GPU, or use the emulator (TILEWAVE_DEVICE=emu)",
        libname, why ? why : "unknown dlopen error"));
  }
  Api& a = *api_;
  resolve(a.lib, a.hipInit, "hipInit");
  resolve(a.lib, a.hipGetDeviceCount, "hipGetDeviceCount");
  resolve(a.lib, a.hipSetDevice, "hipSetDevice");
  resolve(a.lib, a.hipGetDeviceProperties, "hipGetDevicePropertiesR0600", "hipGetDeviceProperties");
  resolve(a.lib, a.hipMalloc, "hipMalloc");
  resolve(a.lib, a.hipFree, "hipFree");
  resolve(a.lib, a.hipMemcpy, "hipMemcpy");
  resolve(a.lib, a.hipMemset, "hipMemset");
  resolve(a.lib, a.hipModuleLoadData, "hipModuleLoadData");
  resolve(a.lib, a.hipModuleUnload, "hipModuleUnload");
  resolve(a.lib, a.hipModuleGetFunction, "hipModuleGetFunction");
  resolve(a.lib, a.hipModuleLaunchKernel, "hipModuleLaunchKernel");
  resolve(a.lib, a.hipDeviceSynchronize, "hipDeviceSynchronize");
  resolve(a.lib, a.hipGetErrorString, "hipGetErrorString");
  if (int e = a.hipInit(0))
    throw DeviceError("HipDevice: hipInit failed: " + a.error(e));
  int count = 0;
  if (int e = a.hipGetDeviceCount(&count))
    throw DeviceError("HipDevice: hipGetDeviceCount failed: " + a.error(e));
  if (count == 0)
    throw DeviceError("HipDevice: the HIP runtime reports no GPU");
  // hipDeviceProp_t's layout changes between ROCm versions; its gcnArchName field is a
  // NUL-terminated "gfxNNNN[:features]" string, found by scanning the structure.
  for (int d = 0; d < count; ++d) {
    std::vector<char> props(16384, 0);
    if (a.hipGetDeviceProperties(props.data(), d))
      continue;
    for (size_t i = 0; i + 6 < props.size(); ++i) {
      if (std::memcmp(props.data() + i, "gfx12", 5) == 0) {
        arch_ = std::string(props.data() + i, strnlen(props.data() + i, 64));
        if (int e = a.hipSetDevice(d))
          throw DeviceError("HipDevice: hipSetDevice failed: " + a.error(e));
        return;
      }
    }
  }
  throw DeviceError(
      fmt::format("HipDevice: none of the {} GPU(s) is gfx12 (gfx1200 / gfx1201)", count));
}

HipDevice::~HipDevice() {
  if (api_ && api_->lib)
    for (auto& [id, m] : modules_)
      api_->hipModuleUnload(m);
}

bool HipDevice::available() {
  try {
    HipDevice d;
    return true;
  } catch (const DeviceError&) {
    return false;
  }
}

DevicePtr HipDevice::allocate(size_t bytes) {
  void* p = nullptr;
  if (int e = api_->hipMalloc(&p, bytes))
    throw DeviceError(
        fmt::format("Device::allocate: hipMalloc({}) failed: {}", bytes, api_->error(e)));
  if (int e = api_->hipMemset(p, 0, bytes))
    throw DeviceError("Device::allocate: hipMemset failed: " + api_->error(e));
  return reinterpret_cast<DevicePtr>(p);
}

void HipDevice::free(DevicePtr ptr) {
  if (int e = api_->hipFree(reinterpret_cast<void*>(ptr)))
    throw DeviceError("Device::free: hipFree failed: " + api_->error(e));
}

void HipDevice::copy_to_device(DevicePtr dst, const void* src, size_t bytes) {
  if (int e = api_->hipMemcpy(reinterpret_cast<void*>(dst), src, bytes, 1))
    throw DeviceError("Device::copy_to_device: hipMemcpy failed: " + api_->error(e));
}

void HipDevice::copy_to_host(void* dst, DevicePtr src, size_t bytes) {
  if (int e = api_->hipMemcpy(dst, reinterpret_cast<const void*>(src), bytes, 2))
    throw DeviceError("Device::copy_to_host: hipMemcpy failed: " + api_->error(e));
}

ModuleHandle HipDevice::load_code_object(std::span<const uint8_t> elf) {
  void* m = nullptr;
  if (int e = api_->hipModuleLoadData(&m, elf.data()))
    throw DeviceError("Device::load_code_object: hipModuleLoadData failed: " + api_->error(e));
  const uint64_t id = next_id_++;
  modules_[id] = m;
  return {id};
}

KernelHandle HipDevice::get_kernel(ModuleHandle module, std::string_view name) {
  auto it = modules_.find(module.id);
  if (it == modules_.end())
    throw DeviceError("Device::get_kernel: unknown module handle");
  void* f = nullptr;
  if (int e = api_->hipModuleGetFunction(&f, it->second, std::string(name).c_str()))
    throw DeviceError(fmt::format("Device::get_kernel: hipModuleGetFunction('{}') failed: {}", name,
                                  api_->error(e)));
  const uint64_t id = next_id_++;
  functions_[id] = f;
  return {id};
}

void HipDevice::launch(KernelHandle kernel, Dim3 grid, Dim3 block,
                       std::span<const uint8_t> kernargs, uint32_t dynamic_lds) {
  auto it = functions_.find(kernel.id);
  if (it == functions_.end())
    throw DeviceError("Device::launch: unknown kernel handle");
  std::vector<uint8_t> args(kernargs.begin(), kernargs.end());
  size_t size = args.size();
  // HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END
  void* extra[] = {reinterpret_cast<void*>(1), args.data(), reinterpret_cast<void*>(2), &size,
                   reinterpret_cast<void*>(3)};
  if (int e = api_->hipModuleLaunchKernel(it->second, grid.x, grid.y, grid.z, block.x, block.y,
                                          block.z, dynamic_lds, nullptr, nullptr, extra))
    throw DeviceError("Device::launch: hipModuleLaunchKernel failed: " + api_->error(e));
}

void HipDevice::synchronize() {
  if (int e = api_->hipDeviceSynchronize())
    throw DeviceError("Device::synchronize: hipDeviceSynchronize failed: " + api_->error(e));
}

} // namespace tw::runtime
