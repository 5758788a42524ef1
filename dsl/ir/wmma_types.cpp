#include <dsl/ir/wmma_types.hpp>

namespace tw::ir {

Type mma_elem_type(atoms::MmaElem e) {
  switch (e) {
  case atoms::MmaElem::f16:
    return Type::f16();
  case atoms::MmaElem::bf16:
    return Type::bf16();
  case atoms::MmaElem::f32:
    return Type::f32();
  case atoms::MmaElem::i32:
    return Type::i32();
  case atoms::MmaElem::iu8:
    return Type::i8();
  case atoms::MmaElem::iu4:
    return Type::i4();
  case atoms::MmaElem::fp8:
    return Type::e4m3();
  case atoms::MmaElem::bf8:
    return Type::e5m2();
  }
  return Type{};
}

static Type operand(atoms::MmaElem e, int vgprs) {
  return Type::vec(mma_elem_type(e), vgprs * 32 / atoms::elem_bits(e));
}

MmaOperandTypes mma_operand_types(const atoms::MmaInstrInfo& info) {
  return {operand(info.a_type, info.a_vgprs), operand(info.b_type, info.b_vgprs),
          operand(info.cd_type, info.cd_vgprs)};
}

} // namespace tw::ir
