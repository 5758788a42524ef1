#pragma once
// The IR verifier: types, address spaces, SSA dominance, region structure and WMMA / SWMMAC
// operand shapes (from the atom tables). Every message starts with
//   "ir.verify: op #N '<op>': "
// where N numbers the kernel's ops in print order (pre-order, from 0) and <op> is the
// opcode name (for wmma / swmmac followed by the atom mnemonic), e.g.
//   ir.verify: op #12 'wmma v_wmma_f32_16x16x16_f16': operand A has type <4 x i32>, expected <8 x
//   f16>
// Kernel-level problems (arguments, workgroup size, LDS size) start with "ir.verify: kernel
// '<name>': ".
#include <dsl/ir/kernel.hpp>
#include <stdexcept>
#include <string>

namespace tw::ir {

class VerifyError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Throws VerifyError with the first problem found.
void verify(const Kernel& k);

// The verification of one op given its operand types (no dominance / region checks): used by
// OpBuilder on each op it builds. Returns "" when the op is well formed, else the reason
// (without the "ir.verify: op #N" prefix).
std::string check_op(const Kernel& k, const Op& op);

// "'wmma v_wmma_f32_16x16x16_f16'" style label of an op (without quotes).
std::string op_label(const Op& op);

} // namespace tw::ir
