// Instruction-level tests of the scalar core: one printed instruction on a bare wave, the
// result checked against values worked out by hand from the ISA's definition.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/global_memory.hpp>
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu/workgroup.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace tw::emu;

namespace {

struct ScalarWave {
  WaveState w;
  Workgroup group;
  GlobalMemory memory;
  LaunchStats stats;
  KernelInfo kernel;
  WaveContext ctx{w, group, memory, stats, kernel};

  ScalarWave() {
    kernel.name = "salu_instr_test";
    group.reset({0, 0, 0}, 1, 0, 0);
  }
  void run(const std::string& text) {
    DecodedInstr in;
    in.asm_text = text;
    in.pc = 0x100;
    in.size = 4;
    parse_asm_text(in);
    const Handler h = HandlerTable::instance().find(in.mnemonic);
    if (!h)
      FAIL("no handler for " << in.mnemonic);
    w.pc = in.pc + in.size;
    h(ctx, in);
  }
  uint32_t& s(unsigned r) { return w.sgpr[r]; }
  uint64_t s64(unsigned r) const { return w.sgpr[r] | (uint64_t(w.sgpr[r + 1]) << 32); }
};

} // namespace

TEST_CASE("salu: add / sub with carry, borrow and signed overflow in SCC") {
  ScalarWave q;
  q.s(0) = 0xffffffffu, q.s(1) = 2;
  q.run("s_add_co_u32 s2, s0, s1");
  CHECK((q.s(2) == 1 && q.w.scc));
  q.run("s_add_co_ci_u32 s3, s1, 5"); // 2 + 5 + carry 1
  CHECK((q.s(3) == 8 && !q.w.scc));
  q.run("s_sub_co_u32 s4, s1, s0"); // 2 - 0xffffffff borrows
  CHECK((q.s(4) == 3 && q.w.scc));
  q.run("s_sub_co_ci_u32 s5, 10, s1"); // 10 - 2 - borrow 1
  CHECK((q.s(5) == 7 && !q.w.scc));
  q.s(6) = 0x7fffffff;
  q.run("s_add_co_i32 s7, s6, 1");
  CHECK((q.s(7) == 0x80000000u && q.w.scc));
  q.run("s_add_co_i32 s7, s6, -1");
  CHECK((q.s(7) == 0x7ffffffeu && !q.w.scc));
  q.s(8) = 0xffff;
  q.run("s_addk_co_i32 s8, 0xffff"); // simm16 -1
  CHECK((q.s(8) == 0xfffe && !q.w.scc));
  q.run("s_lshl2_add_u32 s9, 0x40000001, 3");
  CHECK((q.s(9) == 7 && q.w.scc));
}

TEST_CASE("salu: min / max, compares, cselect") {
  ScalarWave q;
  q.s(0) = uint32_t(-5), q.s(1) = 3;
  q.run("s_min_i32 s2, s0, s1");
  CHECK((q.s(2) == uint32_t(-5) && q.w.scc));
  q.run("s_min_u32 s2, s0, s1");
  CHECK((q.s(2) == 3 && !q.w.scc));
  q.run("s_max_i32 s2, s0, s1");
  CHECK((q.s(2) == 3 && !q.w.scc));
  q.run("s_cmp_lt_i32 s0, s1");
  CHECK(q.w.scc);
  q.run("s_cmp_lt_u32 s0, s1");
  CHECK(!q.w.scc);
  q.run("s_cselect_b32 s3, 11, 22");
  CHECK(q.s(3) == 22);
  q.s(4) = 1, q.s(5) = 2, q.s(6) = 1, q.s(7) = 3;
  q.run("s_cmp_lg_u64 s[4:5], s[6:7]");
  CHECK(q.w.scc);
  q.run("s_cselect_b64 s[8:9], s[4:5], s[6:7]");
  CHECK(q.s64(8) == 0x0000000200000001ull);
  q.run("s_bitcmp1_b32 s5, 1");
  CHECK(q.w.scc);
  q.run("s_absdiff_i32 s10, s0, s1");
  CHECK((q.s(10) == 8 && q.w.scc));
}

