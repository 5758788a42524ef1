// Instruction-level tests of the VALU handlers: each case writes registers, runs one printed
// gfx12 instruction (parsed by the emulator's own asm parser) and checks the registers
// against values derived by hand from the ISA's definition.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/global_memory.hpp>
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/stats.hpp>
#include <runtime/emu/workgroup.hpp>

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

using namespace tw::emu;

namespace {

struct Wave {
  WaveState w;
  Workgroup group;
  GlobalMemory memory;
  LaunchStats stats;
  KernelInfo kernel;
  WaveContext ctx{w, group, memory, stats, kernel};

  Wave() {
    w.set_exec(0xffffffffu);
    w.mode = 0xf0; // f32 and f16/f64 denormals kept, round to nearest even (LLVM's default)
    kernel.name = "valu_instr_test";
  }
  void run(const std::string& text) {
    DecodedInstr in;
    in.asm_text = text;
    parse_asm_text(in);
    const Handler h = HandlerTable::instance().find(in.mnemonic);
    if (!h)
      throw EmuError("no handler for '" + in.mnemonic + "'");
    h(ctx, in);
  }
  uint32_t& v(int reg, int lane) { return w.v(unsigned(reg), lane); }
  void fill(int reg, auto f) {
    for (int l = 0; l < 32; ++l)
      v(reg, l) = uint32_t(f(l));
  }
  float vf(int reg, int lane) { return std::bit_cast<float>(v(reg, lane)); }
};

uint32_t fb(float f) {
  return std::bit_cast<uint32_t>(f);
}
uint16_t hb(float f) {
  return tw::num::f32_to_f16(f);
}
float hf(uint32_t h) {
  return tw::num::f16_to_f32(uint16_t(h));
}

} // namespace

TEST_CASE("valu: integer add, carries and selects follow EXEC") {
  Wave t;
  t.fill(1, [](int l) { return 0xffffffffu - uint32_t(l); });
  t.fill(2, [](int l) { return uint32_t(l * 3); });
  t.w.set_exec(0x0000ffffu);
  t.run("v_add_co_u32 v3, s10, v1, v2");
  t.run("v_add_co_ci_u32_e64 v4, s11, 0, 0, s10");
  for (int l = 0; l < 16; ++l) {
    const uint64_t s = uint64_t(0xffffffffu - l) + uint64_t(l * 3);
    CHECK(t.v(3, l) == uint32_t(s));
    CHECK(t.v(4, l) == uint32_t(s >> 32)); // carry in added
  }
  for (int l = 16; l < 32; ++l)
    CHECK(t.v(3, l) == 0); // inactive lanes untouched
  uint32_t carries = 0;
  for (int l = 0; l < 16; ++l)
    carries |= uint32_t((uint64_t(0xffffffffu - l) + uint64_t(l * 3)) >> 32) << l;
  CHECK(t.w.sgpr[10] == carries);
  CHECK(t.w.sgpr[11] == 0);

  t.w.set_exec(~0u);
  t.w.set_vcc(0xaaaaaaaau);
  t.run("v_cndmask_b32_e32 v5, v1, v2, vcc_lo");
  t.w.sgpr[20] = 0x0000ffffu;
  t.run("v_cndmask_b32_e64 v6, 7, -1, s20");
  for (int l = 0; l < 32; ++l) {
    CHECK(t.v(5, l) == ((l & 1) ? t.v(2, l) : t.v(1, l)));
    CHECK(t.v(6, l) == (l < 16 ? 0xffffffffu : 7u));
  }
  t.run("v_sub_co_u32 v7, vcc_lo, v2, v1");
  t.run("v_add_nc_u32_e64 v8, v1, v2 clamp");
  for (int l = 0; l < 32; ++l) {
    CHECK(t.v(7, l) == uint32_t(l * 3) - (0xffffffffu - l));
    CHECK(((t.w.vcc() >> l) & 1) == 1u); // borrow: l*3 < 0xffffffff - l
    const uint64_t s = uint64_t(0xffffffffu - l) + uint64_t(l * 3);
    CHECK(t.v(8, l) == (s > 0xffffffffu ? 0xffffffffu : uint32_t(s)));
  }
}

