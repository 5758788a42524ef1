// Cross-lane moves: v_readlane / v_readfirstlane / v_writelane, v_permlane16 / x16 (selector
// SGPRs or per-lane _var), M0-relative moves, v_swap, v_nop.
#include <runtime/emu/valu/vop.hpp>

#include <bit>
#include <string>

namespace tw::emu::valu {
namespace {

void nop(WaveContext&, const DecodedInstr&) {}

void readlane(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const int lane = int(w.sread32(in.op(2)) & 31u);
  w.swrite32(in.op(0), w.read32(in.op(1), lane));
}

void readfirstlane(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const uint32_t exec = w.exec();
  const int lane = exec ? std::countr_zero(exec) : 0;
  w.swrite32(in.op(0), w.read32(in.op(1), lane));
}

// Writes one lane regardless of EXEC.
void writelane(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const int lane = int(w.sread32(in.op(2)) & 31u);
  w.write32(in.op(0), lane, w.sread32(in.op(1)));
}

// op_sel:[fi, bound_ctrl]: fi reads inactive source lanes; bound_ctrl writes 0 (instead of
// keeping the old value) when the source lane is inactive.
template <bool Cross, bool PerLane>
void permlane(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const bool fi = in.mods.op_sel[0], bound_ctrl = in.mods.op_sel[1];
  const uint32_t exec = w.exec();
  uint64_t selectors = 0;
  if constexpr (!PerLane)
    selectors = uint64_t(w.sread32(in.op(2))) | (uint64_t(w.sread32(in.op(3))) << 32);
  std::array<uint32_t, kWaveSize> r{};
  uint32_t written = 0;
  w.for_each_active([&](int lane) {
    const unsigned sel =
        PerLane ? w.read32(in.op(2), lane) & 15u : unsigned(selectors >> (4 * (lane & 15))) & 15u;
    const int row = Cross ? ((lane & ~15) ^ 16) : (lane & ~15);
    const int src = row | int(sel);
    if (!((exec >> src) & 1u) && !fi) {
      if (!bound_ctrl)
        return; // keeps the old value
      r[lane] = 0;
    } else {
      r[lane] = w.read32(in.op(1), src);
    }
    written |= 1u << lane;
  });
  for (uint32_t m = written; m; m &= m - 1)
    w.write32(in.op(0), std::countr_zero(m), r[std::countr_zero(m)]);
}

Operand shifted(const Operand& op, uint32_t by) {
  Operand o = op;
  o.reg = uint16_t(op.reg + by);
  return o;
}

// M0-relative VGPR moves (the offset applies to the relative side(s)).
template <bool RelSrc, bool RelDst>
void movrel(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const uint32_t m0 = w.m0();
  const Operand src = RelSrc ? shifted(in.op(1), m0) : in.op(1);
  const Operand dst = RelDst ? shifted(in.op(0), m0) : in.op(0);
  if (src.reg >= kMaxVgprs || dst.reg >= kMaxVgprs)
    c.fail(in, "M0-relative VGPR index " + std::to_string(m0) + " leaves the VGPR file");
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) { r[lane] = w.read32(src, lane); });
  w.for_each_active([&](int lane) { w.write32(dst, lane, r[lane]); });
}

void swap(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  w.for_each_active([&](int lane) {
    const uint32_t a = w.read32(in.op(0), lane), b = w.read32(in.op(1), lane);
    w.write32(in.op(0), lane, b);
    w.write32(in.op(1), lane, a);
  });
}

} // namespace

void register_lane_ops(HandlerTable& t) {
  t.add("v_nop", &nop);
  t.add("v_readlane_b32", &readlane);
  t.add("v_readfirstlane_b32", &readfirstlane);
  t.add("v_writelane_b32", &writelane);
  t.add("v_permlane16_b32", &permlane<false, false>);
  t.add("v_permlanex16_b32", &permlane<true, false>);
  t.add("v_permlane16_var_b32", &permlane<false, true>);
  t.add("v_permlanex16_var_b32", &permlane<true, true>);
  t.add("v_movrels_b32", &movrel<true, false>);
  t.add("v_movreld_b32", &movrel<false, true>);
  t.add("v_movrelsd_b32", &movrel<true, true>);
  t.add("v_swap_b32", &swap);
}

} // namespace tw::emu::valu
