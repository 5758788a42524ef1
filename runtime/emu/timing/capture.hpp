#pragma once
// Capture of the sampled workgroups of a launch: each wave's executed instruction stream
// with the coalesced lines / LDS cycles of its memory instructions (a LaunchObserver the
// executor calls; see runtime/emu/wave_observer.hpp), and the reuse of the lines within
// each workgroup (cache_levels.hpp).
#include <runtime/emu/decoded_instr.hpp>
#include <runtime/emu/timing/cache_levels.hpp>
#include <runtime/emu/timing/large_buffer.hpp>
#include <runtime/emu/timing/memory_cost.hpp>
#include <runtime/emu/wave_observer.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tw::emu::timing {

// One executed instruction (24 bytes: a GEMM workgroup records a few hundred thousand per
// wave). The counts saturate at 65535; a wave32 instruction has at most 64 lane accesses.
struct TraceEvent {
  const DecodedInstr* in = nullptr;
  uint16_t lines = 0;      // global memory: distinct cache lines
  uint16_t lds_cycles = 0; // LDS: bank cycles
  uint16_t addresses = 0;  // global memory: lane accesses (addresses to process)
  LineReuse reuse;         // global memory: reuse of its lines within the workgroup
};
static_assert(sizeof(TraceEvent) == 24, "TraceEvent: keep the per-instruction record small");
// One wave's recorded instructions.
using TraceEvents = std::vector<TraceEvent, LargeBufferAllocator<TraceEvent>>;

struct WorkgroupTrace {
  std::array<uint32_t, 3> id{};
  std::vector<TraceEvents> waves;
  std::vector<uint64_t> lines; // sorted distinct global lines the workgroup touched
};

using WorkgroupId = std::array<uint32_t, 3>;

// Up to n workgroups of the grid: the first, the last and evenly spaced interior ones (in
// launch order, x fastest).
std::vector<WorkgroupId> sample_workgroups(std::array<uint32_t, 3> grid, int n);

class TimingCapture final : public LaunchObserver {
public:
  TimingCapture(std::vector<WorkgroupId> sample, uint32_t line_bytes, int lds_banks);
  ~TimingCapture() override;
  std::vector<WaveObserver*> begin_workgroup(WorkgroupId id, int waves) override;
  void end_workgroup(WorkgroupId id) override;
  const std::vector<WorkgroupId>& sample() const { return sample_; }
  // The traces of the sampled workgroups that ran, in sample order.
  std::vector<WorkgroupTrace> take();

private:
  class Recorder;
  struct Entry;
  std::vector<WorkgroupId> sample_;
  uint32_t line_bytes_;
  int lds_banks_;
  std::mutex mu_;
  std::atomic<size_t> longest_wave_{0};         // events of the longest wave recorded so far: the
                                                // next waves reserve that much (no regrowth copies)
  std::vector<std::unique_ptr<Entry>> entries_; // one per sample slot (null until it runs)
};

} // namespace tw::emu::timing