TEST_CASE("valu: 64-bit multiply-add, shifts and bit fields") {
  Wave t;
  t.fill(1, [](int l) { return 0x9e3779b9u * uint32_t(l + 1); });
  t.fill(2, [](int l) { return 0x85ebca6bu + uint32_t(l); });
  t.fill(4, [](int l) { return 0xdeadbeefu ^ uint32_t(l); });
  t.fill(5, [](int l) { return uint32_t(l) << 20; });
  t.run("v_mad_co_u64_u32 v[10:11], null, v1, v2, v[4:5]");
  t.run("v_lshlrev_b64 v[12:13], 5, v[4:5]");
  t.run("v_bfe_i32 v14, v1, 4, 7");
  t.run("v_alignbit_b32 v15, v1, v2, 12");
  t.run("v_perm_b32 v16, v1, v2, 0x5010400");
  t.run("v_mbcnt_lo_u32_b32 v17, -1, 0");
  for (int l = 0; l < 32; ++l) {
    const uint64_t c = (uint64_t(t.v(5, l)) << 32) | t.v(4, l);
    const uint64_t p = uint64_t(t.v(1, l)) * t.v(2, l) + c;
    CHECK(((uint64_t(t.v(11, l)) << 32) | t.v(10, l)) == p);
    CHECK(((uint64_t(t.v(13, l)) << 32) | t.v(12, l)) == c << 5);
    const int32_t field = int32_t(t.v(1, l) << (32 - 11)) >> (32 - 7);
    CHECK(t.v(14, l) == uint32_t(field));
    CHECK(t.v(15, l) == uint32_t(((uint64_t(t.v(1, l)) << 32) | t.v(2, l)) >> 12));
    // selector bytes 00,04,01,05: b[0], a[0], b[1], a[1]
    const uint32_t a = t.v(1, l), b = t.v(2, l);
    CHECK(t.v(16, l) ==
          ((b & 0xff) | ((a & 0xff) << 8) | (((b >> 8) & 0xff) << 16) | (((a >> 8) & 0xff) << 24)));
    CHECK(t.v(17, l) == uint32_t(l));
  }
}

TEST_CASE("valu: f32 modifiers, clamp, omod and fma forms") {
  Wave t;
  t.fill(1, [](int l) { return fb(0.25f * float(l) - 3.0f); });
  t.fill(2, [](int l) { return fb(1.5f + float(l)); });
  t.run("v_mul_f32_e64 v3, -|v1|, v2");
  t.run("v_add_f32_e64 v4, v1, v2 clamp");
  t.run("v_add_f32_e64 v5, v1, v2 mul:2");
  t.run("v_fmaak_f32 v6, v1, v2, 0x3fc00000");
  t.run("v_fmamk_f32 v7, v1, 0x40000000, v2");
  t.fill(8, [](int l) { return fb(float(l)); });
  t.run("v_fmac_f32_e32 v8, v1, v2");
  t.run("v_max_num_f32_e32 v9, v1, v2");
  t.run("v_med3_num_f32 v10, v1, 1.0, 2.0");
  for (int l = 0; l < 32; ++l) {
    const float a = 0.25f * float(l) - 3.0f, b = 1.5f + float(l);
    CHECK(t.vf(3, l) == -std::fabs(a) * b);
    CHECK(t.vf(4, l) == std::fmin(std::fmax(a + b, 0.0f), 1.0f));
    CHECK(t.vf(5, l) == (a + b) * 2.0f);
    CHECK(t.vf(6, l) == std::fma(a, b, 1.5f));
    CHECK(t.vf(7, l) == std::fma(a, 2.0f, b));
    CHECK(t.vf(8, l) == std::fma(a, b, float(l)));
    CHECK(t.vf(9, l) == std::fmax(a, b));
    CHECK(t.vf(10, l) == std::fmin(std::fmax(a, 1.0f), 2.0f));
  }
}

