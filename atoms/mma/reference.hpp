#pragma once
// Reference semantics of the gfx12 WMMA / SWMMAC instructions on the registers of one wave:
// the single numeric truth the emulator and the tests use for matrix instructions.
//
// Register convention: X[v * 32 + lane] is the 32-bit value of VGPR v (of the operand) in lane
// `lane`; A has info.a_vgprs VGPRs, B info.b_vgprs, C and D info.cd_vgprs. `index` (SWMMAC
// only, else ignored and may be null) is the 32 lanes' index VGPR.
//
// What is computed (as the hardware does, per shared/RDNA4.md and docs/atoms.md):
//  - every product a*b exactly, the sum over K plus C in f32 (float forms) or wrapping i32
//    (integer forms; clamp saturates the final i32 result to [INT32_MIN, INT32_MAX]);
//  - iu8 / iu4 elements are signed or unsigned per a_signed / b_signed;
//  - f16 / bf16 inputs: neg_lo/neg_hi bits 0/1 negate A/B, bit 2 of neg_hi takes |C|, bit 2 of
//    neg_lo negates C (after |.|);
//  - fp8 / bf8 elements are decoded with tw::num (OCP E4M3FN / E5M2);
//  - f16 / bf16 C/D (v_wmma_f16_*, v_wmma_bf16_*, v_swmmac_f16_*, v_swmmac_bf16_*): C and D
//    are packed, two elements per VGPR (bits [15:0] and [31:16] are both matrix elements, 4
//    VGPRs hold 8 rows per lane); each element is C widened to f32 plus the exact products
//    summed in f32, rounded once to nearest even to f16 / bf16 (gfx12 has no op_sel for these
//    forms, LLVM's trailing i1 must be 0);
//  - a NaN result is the default quiet NaN of its type (f32 0x7fc00000, f16 0x7e00, bf16
//    0x7fc0): which input NaN the hardware propagates is not documented, and the sign and
//    payload a host sum leaves in a NaN depend on the compiler's operand order;
//  - SWMMAC: A holds the kept values of a 2:4 sparse M x K matrix (two per group of 4 along
//    K); the 2-bit position of each kept value comes from the index VGPR of the same lane,
//    16-bit set index_key (see MmaInstrInfo::index_bit). D may alias C.
// The summation order inside the hardware is not documented: results of float forms agree
// with the hardware within f32 rounding, not bit for bit.
//
// mma_reference throws std::invalid_argument, naming the field and the rule, for modifiers
// the instruction does not accept (e.g. neg_lo on an fp8 form, clamp on a float form,
// index_key out of range, a_signed on f16) and for a null operand pointer.
#include <atoms/mma/gfx12_instrs.hpp>

#include <cstdint>

namespace tw::atoms {

inline void mma_reference(const MmaInstrInfo& info, const MmaModifiers& mods,
                          const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                          const std::uint32_t* index, std::uint32_t* d);

} // namespace tw::atoms

#include <atoms/mma/reference_impl.hpp> // IWYU pragma: export
