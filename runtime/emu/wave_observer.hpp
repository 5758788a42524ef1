#pragma once
// Optional observation of a launch for the timing model (runtime/emu/timing): which
// instructions each wave of a chosen workgroup executed and the addresses its memory
// instructions touched. Off by default: the executor then tests one null pointer per
// instruction and per memory access.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tw::emu {

struct DecodedInstr;
struct WaveState;

// An observer's log of executed instructions that the executor writes itself, without a
// virtual call (the timing capture's per-instruction words, runtime/emu/timing/capture.hpp):
// for an instruction whose class (InstrClass) has no bit in `slow_classes`, while `slow_next`
// is clear and next != end, the executor stores its place in the decoded program (its index
// in `program`) at `next`, advances `next` and counts it in executed[place]; every other
// instruction goes to on_instruction. The defaults send every instruction there.
struct InstructionLog {
  uint32_t* next = nullptr;
  uint32_t* end = nullptr;
  uint64_t* executed = nullptr;
  const DecodedInstr* program = nullptr;
  uint32_t slow_classes = ~uint32_t(0);
  bool slow_next = true;
};

class WaveObserver {
public:
  virtual ~WaveObserver() = default;
  // Before `in` executes (unless `log` took it).
  virtual void on_instruction(const DecodedInstr& in) = 0;
  InstructionLog log;
  // One lane's access of the current instruction: a global byte address or (lds) an LDS one.
  virtual void on_access(int lane, uint64_t addr, uint32_t bytes, bool lds) = 0;
  // True: every memory instruction takes the executor's general path, which reports each
  // lane's accesses (per 4-byte component) through on_access; the fast paths, which report
  // through the two calls below, are skipped (the fast-path tests compare the two).
  virtual bool every_component() const { return false; }
  // A whole instruction's accesses as the executor's fast paths make them, the same calls
  // in the same order as the general path's on_access: for each lane of `exec` (lowest
  // first), global: `units` accesses of `unit` bytes at addr[lane] + i * unit; LDS: one of
  // `bytes` at addr[lane]. The defaults make those on_access calls. Such a call is the
  // instruction's only report of accesses (the timing capture summarises the instruction
  // there, and refuses a global report after it).
  virtual void on_global_accesses(const std::array<uint64_t, 32>& addr, uint32_t exec,
                                  uint32_t unit, uint32_t units) {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int lane = std::countr_zero(m);
      for (uint32_t i = 0; i < units; ++i)
        on_access(lane, addr[static_cast<size_t>(lane)] + uint64_t(i) * unit, unit, false);
    }
  }
  virtual void on_lds_accesses(const std::array<uint32_t, 32>& addr, uint32_t exec,
                               uint32_t bytes) {
    for (uint32_t m = exec; m; m &= m - 1) {
      const int lane = std::countr_zero(m);
      on_access(lane, addr[static_cast<size_t>(lane)], bytes, true);
    }
  }
};

class LaunchObserver {
public:
  virtual ~LaunchObserver() = default;
  // Once per launch, before any workgroup runs: the decoded program (CodeObject::program())
  // every instruction given to on_instruction is an entry of.
  virtual void begin_launch(const DecodedInstr* /*program*/, size_t /*size*/) {}
  // Called from the worker thread that runs workgroup `id`: one observer per wave, or an
  // empty vector when the workgroup is not observed. The observers stay owned by this object.
  virtual std::vector<WaveObserver*> begin_workgroup(std::array<uint32_t, 3> id, int waves) = 0;
  // After every wave of workgroup `id` ended.
  virtual void end_workgroup(std::array<uint32_t, 3> id) = 0;
};

} // namespace tw::emu