TEST_CASE("valu: the f32 division sequence clang emits is correctly rounded") {
  // The exact sequence of `x / y` at -O3 for gfx1201 (see llvm-objdump of a HIP kernel).
  Wave t;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::array<float, 32> x{}, y{};
  for (int l = 0; l < 32; ++l) {
    x[l] = dist(rng);
    y[l] = dist(rng);
  }
  y[0] = 3.0f;
  x[0] = 1.0f;
  x[1] = 0.0f;
  y[2] = 0.0f;
  x[3] = 1e-30f;
  y[3] = 3e25f;
  t.fill(11, [&](int l) { return fb(x[l]); });
  t.fill(16, [&](int l) { return fb(y[l]); });
  t.run("v_div_scale_f32 v19, null, v16, v16, v11");
  t.run("v_div_scale_f32 v23, vcc_lo, v11, v16, v11");
  t.run("v_rcp_f32_e32 v17, v19");
  t.run("v_fma_f32 v47, -v19, v17, 1.0");
  t.run("v_fmac_f32_e32 v17, v47, v17");
  t.run("v_mul_f32_e32 v48, v23, v17");
  t.run("v_fma_f32 v41, -v19, v48, v23");
  t.run("v_fmac_f32_e32 v48, v41, v17");
  t.run("v_fma_f32 v19, -v19, v48, v23");
  t.run("v_div_fmas_f32 v41, v19, v17, v48");
  t.run("v_div_fixup_f32 v20, v41, v16, v11");
  for (int l = 0; l < 32; ++l) {
    CAPTURE(l);
    CAPTURE(x[l]);
    CAPTURE(y[l]);
    CHECK(t.v(20, l) == fb(x[l] / y[l]));
  }
}

TEST_CASE("valu: f16 in fake16 registers: op_sel halves and preserved high half") {
  Wave t;
  t.fill(1, [](int l) { return uint32_t(hb(float(l) * 0.5f)) | (uint32_t(hb(-2.0f)) << 16); });
  t.fill(2, [](int l) { return uint32_t(hb(3.0f)) | (uint32_t(hb(float(l))) << 16); });
  t.fill(3, [](int) { return 0xabcd0000u; });
  t.run("v_add_f16_e32 v3, v1, v2");
  t.fill(4, [](int) { return 0x00001234u; });
  t.run("v_mul_f16_e64 v4, v1, v2 op_sel:[1,1,1]");
  t.run("v_cvt_f32_f16_e64 v5, v2 op_sel:[1,0]");
  t.run("v_fma_f16 v6, v1, v2, 1.0");
  t.run("v_cvt_f16_f32_e32 v7, 0x3eaaaaab");
  for (int l = 0; l < 32; ++l) {
    CHECK((t.v(3, l) >> 16) == 0xabcdu);
    CHECK(hf(t.v(3, l)) == float(l) * 0.5f + 3.0f);
    CHECK((t.v(4, l) & 0xffff) == 0x1234u);
    CHECK(hf(t.v(4, l) >> 16) == tw::num::round_to_f16(-2.0f * float(l)));
    CHECK(t.vf(5, l) == float(l));
    CHECK(hf(t.v(6, l)) == tw::num::round_to_f16(float(l) * 0.5f * 3.0f + 1.0f));
    CHECK((t.v(7, l) & 0xffff) == hb(1.0f / 3.0f));
  }
}

TEST_CASE("valu: packed f16 and i16 with op_sel_hi and neg_lo/neg_hi") {
  Wave t;
  t.fill(1, [](int l) { return uint32_t(hb(float(l))) | (uint32_t(hb(0.5f)) << 16); });
  t.fill(2, [](int l) { return uint32_t(hb(2.0f)) | (uint32_t(hb(float(-l))) << 16); });
  t.run("v_pk_mul_f16 v3, v1, v2 neg_lo:[0,1] neg_hi:[0,1]");
  t.run("v_pk_add_f16 v4, v1, v2 op_sel_hi:[0,1]");
  t.run("v_pk_fma_f16 v5, v1, v2, v1");
  t.fill(6, [](int l) { return uint32_t(uint16_t(-l)) | (uint32_t(l * 100) << 16); });
  t.run("v_pk_add_u16 v7, v6, v6");
  t.run("v_pk_max_i16 v8, v6, 0");
  for (int l = 0; l < 32; ++l) {
    CHECK(hf(t.v(3, l)) == float(l) * -2.0f);
    CHECK(hf(t.v(3, l) >> 16) == 0.5f * float(l));
    CHECK(hf(t.v(4, l)) == float(l) + 2.0f);           // lo + lo
    CHECK(hf(t.v(4, l) >> 16) == float(l) - float(l)); // hi from src0's LOW half (op_sel_hi 0)
    CHECK(hf(t.v(5, l)) == float(l) * 2.0f + float(l));
    CHECK(hf(t.v(5, l) >> 16) == tw::num::round_to_f16(0.5f * float(-l) + 0.5f));
    CHECK(t.v(7, l) == (uint32_t(uint16_t(-2 * l)) | (uint32_t(uint16_t(l * 200)) << 16)));
    CHECK(t.v(8, l) == (uint32_t(l * 100) << 16)); // max(-l, 0) = 0 in the low half
  }
}

