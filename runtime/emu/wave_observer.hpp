#pragma once
// Optional observation of a launch for the timing model (runtime/emu/timing): which
// instructions each wave of a chosen workgroup executed and the addresses its memory
// instructions touched. Off by default: the executor then tests one null pointer per
// instruction and per memory access.
#include <array>
#include <cstdint>
#include <vector>

namespace tw::emu {

struct DecodedInstr;
struct WaveState;

class WaveObserver {
public:
  virtual ~WaveObserver() = default;
  // Before `in` executes.
  virtual void on_instruction(const DecodedInstr& in) = 0;
  // One lane's access of the current instruction: a global byte address or (lds) an LDS one.
  virtual void on_access(int lane, uint64_t addr, uint32_t bytes, bool lds) = 0;
};

class LaunchObserver {
public:
  virtual ~LaunchObserver() = default;
  // Called from the worker thread that runs workgroup `id`: one observer per wave, or an
  // empty vector when the workgroup is not observed. The observers stay owned by this object.
  virtual std::vector<WaveObserver*> begin_workgroup(std::array<uint32_t, 3> id, int waves) = 0;
  // After every wave of workgroup `id` ended.
  virtual void end_workgroup(std::array<uint32_t, 3> id) = 0;
};

} // namespace tw::emu
