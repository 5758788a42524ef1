#pragma once
// How the VALU engine runs one table-driven instruction, resolved once when the program is
// bound (CodeObject::bind_handlers, valu::make_plan): which operand is which source, whether
// a source is a VGPR row, a value fixed at decode (inline constant or literal, typed and
// modified) or a register read at execution (SGPR, scc, src_*), where the select / carry mask
// comes from, and whether the 32-bit path (valu::VopSpec::batch32) applies. compute() then
// does no look-up per execution; MODE (denormals, rounding) is still read each time, since
// s_setreg / s_denorm_mode change it while the wave runs.
#include <runtime/emu/valu/value_type.hpp>

#include <array>
#include <cstdint>

namespace tw::emu::valu {

struct VopSpec; // runtime/emu/valu/vop.hpp

enum class SourceKind : uint8_t {
  Row,       // VGPR: read per lane from v[reg] (and v[reg + 1] for 64-bit types)
  Invariant, // inline constant / literal: `value` (modifiers applied, not flushed)
  Sgpr,      // a 32-bit type in SGPR `reg` (not null), `clear` / `flip` applied when read
  Dynamic,   // other SGPR reads, scc, src_*: the general operand access at execution
};

struct PlannedSource {
  SourceKind kind = SourceKind::Dynamic;
  VT type = VT::none;
  uint8_t op = 0;     // index into DecodedInstr::ops
  uint8_t shift = 0;  // 16-bit types: 16 reads the high half (op_sel)
  bool hi = false;    // op_sel of this source (Dynamic reads)
  bool plain = false; // Row of a 32-bit type without neg / abs: the row as it is
  uint16_t reg = 0;   // Row: first VGPR; Sgpr: the SGPR
  uint64_t clear = 0; // abs: the sign bit cleared
  uint64_t flip = 0;  // neg: the sign bit flipped (after clear)
  uint64_t value = 0; // Invariant
};

struct VopPlan {
  const VopSpec* spec = nullptr; // the spec it was made for (null: not made)
  bool operands_ok = false;      // the operand count matches the spec (else execution fails)
  bool dpp = false;              // DPP / DPP8 source lane selection
  bool narrow = false;           // every source and the result 32-bit: VopSpec::batch32 runs
  bool float_dst = false;        // a float result (omod, clamp, output denormals apply)
  bool omod_or_clamp = false;
  int8_t mask_op = -1; // operand holding the select / carry-in mask; -1: VCC
  uint8_t nsrc = 0;
  std::array<PlannedSource, 4> src{};
};

} // namespace tw::emu::valu