TEST_CASE("valu: compares write VCC / SGPRs, v_cmpx writes EXEC, v_cmp_class") {
  Wave t;
  t.fill(1, [](int l) { return fb(float(l) - 10.0f); });
  t.v(1, 5) = 0x7fc00000u; // NaN
  t.w.set_exec(0x7fffffffu);
  t.run("v_cmp_lt_f32_e32 vcc_lo, 0, v1");
  t.run("v_cmp_neq_f32_e64 s4, v1, v1");
  t.run("v_cmp_class_f32_e64 s5, v1, 0x260");
  uint32_t lt = 0, neq = 0;
  for (int l = 0; l < 31; ++l) {
    lt |= uint32_t(l != 5 && float(l) - 10.0f > 0.0f) << l;
    neq |= uint32_t(l == 5) << l;
  }
  CHECK(t.w.vcc() == lt); // lane 31 inactive -> 0
  CHECK(t.w.sgpr[4] == neq);
  // 0x260 = +0 | +denormal(no) | +normal | +inf: bits 5 (-0), 6 (+0), 9 (+inf): lanes 10 (+0)
  CHECK(t.w.sgpr[5] == (1u << 10));
  t.run("v_cmpx_gt_i32_e32 20, v2"); // v2 = 0 everywhere: all active lanes pass
  CHECK(t.w.exec() == 0x7fffffffu);
  t.fill(2, [](int l) { return uint32_t(l); });
  t.run("v_cmpx_gt_i32_e32 20, v2");
  CHECK(t.w.exec() == 0x000fffffu);
}

TEST_CASE("valu: DPP16 controls, row/bank masks, bound_ctrl and DPP8") {
  Wave t;
  t.fill(1, [](int l) { return uint32_t(100 + l); });
  auto expect = [&](const std::string& ctrl, int dst, auto src_lane, bool bound_ctrl,
                    uint32_t old) {
    t.fill(dst, [&](int) { return old; });
    t.run("v_mov_b32_dpp v" + std::to_string(dst) + ", v1 " + ctrl + " row_mask:0xf bank_mask:0xf" +
          (bound_ctrl ? " bound_ctrl:1" : ""));
    for (int l = 0; l < 32; ++l) {
      CAPTURE(ctrl);
      CAPTURE(l);
      const int s = src_lane(l);
      CHECK(t.v(dst, l) == (s < 0 ? (bound_ctrl ? 0u : old) : uint32_t(100 + s)));
    }
  };
  expect(
      "quad_perm:[3,2,1,0]", 2, [](int l) { return (l & ~3) | (3 - (l & 3)); }, false, 7);
  expect(
      "row_shl:1", 3, [](int l) { return (l & 15) < 15 ? l + 1 : -1; }, false, 7);
  expect(
      "row_shr:3", 4, [](int l) { return (l & 15) >= 3 ? l - 3 : -1; }, true, 7);
  expect(
      "row_ror:1", 5, [](int l) { return (l & ~15) | ((l - 1) & 15); }, false, 7);
  expect(
      "row_mirror", 6, [](int l) { return (l & ~15) | (15 - (l & 15)); }, false, 7);
  expect(
      "row_half_mirror", 7, [](int l) { return (l & ~7) | (7 - (l & 7)); }, false, 7);
  expect(
      "row_share:3", 8, [](int l) { return (l & ~15) | 3; }, false, 7);
  expect(
      "row_xmask:5", 9, [](int l) { return (l & ~15) | ((l & 15) ^ 5); }, false, 7);

  // row_mask 0x2 (row 1 only), bank_mask 0x5 (banks 0 and 2): other lanes keep v10.
  t.fill(10, [](int) { return 9u; });
  t.run("v_mov_b32_dpp v10, v1 quad_perm:[0,0,0,0] row_mask:0x2 bank_mask:0x5");
  for (int l = 0; l < 32; ++l) {
    const bool on = l >= 16 && (((l >> 2) & 3) == 0 || ((l >> 2) & 3) == 2);
    CHECK(t.v(10, l) == (on ? uint32_t(100 + (l & ~3)) : 9u));
  }
  // An inactive source lane without bound_ctrl: the lane is not written.
  t.w.set_exec(0xfffffffeu);
  t.fill(11, [](int) { return 5u; });
  t.run("v_mov_b32_dpp v11, v1 row_shr:1 row_mask:0xf bank_mask:0xf");
  CHECK(t.v(11, 1) == 5u);
  CHECK(t.v(11, 2) == 101u);
  t.w.set_exec(~0u);
  // DPP on a VOP2: src0 comes from the selected lane, src1 from the own lane.
  t.fill(12, [](int l) { return uint32_t(1000 * l); });
  t.run("v_add_nc_u32_dpp v13, v1, v12 row_xmask:1 row_mask:0xf bank_mask:0xf");
  for (int l = 0; l < 32; ++l)
    CHECK(t.v(13, l) == uint32_t(100 + (l ^ 1) + 1000 * l));
  t.run("v_mov_b32_dpp v14, v1 dpp8:[7,6,5,4,3,2,1,0]");
  for (int l = 0; l < 32; ++l)
    CHECK(t.v(14, l) == uint32_t(100 + ((l & ~7) | (7 - (l & 7)))));
}

