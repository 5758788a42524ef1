// IR types, DPP control encodings, atom operand types and the kernarg layout rule.
#include <atoms/mma/gfx12_instrs.hpp>
#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>

#include <stdexcept>

using namespace tw::ir;

TEST_CASE("ir types: canonical spelling, sizes and predicates") {
  CHECK(to_string(Type::i32()) == "i32");
  CHECK(to_string(Type::i(7)) == "i7");
  CHECK(to_string(Type::bf16()) == "bf16");
  CHECK(to_string(Type::vec(Type::f16(), 8)) == "<8 x f16>");
  CHECK(to_string(Type::packed_i4(16)) == "<16 x i4>");
  CHECK(to_string(Type::vec(Type::e5m2(), 4)) == "<4 x e5m2>");
  CHECK(to_string(Type::ptr(AddrSpace::lds)) == "ptr<lds>");
  CHECK(to_string(Type::ptr(AddrSpace::constant)) == "ptr<constant>");
  CHECK(to_string(Type::buffer_rsrc()) == "buffer_rsrc");
  CHECK(Type::packed_i4(8).bits() == 32);
  CHECK(Type::packed_i4(8).bytes() == 4);
  CHECK(Type::vec(Type::f32(), 3).bytes() == 12);
  CHECK(Type::ptr(AddrSpace::lds).bits() == 32);
  CHECK(Type::ptr(AddrSpace::global).bits() == 64);
  CHECK(Type::vec(Type::f16(), 8).element() == Type::f16());
  CHECK(Type::vec(Type::f16(), 1) == Type::f16());
  CHECK(Type::i1().is_bool());
  CHECK(Type::bf16().is_float());
  CHECK_FALSE(Type::e4m3().is_float());
  CHECK(Type::e4m3().is_fp8());
  CHECK(type_error(Type::vec(Type::e4m3(), 16)).empty());
  CHECK(type_error(Type::i(1)).empty());
}

TEST_CASE("ir types: DPP controls encode as the gfx12 dpp_ctrl field") {
  // Values of the DPP16 dpp_ctrl field (RDNA ISA: quad_perm 0x00-0xFF, row_shl 0x101-0x10F,
  // row_shr 0x111-0x11F, row_ror 0x121-0x12F, row_mirror 0x140, row_half_mirror 0x141,
  // row_share 0x150-0x15F, row_xmask 0x160-0x16F).
  CHECK(dpp_ctrl_encoding(DppCtrl::quad_perm(0, 1, 2, 3)) == 0xE4);
  CHECK(dpp_ctrl_encoding(DppCtrl::quad_perm(1, 0, 3, 2)) == 0xB1);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_shl(1)) == 0x101);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_shr(1)) == 0x111);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_shr(15)) == 0x11F);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_ror(8)) == 0x128);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_mirror()) == 0x140);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_half_mirror()) == 0x141);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_share(15)) == 0x15F);
  CHECK(dpp_ctrl_encoding(DppCtrl::row_xmask(1)) == 0x161);
  CHECK(to_string(DppCtrl::quad_perm(1, 0, 3, 2)) == "quad_perm[1,0,3,2]");
  CHECK(to_string(DppCtrl::row_xmask(4)) == "row_xmask(4)");
}

TEST_CASE("ir types: WMMA / SWMMAC operand types follow the atom's VGPR counts") {
  auto types = [](const char* mnemonic) {
    const tw::atoms::MmaInstrInfo* info = tw::atoms::find_mma_instr(mnemonic);
    REQUIRE(info != nullptr);
    const MmaOperandTypes t = mma_operand_types(*info);
    return to_string(t.a) + " " + to_string(t.b) + " " + to_string(t.cd);
  };
  CHECK(types("v_wmma_f32_16x16x16_f16") == "<8 x f16> <8 x f16> <8 x f32>");
  CHECK(types("v_wmma_f32_16x16x16_bf16") == "<8 x bf16> <8 x bf16> <8 x f32>");
  CHECK(types("v_wmma_f16_16x16x16_f16") == "<8 x f16> <8 x f16> <8 x f16>");
  CHECK(types("v_wmma_i32_16x16x16_iu8") == "<8 x i8> <8 x i8> <8 x i32>");
  CHECK(types("v_wmma_i32_16x16x16_iu4") == "<8 x i4> <8 x i4> <8 x i32>");
  CHECK(types("v_wmma_i32_16x16x32_iu4") == "<16 x i4> <16 x i4> <8 x i32>");
  CHECK(types("v_wmma_f32_16x16x16_fp8_bf8") == "<8 x e4m3> <8 x e5m2> <8 x f32>");
  CHECK(types("v_swmmac_f32_16x16x32_f16") == "<8 x f16> <16 x f16> <8 x f32>");
  CHECK(types("v_swmmac_i32_16x16x64_iu4") == "<16 x i4> <32 x i4> <8 x i32>");
}

TEST_CASE("ir kernarg layout: natural alignment in order, errors name the argument") {
  Kernel k;
  k.name = "k";
  OpBuilder b(k);
  b.arg("a", Type::i16());
  b.arg("p", Type::ptr(AddrSpace::global));
  b.arg("x", Type::f32());
  b.arg("y", Type::i8());
  b.arg("z", Type::i64());
  const KernargLayout l = kernarg_layout(k);
  REQUIRE(l.slots.size() == 5);
  CHECK(l.slots[0].offset == 0);
  CHECK(l.slots[1].offset == 8);
  CHECK(l.slots[2].offset == 16);
  CHECK(l.slots[3].offset == 20);
  CHECK(l.slots[4].offset == 24);
  CHECK(l.slots[4].align == 8);
  CHECK(l.size == 32);
  CHECK(l.align == 8);
  CHECK(l.slots[1].name == "p");

  Kernel bad;
  bad.name = "bad";
  OpBuilder bb(bad);
  bb.arg("v", Type::vec(Type::f32(), 4));
  try {
    kernarg_layout(bad);
    FAIL("kernarg_layout accepted a vector argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "kernarg_layout: kernel 'bad' argument 'v' has type <4 x f32>: kernel arguments must "
          "be i8, i16, i32, i64, f16, bf16, f32, ptr<global> or ptr<constant>");
  }
}
