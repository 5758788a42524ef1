// The decoder: LLVM MC decoding of a real code object, and the parser of printed gfx12
// assembly into mnemonic, encoding, operands and modifiers.
#include "runtime/emu/emu_test_util.hpp"

#include <algorithm>

#include <runtime/emu/code_object.hpp>
#include <runtime/emu/handlers.hpp>

using namespace tw::emu;

namespace {
DecodedInstr parsed(const std::string& text) {
  DecodedInstr d;
  d.asm_text = text;
  parse_asm_text(d);
  return d;
}
} // namespace

TEST_CASE("asm parser: mnemonic, suffix, registers, constants, modifiers") {
  auto a = parsed("v_add_f32_e64 v1, -v2, |s[4:5]| clamp");
  CHECK(a.mnemonic == "v_add_f32");
  CHECK(a.encoding == Encoding::E64);
  CHECK(a.cls == InstrClass::Valu);
  REQUIRE(a.ops.size() == 3);
  CHECK((a.ops[0].kind == OperandKind::Vgpr && a.ops[0].reg == 1 && a.ops[0].count == 1));
  CHECK((a.ops[1].neg && !a.ops[1].abs && a.ops[1].reg == 2));
  CHECK((a.ops[2].kind == OperandKind::Sgpr && a.ops[2].abs && a.ops[2].reg == 4 &&
         a.ops[2].count == 2));
  CHECK(a.mods.clamp);

  auto b =
      parsed("v_pk_fma_f16 v1, v2, 0.5, 0x1234 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,1]");
  CHECK(b.mods.op_sel[0] == 1);
  CHECK((b.mods.op_sel_hi[0] == 0 && b.mods.op_sel_hi[1] == 1 && b.mods.has_op_sel_hi));
  CHECK((b.mods.neg_lo[0] == 1 && b.mods.neg_lo[1] == 0 && b.mods.neg_lo[2] == 1));
  CHECK((b.ops[2].kind == OperandKind::FloatImm && b.ops[2].fvalue == 0.5));
  CHECK((b.ops[3].kind == OperandKind::Imm && b.ops[3].literal && b.ops[3].value == 0x1234));

  auto c = parsed(
      "v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0x3 bound_ctrl:1 fi:1");
  CHECK(c.encoding == Encoding::Dpp);
  CHECK((c.mods.quad_perm && (*c.mods.quad_perm)[0] == 1 && (*c.mods.quad_perm)[3] == 2));
  CHECK((c.mods.bank_mask == 3 && c.mods.bound_ctrl && c.mods.fi));
  CHECK(parsed("v_add_f32_dpp v1, v2, v3 row_shl:1 row_mask:0xf bank_mask:0xf").mods.dpp_ctrl ==
        "row_shl");

  auto d = parsed("global_load_b128 v[0:3], v1, s[2:3] offset:-16 th:TH_LOAD_NT scope:SCOPE_SE");
  CHECK(d.cls == InstrClass::Vmem);
  CHECK((d.ops[0].count == 4 && d.mods.offset == -16 && d.mods.th == "TH_LOAD_NT" &&
         d.mods.scope == "SCOPE_SE"));
  auto e = parsed("buffer_load_b32 v1, v[2:3], s[4:7], s8 idxen offen offset:16");
  CHECK((e.mods.idxen && e.mods.offen && e.mods.offset == 16 && e.ops[2].count == 4));
  auto f = parsed("ds_load_2addr_b32 v[0:1], v2 offset0:1 offset1:2");
  CHECK((f.cls == InstrClass::Lds && f.mods.offset0 == 1 && f.mods.offset1 == 2));
  auto g = parsed("v_cmp_gt_i32_e32 vcc_lo, s0, v5");
  CHECK((g.ops[0].reg == sreg::kVccLo && g.ops[1].reg == 0));
  auto h = parsed("s_and_saveexec_b32 s0, exec_lo");
  CHECK((h.cls == InstrClass::Salu && h.ops[1].reg == sreg::kExecLo));
  auto i = parsed("v_lshl_add_u32 v5, ttmp9, 6, v0");
  CHECK(
      (i.ops[1].reg == sreg::kTtmp0 + 9 && i.ops[2].kind == OperandKind::Imm && !i.ops[2].literal));
  auto j = parsed("v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5");
  CHECK(j.mnemonic == "v_dual");
  REQUIRE(j.vopd.size() == 2);
  CHECK((j.vopd[0].mnemonic == "v_mul_f32" && j.vopd[1].mnemonic == "v_add_f32" &&
         j.vopd[1].ops[0].reg == 3));
  auto k = parsed("v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7] neg_lo:[1,0,0]");
  CHECK(k.cls == InstrClass::Wmma);
  CHECK(k.wmma_ops == 2 * 16 * 16 * 16);
  CHECK(parsed("v_swmmac_i32_16x16x64_iu4 v[0:7], v[8:9], v[10:13], v14").wmma_ops ==
        2 * 16 * 16 * 64);
  CHECK(parsed("v_add_f32 v0, v1, v2").wmma_ops == 0);
  auto lit = parsed("s_mov_b32 s0, lit(0xffffffff)");
  CHECK((lit.ops[1].kind == OperandKind::Imm && lit.ops[1].literal &&
         lit.ops[1].value == 0xffffffff));
  CHECK(parsed("s_wait_loadcnt 0x0").cls == InstrClass::Wait);
  CHECK(parsed("s_cbranch_execz 16").cls == InstrClass::Branch);
  CHECK(parsed("s_load_b128 s[4:7], s[0:1], 0x0").cls == InstrClass::Smem);
  auto m = parsed("v_mov_b32_e32 v1, 0.15915494");
  CHECK((m.ops[1].inv_2pi && float_const_bits(m.ops[1], ImmType::F32) == 0x3e22f983u));
  CHECK(float_const_bits(parsed("v_mov_b32 v0, -4.0").ops[1], ImmType::F16) == 0xc400u);
  CHECK(float_const_bits(parsed("v_mov_b32 v0, 2.0").ops[1], ImmType::F64) ==
        0x4000000000000000ull);
}

