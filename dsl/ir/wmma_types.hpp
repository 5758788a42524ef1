#pragma once
// The IR types of the operands of a WMMA / SWMMAC atom. The IR uses the element types the atom
// computes on (f16 A as <8 x f16>, iu8 A as <8 x i8>, iu4 as packed <N x i4>, fp8 as e4m3 /
// e5m2 vectors, bf16 as bf16 vectors); an emitter bitcasts them to whatever its builtin or
// intrinsic takes (e.g. <2 x i32>). Element counts = VGPRs * 32 / element bits.
#include <atoms/mma/instr_info.hpp>
#include <dsl/ir/type.hpp>

namespace tw::ir {

struct MmaOperandTypes {
  Type a, b, cd; // cd: C and the result D
};

Type mma_elem_type(atoms::MmaElem e);
MmaOperandTypes mma_operand_types(const atoms::MmaInstrInfo& info);

} // namespace tw::ir
