#pragma once
// What the timing model needs to know about one decoded instruction, fixed at decode time:
// the unit it issues to, its occupancy and result latency, the registers it reads and
// writes, the memory counter it increments and the counters an s_wait_* waits for.
#include <runtime/emu/decoded_instr.hpp>
#include <runtime/emu/timing/machine.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace tw::emu::timing {

enum class Unit : uint8_t {
  Valu,    // vector ALU (incl. VOPD dual issue, DPP, permlane)
  Trans,   // transcendental VALU (exp, log, rcp, rsq, sqrt, sin, cos)
  Wmma,    // matrix (WMMA / SWMMAC): occupies the SIMD's VALU for `occupancy` cycles
  Salu,    // scalar ALU
  Smem,    // scalar memory
  Vmem,    // vector memory (global / buffer / flat / scratch)
  Lds,     // LDS (ds_*)
  Branch,  // s_branch / s_cbranch_* / calls
  Barrier, // s_barrier_signal / s_barrier_wait
  Wait,    // s_wait_* on memory counters
  Nop,     // s_nop, s_delay_alu, s_clause and other sequencer-only instructions
  End,     // s_endpgm
  Count
};
const char* unit_name(Unit u);

// Memory counters of gfx12 (s_wait_loadcnt / storecnt / dscnt / kmcnt).
enum class Counter : uint8_t { Load, Store, Ds, Km, Count, None = Count };
inline constexpr size_t kCounters = static_cast<size_t>(Counter::Count);

// Register ids: VGPR r -> r, SGPR / special scalar register s -> 256 + s (sreg numbering).
inline constexpr uint16_t kSgprBase = 256;
inline constexpr size_t kRegIds = 256 + sreg::kFileSize;

struct InstrTiming {
  Unit unit = Unit::Nop;
  uint16_t occupancy = 1; // cycles the unit is busy (VALU / trans / matrix pipe)
  uint16_t latency = 1;   // issue to result readable (ALU); memory adds its own
  Counter counter = Counter::None;
  bool barrier_signal = false, barrier_wait = false;
  // s_wait_*: the most outstanding operations allowed per counter (-1: not waited for).
  std::array<int16_t, kCounters> wait{-1, -1, -1, -1};
  std::vector<uint16_t> reads, writes;
  // WMMA: the register ids of the C operand (read through the accumulator path).
  uint16_t wmma_c_begin = 0, wmma_c_end = 0;
};

InstrTiming classify_timing(const DecodedInstr& in, const MachineModel& m);

} // namespace tw::emu::timing
