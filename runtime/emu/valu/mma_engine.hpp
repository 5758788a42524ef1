#pragma once
// The emulator's WMMA / SWMMAC arithmetic. mma_fast has the contract of
// atoms::mma_reference (same registers in and out, same modifier rules, bit-identical results:
// every product exact, the sum of C and the K products formed in double in increasing k and
// rounded once to the result type) but decodes each operand once, through tables, into dense
// double / int32 matrices and forms the sums in loops the compiler vectorises.
// mma_reference stays the numeric truth; the reference mode runs it instead (bench/emu compares
// the two, tests/runtime/emu/test_mma_engine.cpp checks every output bit of both).
#include <atoms/mma/instr_info.hpp>

#include <cstdint>

namespace tw::emu::valu {

// Register convention as atoms::mma_reference: X[v * 32 + lane]; d may alias a, b or c.
// Throws std::invalid_argument for modifiers the instruction does not accept.
void mma_fast(const atoms::MmaInstrInfo& info, const atoms::MmaModifiers& mods, const uint32_t* a,
              const uint32_t* b, const uint32_t* c, const uint32_t* index, uint32_t* d);

// Which implementation the WMMA / SWMMAC handlers run (process-wide). Default: fast, or the
// reference when the environment variable TILEWAVE_EMU_MMA=reference is set.
enum class MmaMode : uint8_t { fast, reference };
MmaMode mma_mode();
void set_mma_mode(MmaMode mode);

} // namespace tw::emu::valu
