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

// One wave's recorded instruction stream, compact (a GEMM wave executes ~80 000
// instructions): per executed instruction a 4-byte word, its
// place in the launch's decoded program (WorkgroupTrace::program) in bits 0-30 and bit 31 on
// a branch whose next executed instruction is not the next one (taken), the word the WGP
// simulation reads as it is; per LDS / vector memory instruction (InstrClass::Lds / Vmem) a
// MemoryEvent, in execution order. (Earlier, a 24-byte event per instruction, which
// the simulation translated into these words: docs/timing.md, "Cost".)
inline constexpr uint32_t kTakenBranch = uint32_t(1) << 31;
using TraceWords = std::vector<uint32_t, UninitLargeBufferAllocator<uint32_t>>;
// One LDS / vector memory instruction's accesses. The counts saturate at 65535; a wave32
// instruction has at most 64 lane accesses.
struct MemoryEvent {
  uint32_t instr = 0;      // its place in the decoded program (as its word, without the bit)
  uint16_t lines = 0;      // global memory: distinct cache lines
  uint16_t lds_cycles = 0; // LDS: bank cycles
  uint16_t addresses = 0;  // global memory: lane accesses (addresses to process)
  LineReuse reuse;         // global memory: reuse of its lines within the workgroup
};
static_assert(sizeof(MemoryEvent) == 20, "MemoryEvent: keep the per-access record small");
using MemoryEvents = std::vector<MemoryEvent, LargeBufferAllocator<MemoryEvent>>;
struct WaveTrace {
  TraceWords words;
  MemoryEvents memory;
};

struct WorkgroupTrace {
  std::array<uint32_t, 3> id{};
  // The launch's decoded program (CodeObject::program(), told by LaunchObserver::begin_launch):
  // program[word & ~kTakenBranch] is a recorded instruction.
  const DecodedInstr* program = nullptr;
  size_t program_size = 0;
  std::vector<WaveTrace> waves;
  // Per instruction of the program: how often the workgroup's waves executed it (0: never;
  // the simulation classifies the executed ones, the launch counts its WMMAs).
  std::vector<uint64_t> executed;
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
  void begin_launch(const DecodedInstr* program, size_t size) override;
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
  const DecodedInstr* program_ = nullptr; // begin_launch
  size_t program_size_ = 0;
  std::mutex mu_;
  // Words and memory events of the longest wave recorded so far: the next waves reserve that
  // much (no regrowth copies).
  std::atomic<size_t> longest_wave_{0}, longest_memory_{0};
  std::vector<std::unique_ptr<Entry>> entries_; // one per sample slot (null until it runs)
};

} // namespace tw::emu::timing
