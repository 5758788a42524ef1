#pragma once
// A cycle-approximate model of one WGP (2 CUs x 2 SIMD32) running a queue of workgroups
// from their recorded instruction streams: at most `resident` workgroups at a time (a
// finished one frees its slot for the next), waves spread over the SIMDs, in-order issue
// per wave, one instruction per SIMD per cycle chosen oldest-first among the ready waves,
// register dependencies with per-class latencies, the VALU / matrix / transcendental pipes
// of each SIMD, s_wait_* against the completion times of memory operations, LDS and vector
// memory pipes per CU (bank-conflict cycles, coalesced lines), and workgroup barriers.
#include <runtime/emu/timing/cache_levels.hpp>
#include <runtime/emu/timing/capture.hpp>
#include <runtime/emu/timing/instr_timing.hpp>
#include <runtime/emu/timing/machine.hpp>
#include <runtime/emu/timing/steady_state.hpp>

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tw::emu::timing {

// Why a wave did not issue in a cycle it could otherwise have used.
enum class Stall : uint8_t {
  DepValu,  // waits for a VALU result
  DepTrans, // ... a transcendental result
  DepWmma,  // ... a WMMA result
  DepSalu,  // ... a SALU result
  WaitVmem, // s_wait_loadcnt / storecnt (or a load result) against vector memory
  WaitLds,  // s_wait_dscnt
  WaitSmem, // s_wait_kmcnt
  Barrier,  // s_barrier_wait
  Branch,   // taken branch refetch
  Nop,      // s_nop
  PipeBusy, // its SIMD's VALU / matrix / trans / SALU pipe is still busy
  Issue,    // another wave of its SIMD issued
  Count
};
inline constexpr size_t kStalls = static_cast<size_t>(Stall::Count);
const char* stall_name(Stall s);

// What the simulation reads of an instruction, compact (built once per decoded instruction):
// the InstrTiming fields with the register lists as indices into a wave's packed readiness
// array (a WMMA's C operand flagged 0x8000: read through the accumulator path).
struct SimOp {
  Unit unit = Unit::Nop;
  Counter counter = Counter::None;
  uint8_t pipe = 0; // what gates its issue besides the SIMD's issue slot: 0 nothing, 1 the
                    // VALU pipe, 2 VALU and transcendental pipes, 3 the SALU
  bool barrier_signal = false, barrier_wait = false;
  bool waits = false; // some wait[c] >= 0
  uint16_t occupancy = 1, latency = 1;
  uint16_t n_reads = 0, n_writes = 0;
  std::array<int16_t, kCounters> wait{-1, -1, -1, -1};
  const uint16_t* reads = nullptr;  // n_reads register ids (0x8000 | id for a WMMA's C)
  const uint16_t* writes = nullptr; // n_writes register ids
};

// InstrTiming (and its SimOp) of each decoded instruction, classified once.
class TimingCache {
public:
  explicit TimingCache(const MachineModel& m) : m_(m) {}
  const InstrTiming& get(const DecodedInstr& in) { return entry(in).timing; }
  // A dense id per distinct instruction: ops()[id(in)] is its SimOp (valid until the next
  // instruction is classified).
  uint32_t id(const DecodedInstr& in) { return entry(in).id; }
  const std::vector<SimOp>& ops() const { return ops_; }
  const DecodedInstr& instr(uint32_t id) const { return *instrs_[id]; }

private:
  struct Entry {
    InstrTiming timing;
    std::vector<uint16_t> regs; // SimOp::reads then SimOp::writes
    uint32_t id = 0;
  };
  const Entry& entry(const DecodedInstr& in) { // inline: once per recorded instruction
    if (const size_t slot = front_slot(in); slot < by_pc_.size() && by_pc_[slot].in == &in)
      return *by_pc_[slot].entry;
    return get_slow(in);
  }
  // The instruction's place in the decoded program (one array) from the first one
  // classified, by its address alone: a hit reads nothing of the 528-byte DecodedInstr (a
  // cache miss per recorded instruction when the programs are built). Wraps far out below
  // the base; an instruction of another array may share a slot, and the compare sees that.
  size_t front_slot(const DecodedInstr& in) const {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(&in) - front_base_) /
                               sizeof(DecodedInstr));
  }
  const Entry& get_slow(const DecodedInstr& in);
  const MachineModel& m_;
  std::unordered_map<const DecodedInstr*, Entry> map_; // node-based: entries stay put
  std::vector<SimOp> ops_;                             // by Entry::id
  std::vector<const DecodedInstr*> instrs_;            // by Entry::id
  // Front of map_ indexed by front_slot (grown up to kMaxFront entries): one compare per
  // lookup.
  struct Recent {
    const DecodedInstr* in = nullptr;
    const Entry* entry = nullptr;
  };
  static constexpr size_t kMaxFront = size_t(1) << 20;
  std::vector<Recent> by_pc_;
  uintptr_t front_base_ = 0;
};

struct WgpSimResult {
  uint64_t cycles = 0;                 // last workgroup's end
  std::vector<uint64_t> finish;        // end cycle of each queued workgroup, in queue order
  std::array<double, kStalls> stall{}; // wave-cycles by reason
  double wave_cycles = 0;              // sum over waves of their lifetime
  uint64_t issued = 0;                 // instructions
  uint64_t valu_busy = 0, wmma_busy = 0, trans_busy = 0; // SIMD-cycles
  uint64_t lds_busy = 0, vmem_busy = 0;                  // CU-cycles
  std::array<uint64_t, kLevels> loads_by_level{};        // vector loads by serving level
  // The fast-forward (steady_state.hpp): periods jumped over and the instructions they hold
  // (counted in `issued`, not simulated one by one). Host statistics: the figures above are
  // the same with it off.
  uint64_t skipped_periods = 0, skipped_instructions = 0;
};

// `levels` gives each vector load the latency of the level serving it; without it every
// load takes the L2 latency. Stores complete at the L2 latency. Throws std::runtime_error if
// the waves deadlock at a barrier. `fast_forward`: jump over the periods of an exactly
// periodic steady state (steady_state.hpp; the result is identical either way;
// TimingOptions::fast_forward).
WgpSimResult simulate_wgp(const MachineModel& m, const std::vector<const WorkgroupTrace*>& queue,
                          int resident, TimingCache& cache, const LevelModel* levels = nullptr,
                          bool fast_forward = false);

} // namespace tw::emu::timing