TEST_CASE("valu: permlane16 / permlanex16 / _var and readlane / writelane") {
  Wave t;
  t.fill(1, [](int l) { return uint32_t(l * 7); });
  t.w.sgpr[2] = 0x76543210u;
  t.w.sgpr[3] = 0xfedcba98u;
  t.run("v_permlane16_b32 v2, v1, s2, s3");
  t.w.sgpr[4] = 0x01234567u;
  t.w.sgpr[5] = 0x89abcdefu;
  t.run("v_permlanex16_b32 v3, v1, s4, s5");
  t.fill(4, [](int l) { return uint32_t(l ^ 3); });
  t.run("v_permlane16_var_b32 v5, v1, v4");
  t.run("v_permlanex16_var_b32 v6, v1, v4");
  for (int l = 0; l < 32; ++l) {
    CHECK(t.v(2, l) == uint32_t(l * 7));                // identity selectors
    const int i = l & 15, sel = i < 8 ? 7 - i : 23 - i; // nibbles of 0x89abcdef'01234567
    CHECK(t.v(3, l) == uint32_t((((l & ~15) ^ 16) | sel) * 7));
    CHECK(t.v(5, l) == uint32_t(((l & ~15) | ((l ^ 3) & 15)) * 7));
    CHECK(t.v(6, l) == uint32_t((((l & ~15) ^ 16) | ((l ^ 3) & 15)) * 7));
  }
  t.w.sgpr[9] = 13;
  t.run("v_readlane_b32 s6, v1, s9");
  CHECK(t.w.sgpr[6] == 13u * 7);
  t.w.set_exec(0xffff0000u);
  t.run("v_readfirstlane_b32 s7, v1");
  CHECK(t.w.sgpr[7] == 16u * 7);
  t.run("v_writelane_b32 v1, 12345, 3"); // lane 3 is outside EXEC: written anyway
  CHECK(t.v(1, 3) == 12345u);
}

TEST_CASE("valu: VOPD reads both halves' sources before writing") {
  Wave t;
  t.fill(1, [](int l) { return fb(float(l)); });
  t.fill(2, [](int l) { return fb(2.0f * float(l)); });
  // X writes v2, which Y reads: Y must see the old v2.
  t.run("v_dual_add_f32 v2, v1, v2 :: v_dual_mul_f32 v3, v2, v2");
  t.w.set_vcc(0x0000ffffu);
  t.run("v_dual_mov_b32 v4, 7 :: v_dual_cndmask_b32 v5, v1, v3");
  for (int l = 0; l < 32; ++l) {
    CHECK(t.vf(2, l) == 3.0f * float(l));
    CHECK(t.vf(3, l) == 4.0f * float(l) * float(l));
    CHECK(t.v(4, l) == 7u);
    CHECK(t.v(5, l) == (l < 16 ? fb(4.0f * float(l) * float(l)) : fb(float(l))));
  }
}