TEST_CASE("decoder: a clang-22 code object decodes completely and names its kernels") {
  for (const auto& v : tw::test::kernel_variants("core_lds")) {
    CAPTURE(v.label);
    auto co = CodeObject::load(tw::test::read_file_bytes(v.path));
    CHECK(co->code_object_version() == (v.label.find("v5") != std::string::npos ? 5 : 6));
    CHECK(co->target() == v.label.substr(0, 7));
    const auto names = co->kernel_names();
    for (const char* k : {"lds_exchange", "lds_dynamic", "lds_widths", "lds_atomics"})
      CHECK(std::find(names.begin(), names.end(), k) != names.end());
    const KernelInfo& k = co->kernel("lds_exchange");
    CHECK(k.group_segment_size == 2048);
    CHECK(k.sgpr_kernarg_ptr);
    CHECK(k.wave32);
    CHECK(k.kernarg_size >= 24);
    REQUIRE(co->at(k.entry) != nullptr);
    size_t undecodable = 0;
    for (const auto& d : co->program())
      undecodable += d.mnemonic == "<undecodable>";
    CHECK(undecodable == 0);
    bool saw_barrier = false;
    for (const auto& d : co->program())
      saw_barrier |= d.mnemonic == "s_barrier_wait";
    CHECK(saw_barrier);
  }
}

TEST_CASE("handler table: core and valu registrations coexist, lookups by mnemonic") {
  const HandlerTable& t = HandlerTable::instance();
  for (const char* m :
       {"s_add_co_u32", "s_cbranch_execz", "s_load_b512", "global_load_b128", "buffer_store_b32",
        "ds_bpermute_b32", "scratch_load_b32", "flat_store_b64"})
    CHECK_MESSAGE(bool(t.find(m)), m);
  HandlerTable local;
  local.add("x", [](WaveContext&, const DecodedInstr&) {});
  CHECK_THROWS_WITH(local.add("x", [](WaveContext&, const DecodedInstr&) {}),
                    "emulator: two handlers registered for 'x'");
}

TEST_CASE("decoder: an instruction whose literal lies past the end of .text is undecodable") {
  // s_mov_b32 s1, <literal>: 0xbe8100ff needs a 4-byte literal after it. At the end of the
  // section LLVM 22's disassembler makes an operand its printer crashes on (a fuzz finding,
  // tests/fuzz/code_object/literal_past_text_end); the decoder must refuse it instead.
  const uint32_t cut[] = {0xbf800000u /* s_nop 0 */, 0xbe8100ffu};
  const auto program =
      decode_text(reinterpret_cast<const uint8_t*>(cut), sizeof cut, 0x1000, "gfx1201");
  REQUIRE(program.size() == 2);
  CHECK(program[0].mnemonic == "s_nop");
  CHECK(program[1].mnemonic == "<undecodable>");
  // With its literal inside the section the same word decodes.
  const uint32_t whole[] = {0xbe8100ffu, 0x00000001u};
  const auto ok =
      decode_text(reinterpret_cast<const uint8_t*>(whole), sizeof whole, 0x1000, "gfx1201");
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].mnemonic == "s_mov_b32");
  CHECK(ok[0].size == 8);
}

TEST_CASE("decoder: s_barrier_signal and its SOP1 neighbours with a literal are undecodable") {
  // LLVM 22's disassembler crashes on SOP1 opcodes 0x4e..0x52 with src0 = literal (a fuzz
  // finding, tests/fuzz/executor/sop1_barrier_literal); the decoder refuses them unread.
  for (uint32_t op = 0x4e; op <= 0x52; ++op) {
    CAPTURE(op);
    const uint32_t words[] = {0xbe8000ffu | (op << 8), 0x00000005u, 0xbfb00000u /* s_endpgm */};
    const auto program =
        decode_text(reinterpret_cast<const uint8_t*>(words), sizeof words, 0x1000, "gfx1201");
    REQUIRE(!program.empty());
    CHECK(program[0].mnemonic == "<undecodable>");
    CHECK(program.back().mnemonic == "s_endpgm");
  }
  // The register form of the same instruction still decodes.
  const uint32_t reg_form[] = {0xbe804e01u}; // s_barrier_signal s1
  const auto ok =
      decode_text(reinterpret_cast<const uint8_t*>(reg_form), sizeof reg_form, 0x1000, "gfx1201");
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].mnemonic == "s_barrier_signal");
}
