// Must NOT compile: packed int4 operands have no gfx12 transpose load.
#include <atoms/mma/gfx12.hpp>
#include <dsl/copy/transpose_load.hpp>

using namespace tw::dsl;

void trace(const GlobalTensor<i8>& t) {
  using Atom = tw::atoms::wmma_i32_16x16x16_iu4;
  (void)load_operand_transposed<Atom, MmaOperand::B>(t, Int64(0), Int64(0));
}