TEST_CASE("valu: fp8 / bf8 conversions, packing halves and stochastic rounding") {
  Wave t;
  const std::array<float, 8> vals = {0.0f, 1.0f, -2.5f, 448.0f, 1000.0f, 0.013f, -57344.0f, 3.3f};
  t.fill(1, [&](int l) { return fb(vals[l % 8] * (l >= 8 ? 0.5f : 1.0f)); });
  t.fill(2, [&](int l) { return fb(vals[(l + 3) % 8]); });
  t.fill(3, [](int) { return 0xaaaaaaaau; });
  t.run("v_cvt_pk_fp8_f32 v3, v1, v2 op_sel:[0,0,1]");
  t.fill(4, [](int) { return 0x55555555u; });
  t.run("v_cvt_pk_bf8_f32 v4, v1, v2");
  t.fill(5, [](int l) { return uint32_t(l) * 0x01010101u; });
  t.run("v_cvt_sr_fp8_f32 v5, v1, v6 byte_sel:2"); // v6 = 0: rounds toward zero
  using tw::num::Saturate;
  for (int l = 0; l < 32; ++l) {
    const float a = std::bit_cast<float>(t.v(1, l)), b = std::bit_cast<float>(t.v(2, l));
    const uint32_t pk8 =
        tw::num::f32_to_e4m3(a, Saturate::no) | (tw::num::f32_to_e4m3(b, Saturate::no) << 8);
    CHECK(t.v(3, l) == (0x0000aaaau | (pk8 << 16)));
    const uint32_t pkb =
        tw::num::f32_to_e5m2(a, Saturate::no) | (tw::num::f32_to_e5m2(b, Saturate::no) << 8);
    CHECK(t.v(4, l) == (0x55550000u | pkb));
    const uint32_t sr = tw::num::f32_to_e4m3_stochastic(a, 0, Saturate::no);
    CHECK(t.v(5, l) == ((uint32_t(l) * 0x01010101u & 0xff00ffffu) | (sr << 16)));
  }
  // Hand-checked codes: 1.0 = 0x38 (e4m3), -2.5 = 0xc2 (e4m3: 1.25*2^1), 1.0 = 0x3c (e5m2).
  CHECK((t.v(3, 1) >> 16 & 0xff) == 0x38u);
  CHECK((t.v(3, 2) >> 16 & 0xff) == 0xc2u);
  CHECK((t.v(4, 1) & 0xff) == 0x3cu);
  t.run("v_cvt_f32_fp8_e64 v7, v3 byte_sel:2");
  t.run("v_cvt_pk_f32_bf8_e32 v[8:9], v4");
  for (int l = 0; l < 32; ++l) {
    CHECK(t.v(7, l) == fb(tw::num::e4m3_to_f32(uint8_t(t.v(3, l) >> 16))));
    CHECK(t.v(8, l) == fb(tw::num::e5m2_to_f32(uint8_t(t.v(4, l)))));
    CHECK(t.v(9, l) == fb(tw::num::e5m2_to_f32(uint8_t(t.v(4, l) >> 8))));
  }
  CHECK(t.vf(7, 1) == 1.0f);
  CHECK(t.vf(7, 2) == -2.5f);
}

namespace {

// Host matrix product with the register layouts of shared/RDNA4.md (written from the
// formulas there, independently of atoms/).
int a16_k(int lane, int g, int h) {
  return 8 * (g / 2) + 4 * (lane / 16) + 2 * (g % 2) + h;
}

} // namespace

TEST_CASE("valu: v_wmma_f32_16x16x16_f16 with neg_lo/neg_hi equals a host matrix product") {
  Wave t;
  float A[16][16], B[16][16], C[16][16];
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-8, 8);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      A[i][j] = float(d(rng)) * 0.25f;
      B[i][j] = float(d(rng)) * 0.5f;
      C[i][j] = float(d(rng));
    }
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < 4; ++g) {
      t.v(0 + g, l) =
          hb(A[l % 16][a16_k(l, g, 0)]) | (uint32_t(hb(A[l % 16][a16_k(l, g, 1)])) << 16);
      t.v(4 + g, l) =
          hb(B[a16_k(l, g, 0)][l % 16]) | (uint32_t(hb(B[a16_k(l, g, 1)][l % 16])) << 16);
    }
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < 8; ++r)
      t.v(8 + r, l) = fb(C[8 * (l / 16) + r][l % 16]);
  t.run("v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[4:7], v[8:15]");
  t.run("v_wmma_f32_16x16x16_f16 v[24:31], v[0:3], v[4:7], v[8:15] neg_lo:[1,0,1] neg_hi:[1,0,0]");
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < 8; ++r) {
      const int i = 8 * (l / 16) + r, j = l % 16;
      double acc = 0;
      for (int k = 0; k < 16; ++k)
        acc += double(A[i][k]) * B[k][j];
      CHECK(t.vf(16 + r, l) == doctest::Approx(acc + C[i][j]).epsilon(1e-6));
      CHECK(t.vf(24 + r, l) == doctest::Approx(-acc - C[i][j]).epsilon(1e-6));
    }
}

