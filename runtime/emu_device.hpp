#pragma once
// The gfx12 emulator as a Device. Extra controls: memcheck, trace, per-launch statistics.
#include <runtime/device.hpp>
#include <runtime/emu/launch.hpp>
#include <runtime/emu/timing/launch_model.hpp>

#include <map>
#include <memory>
#include <optional>

namespace tw::runtime {

class EmuDevice final : public Device {
public:
  EmuDevice();
  ~EmuDevice() override;

  std::string name() const override { return "emu (gfx12 emulator, wave32)"; }
  bool is_emulator() const override { return true; }
  DevicePtr allocate(size_t bytes) override;
  void free(DevicePtr ptr) override;
  void copy_to_device(DevicePtr dst, const void* src, size_t bytes) override;
  void copy_to_host(void* dst, DevicePtr src, size_t bytes) override;
  ModuleHandle load_code_object(std::span<const uint8_t> elf) override;
  KernelHandle get_kernel(ModuleHandle module, std::string_view name) override;
  void launch(KernelHandle kernel, Dim3 grid, Dim3 block, std::span<const uint8_t> kernargs,
              uint32_t dynamic_lds = 0) override;
  void synchronize() override {}

  // Memcheck (default: on unless TILEWAVE_EMU_CHECK=0).
  void set_memcheck(bool on) { memcheck_ = on; }
  bool memcheck() const { return memcheck_; }
  void set_trace(emu::TraceConfig t) { trace_ = t; }
  void set_threads(unsigned n) { threads_ = n; }
  // Watchdog: a wave executing more instructions than this fails the launch (endless loop).
  void set_max_instructions_per_wave(uint64_t n) { max_instructions_ = n; }
  // Long launches (emu::LaunchConfig): a rate-limited progress callback and a time limit
  // (0: none) after which a launch stops with an error.
  void set_progress(std::function<void(uint64_t done, uint64_t total, double seconds)> progress,
                    double interval_seconds = 2.0) {
    progress_ = std::move(progress);
    progress_interval_ = interval_seconds;
  }
  void set_time_limit(double seconds) { time_limit_ = seconds; }
  // Timing model (runtime/emu/timing, docs/timing.md): every launch also records its sampled
  // workgroups and models its time on the machine; std::nullopt (the default) turns it off.
  // Throws DeviceError for bad options.
  // Modeled launches carry cache residency (emu::timing::CacheResidency): what a launch
  // touched stays in the modeled L2 / Infinity Cache for the next launches on this device, as
  // on the card (nothing flushes them between kernels), and is not charged to DRAM again.
  // The record is emptied by reset_timing_caches(), by turning the model off or choosing
  // another machine, and after a failed launch; freeing an allocation or copying into it
  // from the host drops its bytes. Setting options for the same machine keeps it.
  void set_timing_model(std::optional<emu::timing::TimingOptions> options);
  // Empties the record: the next modeled launch starts on cold caches.
  void reset_timing_caches();
  // The record (empty when the model is off).
  const std::optional<emu::timing::CacheResidency>& timing_caches() const { return caches_; }
  // The modeled time of the most recent successful launch (empty when the model is off).
  const std::optional<emu::timing::TimingReport>& last_timing() const { return last_timing_; }
  // Statistics of the most recent successful launch.
  const emu::LaunchStats& last_stats() const { return last_stats_; }
  const emu::CodeObject& code_object(ModuleHandle m) const;

private:
  struct Kernel {
    std::shared_ptr<emu::CodeObject> co;
    const emu::KernelInfo* info;
  };
  emu::GlobalMemory memory_;
  std::map<uint64_t, std::shared_ptr<emu::CodeObject>> modules_;
  std::map<uint64_t, Kernel> kernels_;
  uint64_t next_id_ = 1;
  bool memcheck_;
  unsigned threads_ = 0;
  uint64_t max_instructions_ = emu::LaunchConfig{}.max_instructions_per_wave;
  emu::TraceConfig trace_;
  std::function<void(uint64_t, uint64_t, double)> progress_;
  double progress_interval_ = 2.0, time_limit_ = 0;
  emu::LaunchStats last_stats_;
  std::optional<emu::timing::TimingOptions> timing_;
  std::optional<emu::timing::TimingReport> last_timing_;
  std::optional<emu::timing::CacheResidency> caches_; // of timing_->machine
};

} // namespace tw::runtime