TEST_CASE("salu: shifts, bit fields, bit counts") {
  ScalarWave q;
  q.s(0) = 0x80000010u;
  q.run("s_ashr_i32 s1, s0, 4");
  CHECK(q.s(1) == 0xf8000001u);
  q.run("s_lshr_b32 s1, s0, 36"); // shift amount uses 5 bits
  CHECK(q.s(1) == 0x08000001u);
  q.s(2) = 0x12345678, q.s(3) = 0x9abcdef0;
  q.run("s_lshl_b64 s[4:5], s[2:3], 8");
  CHECK(q.s64(4) == 0xbcdef01234567800ull);
  q.run("s_bfe_u32 s6, s2, 0x80004"); // offset 4, width 8
  CHECK(q.s(6) == 0x67);
  q.run("s_bfe_i32 s6, s3, 0x4001c"); // offset 28, width 4: 0x9 -> -7
  CHECK(q.s(6) == uint32_t(-7));
  q.run("s_bfe_u64 s[6:7], s[2:3], 0x100018"); // offset 24, width 16
  CHECK(q.s64(6) == 0xf012ull);
  q.run("s_bfm_b32 s8, 4, 8");
  CHECK(q.s(8) == 0xf00);
  q.run("s_bcnt1_i32_b32 s9, s3");
  CHECK((q.s(9) == 19 && q.w.scc)); // 9 a b c d e f 0: 2+2+3+2+3+3+4+0
  q.run("s_ctz_i32_b32 s9, 0x50");  // inline 80
  CHECK(q.s(9) == 4);
  q.run("s_clz_i32_u32 s9, 0");
  CHECK(q.s(9) == 0xffffffffu);
  q.run("s_cls_i32 s9, s3"); // 1001...: first bit differing from the sign is bit 30
  CHECK(q.s(9) == 1);
  q.run("s_brev_b32 s9, 1");
  CHECK(q.s(9) == 0x80000000u);
  q.run("s_sext_i32_i16 s9, 0x8001");
  CHECK(q.s(9) == 0xffff8001u);
  q.run("s_quadmask_b32 s9, 0x1f0");
  CHECK(q.s(9) == 0x6); // quads 1 and 2 have a set bit
  q.run("s_pack_lh_b32_b16 s9, 0x1111aaaa, 0x2222bbbb");
  CHECK(q.s(9) == 0x2222aaaau);
}

TEST_CASE("salu: saveexec forms (gfx12 not0 / not1 names) and wrexec") {
  ScalarWave q;
  q.w.set_exec(0x0000ffffu);
  q.s(0) = 0x00ff00ffu;
  q.run("s_and_saveexec_b32 s1, s0");
  CHECK((q.s(1) == 0x0000ffffu && q.w.exec() == 0x000000ffu && q.w.scc));
  q.w.set_exec(0x0000ffffu);
  q.run("s_and_not0_saveexec_b32 s1, s0"); // ~S0 & EXEC
  CHECK(q.w.exec() == 0x0000ff00u);
  q.w.set_exec(0x0000ffffu);
  q.run("s_and_not1_saveexec_b32 s1, s0"); // S0 & ~EXEC
  CHECK(q.w.exec() == 0x00ff0000u);
  q.w.set_exec(0x0000ffffu);
  q.run("s_or_not1_saveexec_b32 s1, s0"); // S0 | ~EXEC
  CHECK(q.w.exec() == 0xffff00ffu);
  q.w.set_exec(0x0000ffffu);
  q.run("s_xor_saveexec_b32 s1, s0");
  CHECK(q.w.exec() == 0x00ffff00u);
  q.w.set_exec(0x000000ffu);
  q.run("s_and_not1_wrexec_b32 s2, s0"); // EXEC = S0 & ~EXEC; D = new EXEC
  CHECK((q.w.exec() == 0x00ff0000u && q.s(2) == 0x00ff0000u && q.w.scc));
  q.w.set_exec(0x000000ffu);
  q.run("s_and_saveexec_b32 s1, 0");
  CHECK((q.w.exec() == 0 && !q.w.scc && q.s(1) == 0xff));
}

TEST_CASE("salu/sopp: movk, getpc, branches, setreg / getreg of MODE") {
  ScalarWave q;
  q.run("s_movk_i32 s0, 0x8000");
  CHECK(q.s(0) == 0xffff8000u);
  q.run("s_getpc_b64 s[2:3]");
  CHECK(q.s64(2) == 0x104);
  q.w.scc = true;
  q.run("s_cbranch_scc1 -3"); // pc + 4 - 12
  CHECK(q.w.pc == 0xf8);
  q.w.scc = false;
  q.run("s_cbranch_scc1 5");
  CHECK(q.w.pc == 0x104);
  q.w.set_exec(0);
  q.run("s_cbranch_execz 2");
  CHECK(q.w.pc == 0x10c);
  q.w.mode = 0xf0;
  q.run("s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 0, 4), 3");
  CHECK(q.w.mode == 0xf3);
  q.run("s_getreg_b32 s4, hwreg(HW_REG_WAVE_MODE, 4, 4)");
  CHECK(q.s(4) == 0xf);
  q.run("s_round_mode 0x1");
  CHECK(q.w.mode == 0xf1);
  q.run("s_denorm_mode 0x0");
  CHECK(q.w.mode == 0x01);
  q.run("s_endpgm");
  CHECK(q.w.ended);
}

TEST_CASE("salu: writes to null are dropped, null reads 0") {
  ScalarWave q;
  q.run("s_mov_b32 null, 5");
  q.run("s_add_co_u32 s0, null, 3");
  CHECK(q.s(0) == 3);
}