TEST_CASE("valu: v_wmma_i32_16x16x16_iu8 signedness and clamp, zero accumulator constant") {
  Wave t;
  int8_t A[16][16], B[16][16];
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(-128, 127);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      A[i][j] = int8_t(d(rng));
      B[i][j] = int8_t(d(rng));
    }
  // 8-bit A/B: k = 8*(l/16) + 4*g + b.
  for (int l = 0; l < 32; ++l)
    for (int g = 0; g < 2; ++g) {
      uint32_t a = 0, b = 0;
      for (int byte = 0; byte < 4; ++byte) {
        const int k = 8 * (l / 16) + 4 * g + byte;
        a |= uint32_t(uint8_t(A[l % 16][k])) << (8 * byte);
        b |= uint32_t(uint8_t(B[k][l % 16])) << (8 * byte);
      }
      t.v(0 + g, l) = a;
      t.v(2 + g, l) = b;
    }
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < 8; ++r)
      t.v(4 + r, l) = 0x7fffff00u; // close to INT32_MAX: clamp matters
  t.run("v_wmma_i32_16x16x16_iu8 v[12:19], v[0:1], v[2:3], 0 neg_lo:[1,0,0]");
  t.run("v_wmma_i32_16x16x16_iu8 v[4:11], v[0:1], v[2:3], v[4:11] neg_lo:[1,1,0] clamp");
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < 8; ++r) {
      const int i = 8 * (l / 16) + r, j = l % 16;
      int64_t mixed = 0, both = 0;
      for (int k = 0; k < 16; ++k) {
        mixed += int64_t(A[i][k]) * int64_t(uint8_t(B[k][j])); // A signed, B unsigned
        both += int64_t(A[i][k]) * int64_t(B[k][j]);
      }
      CHECK(int32_t(t.v(12 + r, l)) == int32_t(mixed));
      const int64_t s = both + 0x7fffff00ll;
      CHECK(int64_t(int32_t(t.v(4 + r, l))) == std::min<int64_t>(s, INT32_MAX));
    }
}

TEST_CASE("valu: errors name the instruction") {
  Wave t;
  const bool unknown_absent = HandlerTable::instance().find("v_not_an_instruction_b32") == nullptr;
  const bool known_present = HandlerTable::instance().find("v_add_f32") != nullptr;
  CHECK(unknown_absent);
  CHECK(known_present);
  t.w.set_exec(0x0000ffffu);
  try {
    t.run("v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[4:7], v[8:15]");
    FAIL("a WMMA with a partial EXEC must fail");
  } catch (const EmuError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("v_wmma_f32_16x16x16_f16 v[16:23]") != std::string::npos);
    CHECK(msg.find("EXEC") != std::string::npos);
  }
  try {
    t.run("v_add_f32_e32 v1, v2");
    FAIL("a missing operand must fail");
  } catch (const EmuError& e) {
    CHECK(std::string(e.what()).find("operand count") != std::string::npos);
  }
}

TEST_CASE("valu: MODE denormal flushing and round modes for f32") {
  Wave t;
  const float tiny = std::ldexp(1.0f, -130); // an f32 denormal
  t.fill(1, [&](int) { return fb(tiny); });
  t.fill(2, [](int) { return fb(1.0f); });
  t.fill(3, [](int) { return fb(std::ldexp(3.0f, -25)); }); // 0.75 ulp of 1.0
  t.run("v_mul_f32_e32 v4, v1, v2");
  CHECK(t.vf(4, 0) == tiny); // MODE 0xf0: denormals kept
  t.w.mode = 0xc0;           // f32 denorm field 0: flush inputs and outputs
  t.run("v_mul_f32_e32 v5, v1, v2");
  CHECK(t.v(5, 0) == 0u);
  t.w.mode = 0xc0 | (1u << 4);               // keep input denormals, flush outputs
  t.run("v_mul_f32_e32 v6, v1, 0x3f000000"); // tiny * 0.5 is a denormal output
  CHECK(t.v(6, 0) == 0u);
  // Round modes: 1 + 0.75 ulp.
  const float up = std::nextafter(1.0f, 2.0f);
  const std::array<std::pair<uint32_t, float>, 4> modes = {
      {{0, up}, {1, up}, {2, 1.0f}, {3, 1.0f}}};
  for (const auto& [round, want] : modes) {
    t.w.mode = 0xf0 | round;
    t.run("v_add_f32_e32 v7, v2, v3");
    CAPTURE(round);
    CHECK(t.vf(7, 0) == want);
  }
  t.w.mode = 0xf0 | 3u;
  t.run("v_sub_f32_e32 v8, 0, v2"); // -1 - nothing: exact results are unaffected
  CHECK(t.vf(8, 0) == -1.0f);
}

