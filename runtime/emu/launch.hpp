#pragma once
// Running one kernel launch on the emulator.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/global_memory.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu/wave_observer.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

namespace tw::emu {

struct TraceConfig {
  bool enabled = false;
  std::array<uint32_t, 3> workgroup{0, 0, 0}; // which workgroup ...
  int wave = 0;                               // ... and which wave in it
  std::ostream* out = nullptr;                // defaults to std::cerr
};

struct LaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};  // workgroups per dimension
  std::array<uint32_t, 3> block{1, 1, 1}; // work-items per workgroup
  std::vector<uint8_t> kernargs;          // explicit arguments (hidden ones are filled in)
  uint32_t dynamic_lds = 0;               // bytes of LDS beyond the static group segment
  bool memcheck = true;
  unsigned threads = 0;                             // 0: one per hardware thread
  uint64_t max_instructions_per_wave = 200'000'000; // watchdog against endless loops
  TraceConfig trace;
  LaunchObserver* observer = nullptr; // timing-model capture (runtime/emu/timing), or none
  // Long launches. `progress`, when set, is called by one worker at a time, at most every
  // progress_interval_seconds (the first call after one interval), with the workgroups
  // finished so far. A launch still running after time_limit_seconds (0: no limit) stops at
  // the next workgroup boundary with an EmuError saying how far it got.
  std::function<void(uint64_t done, uint64_t total, double seconds)> progress;
  double progress_interval_seconds = 2.0;
  double time_limit_seconds = 0;
  // Run only these workgroups (ids within the grid) instead of the whole grid: the timing
  // model's --model-only mode. Empty: every workgroup.
  std::vector<std::array<uint32_t, 3>> only_workgroups;
};

// Memcheck default: on unless TILEWAVE_EMU_CHECK=0.
bool memcheck_default();

// Runs the launch to completion; throws EmuError on the first error of any wave.
LaunchStats launch(const CodeObject& co, const KernelInfo& kernel, GlobalMemory& memory,
                   const LaunchConfig& cfg);

} // namespace tw::emu
