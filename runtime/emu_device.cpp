// EmuDevice: the Device interface over the emulator.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu_device.hpp>

#include <cstring>
#include <ctime>
#include <fmt/format.h>

namespace tw::runtime {

namespace {

// CPU seconds of the process, all threads: the timing model's cost measure (a shared host's
// wall clock is noisy).
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

} // namespace

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
    if (caches_)
      caches_->forget(ptr);
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
  // Estimate: host data reaches the allocation in DRAM, not the modeled caches.
  if (bytes && caches_)
    caches_->forget(memory_.find(dst, bytes)->base);
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

void EmuDevice::set_timing_model(std::optional<emu::timing::TimingOptions> options) {
  if (options) {
    try {
      emu::timing::validate(*options);
    } catch (const std::exception& e) {
      throw DeviceError(std::string("EmuDevice::set_timing_model: ") + e.what());
    }
  }
  if (!options)
    caches_.reset();
  else if (!caches_ || !timing_ ||
           emu::timing::machine_by_name(timing_->machine).name !=
               emu::timing::machine_by_name(options->machine).name)
    caches_.emplace(emu::timing::machine_by_name(options->machine));
  timing_ = std::move(options);
  last_timing_.reset();
}

void EmuDevice::reset_timing_caches() {
  if (caches_)
    caches_->clear();
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
  cfg.progress = progress_;
  cfg.progress_interval_seconds = progress_interval_;
  cfg.time_limit_seconds = time_limit_;
  last_timing_.reset();
  try {
    if (!timing_) {
      last_stats_ = emu::launch(*it->second.co, *it->second.info, memory_, cfg);
      return;
    }
    const auto machine = emu::timing::machine_by_name(timing_->machine);
    const emu::KernelInfo& info = *it->second.info;
    emu::timing::TimingCapture capture(
        emu::timing::sample_workgroups(cfg.grid,
                                       emu::timing::planned_sample(machine, info, cfg, *timing_)),
        static_cast<uint32_t>(machine.cache_line), machine.lds_banks_per_cu);
    cfg.observer = &capture;
    if (timing_->model_only)
      cfg.only_workgroups = capture.sample();
    double plain_cpu = 0;
    if (timing_->compare_plain) { // the model's cost is measured against this
      emu::LaunchConfig plain = cfg;
      plain.observer = nullptr;
      const double c0 = process_cpu_seconds();
      (void)emu::launch(*it->second.co, *it->second.info, memory_, plain);
      plain_cpu = process_cpu_seconds() - c0;
    }
    const double c0 = process_cpu_seconds();
    last_stats_ = emu::launch(*it->second.co, *it->second.info, memory_, cfg);
    const double recording_cpu = process_cpu_seconds() - c0;
    last_timing_ = emu::timing::model_launch(machine, *it->second.info, cfg, capture.take(),
                                             memory_, *timing_, caches_ ? &*caches_ : nullptr);
    if (timing_->compare_plain) {
      last_timing_->recording_cpu_seconds = recording_cpu;
      last_timing_->plain_cpu_seconds = plain_cpu;
    }
  } catch (const std::exception& e) {
    reset_timing_caches(); // what the failed launch touched is not known
    throw DeviceError(std::string("Device::launch: ") + e.what());
  }
}

} // namespace tw::runtime