TEST_CASE("valu: byte SAD / lerp and cube map coordinates") {
  Wave t;
  t.fill(1, [](int) { return 0x10ff0005u; });
  t.fill(2, [](int) { return 0x20000307u; });
  t.run("v_sad_u8 v3, v1, v2, 100");  // |0x10-0x20| + |0xff-0| + |0-3| + |5-7| = 16+255+3+2
  t.run("v_msad_u8 v4, v1, v2, 100"); // the 0x00 reference byte is skipped: 16+3+2
  t.run("v_sad_hi_u8 v5, v1, v2, 1");
  t.run("v_sad_u16 v6, v1, v2, 0"); // |0x10ff-0x2000| + |0x0005-0x0307|
  t.run("v_lerp_u8 v7, v1, v2, 1"); // per byte (a+b+round)>>1, round = bit 0 of src2 bytes
  CHECK(t.v(3, 0) == 100u + 16 + 255 + 3 + 2);
  CHECK(t.v(4, 0) == 100u + 16 + 3 + 2);
  CHECK(t.v(5, 0) == ((16u + 255 + 3 + 2) << 16) + 1);
  CHECK(t.v(6, 0) == (0x2000u - 0x10ff) + (0x0307u - 0x0005));
  CHECK(t.v(7, 0) == ((0x18u << 24) | (0x7fu << 16) | (0x01u << 8) | 0x06u));
  t.fill(8, [](int) { return fb(1.0f); });
  t.fill(9, [](int) { return fb(-3.0f); });
  t.fill(10, [](int) { return fb(2.0f); });
  t.run("v_cubeid_f32 v11, v8, v9, v10");
  t.run("v_cubesc_f32 v12, v8, v9, v10");
  t.run("v_cubetc_f32 v13, v8, v9, v10");
  t.run("v_cubema_f32 v14, v8, v9, v10");
  CHECK(t.vf(11, 0) == 3.0f); // -y face
  CHECK(t.vf(12, 0) == 1.0f);
  CHECK(t.vf(13, 0) == -2.0f);
  CHECK(t.vf(14, 0) == -6.0f);
}

TEST_CASE("valu: M0-relative moves, v_swap and DPP fetch-inactive") {
  Wave t;
  for (int r = 10; r < 20; ++r)
    t.fill(r, [&](int l) { return uint32_t(r * 100 + l); });
  t.w.sgpr[sreg::kM0] = 3;
  t.run("v_movrels_b32_e32 v1, v10"); // v1 = v13
  t.run("v_movreld_b32_e32 v10, v2"); // v13 = v2
  t.fill(2, [](int l) { return uint32_t(7 * l); });
  t.run("v_movreld_b32_e32 v11, v2"); // v14 = v2 (new)
  for (int l = 0; l < 32; ++l) {
    CHECK(t.v(1, l) == uint32_t(1300 + l));
    CHECK(t.v(14, l) == uint32_t(7 * l));
  }
  t.run("v_swap_b32 v15, v16");
  CHECK(t.v(15, 4) == 1604u);
  CHECK(t.v(16, 4) == 1504u);
  // fi:1 reads the inactive lane 0; without it lane 1 keeps its old value.
  t.w.set_exec(0xfffffffeu);
  t.fill(3, [](int) { return 1u; });
  t.fill(4, [](int) { return 1u; });
  t.run("v_mov_b32_dpp v3, v10 row_shr:1 row_mask:0xf bank_mask:0xf fi:1");
  t.run("v_mov_b32_dpp v4, v10 row_shr:1 row_mask:0xf bank_mask:0xf");
  CHECK(t.v(3, 1) == 1000u);
  CHECK(t.v(4, 1) == 1u);
  CHECK(t.v(3, 2) == 1001u);
  CHECK(t.v(3, 0) == 1u); // lane 0 itself is inactive
}
