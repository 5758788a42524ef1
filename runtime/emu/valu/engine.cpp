// The generic VALU engine: source reading, DPP, modifiers, MODE denormals, commit.
#include <runtime/emu/valu/vop.hpp>

#include <atoms/formats/f16.hpp>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace tw::emu::valu {

float f16_to_float(uint16_t bits) {
  return tw::num::f16_to_f32(bits);
}
uint16_t float_to_f16(float f) {
  return tw::num::f32_to_f16(f);
}
// double -> f32 -> f16 rounds once in effect: f32 keeps more than 2*11+2 bits.
uint16_t double_to_f16(double d) {
  return tw::num::f32_to_f16(static_cast<float>(d));
}

#ifdef TW_VALU_AVX2_FMA
bool host_has_avx2_fma() {
  static const bool has = [] {
    __builtin_cpu_init(); // may run before the library's constructors
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
}
#endif

namespace {

ImmType imm_type(VT t) {
  switch (t) {
  case VT::f32:
    return ImmType::F32;
  case VT::f16:
    return ImmType::F16;
  case VT::b16:
    return ImmType::B16;
  case VT::f64:
    return ImmType::F64;
  case VT::b64:
    return ImmType::B64;
  default:
    return ImmType::B32;
  }
}

uint64_t sign_bit(VT t) {
  return is_16(t) ? 0x8000ull : is_64(t) ? 0x8000000000000000ull : 0x80000000ull;
}

bool is_denormal(VT t, uint64_t v) {
  switch (t) {
  case VT::f16:
    return (v & 0x7c00) == 0 && (v & 0x3ff) != 0;
  case VT::f32:
    return (v & 0x7f800000) == 0 && (v & 0x7fffff) != 0;
  case VT::f64:
    return (v & 0x7ff0000000000000ull) == 0 && (v & 0xfffffffffffffull) != 0;
  default:
    return false;
  }
}

// MODE denorm field of a type: bit 0 = keep input denormals, bit 1 = keep output denormals.
unsigned denorm_field(const WaveState& w, VT t) {
  return t == VT::f32 ? w.denorm_f32() : w.denorm_f16_f64();
}

int destination_count(Form f) {
  switch (f) {
  case Form::carry_out:
  case Form::carry_inout:
    return 2;
  case Form::compare_x:
    return 0;
  default:
    return 1;
  }
}

// omod, clamp to [0, 1] and output denormal flushing of a float result.
uint64_t finish_float(const WaveState& w, const DecodedInstr& in, VT t, uint64_t v, bool clamp) {
  const Modifiers& m = in.mods;
  const bool omod = m.omod_mul != 1 || m.omod_div != 1;
  if (omod || clamp) {
    const double scale = double(m.omod_mul) / double(m.omod_div);
    auto apply = [&](double x) {
      if (omod)
        x *= scale;
      if (clamp)
        x = std::isnan(x) ? 0.0 : std::fmin(std::fmax(x, 0.0), 1.0);
      return x;
    };
    if (t == VT::f32)
      v = f32_bits(static_cast<float>(apply(as_f32(uint32_t(v)))));
    else if (t == VT::f16)
      v = double_to_f16(apply(f16_to_float(uint16_t(v))));
    else
      v = f64_bits(apply(as_f64(v)));
  }
  if (!(denorm_field(w, t) & 2u) && is_denormal(t, v))
    v &= sign_bit(t);
  return v;
}

// MODE round field (0 nearest even, 1 +inf, 2 -inf, 3 toward zero) as the host rounding of
// the lane functions' arithmetic for the instruction's duration (the host's rounding mode is
// per thread, and workgroups run on separate threads).
class HostRounding {
public:
  explicit HostRounding(unsigned mode_field) {
    static constexpr int kHost[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    if (mode_field != 0) {
      saved_ = std::fegetround();
      std::fesetround(kHost[mode_field & 3]);
    }
  }
  ~HostRounding() {
    if (saved_ >= 0)
      std::fesetround(saved_);
  }
  HostRounding(const HostRounding&) = delete;
  HostRounding& operator=(const HostRounding&) = delete;

private:
  int saved_ = -1;
};

} // namespace

namespace {

// A source's raw value typed `t`: the op_sel half of a 16-bit type, then neg / abs.
uint64_t modified(uint64_t v, const Operand& op, VT t, bool hi) {
  if (is_16(t))
    v = hi ? (v >> 16) & 0xffff : v & 0xffff;
  // neg / abs act on the sign bit; the assembler accepts them only where the operand is a
  // float (also v_cndmask_b32 and v_mov's VOP3 forms, whose "b32" sources are f32 there).
  if (op.abs)
    v &= ~sign_bit(t);
  if (op.neg)
    v ^= sign_bit(t);
  return v;
}

} // namespace

uint64_t read_source(const WaveState& w, const Operand& op, int lane, VT t, bool hi) {
  return modified(is_64(t) ? w.read64(op, lane, imm_type(t)) : w.read32(op, lane, imm_type(t)), op,
                  t, hi);
}

std::array<int8_t, kWaveSize> dpp_source_lanes(const Modifiers& m, uint32_t exec) {
  std::array<int8_t, kWaveSize> src{};
  const std::string& k = m.dpp_ctrl;
  const int n = m.dpp_ctrl_value;
  enum class Ctrl { dpp8, quad_perm, shl, shr, ror, mirror, half_mirror, share, xmask } ctrl;
  if (m.dpp8)
    ctrl = Ctrl::dpp8;
  else if (m.quad_perm)
    ctrl = Ctrl::quad_perm;
  else if (k == "row_shl")
    ctrl = Ctrl::shl;
  else if (k == "row_shr")
    ctrl = Ctrl::shr;
  else if (k == "row_ror")
    ctrl = Ctrl::ror;
  else if (k == "row_mirror")
    ctrl = Ctrl::mirror;
  else if (k == "row_half_mirror")
    ctrl = Ctrl::half_mirror;
  else if (k == "row_share")
    ctrl = Ctrl::share;
  else if (k == "row_xmask")
    ctrl = Ctrl::xmask;
  else
    throw std::invalid_argument("DPP control '" + k + "' is not a gfx12 wave32 DPP control");
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const int row = lane & ~15, in_row = lane & 15;
    int s = -1;
    switch (ctrl) {
    case Ctrl::dpp8:
      s = (lane & ~7) | (*m.dpp8)[lane & 7];
      break;
    case Ctrl::quad_perm:
      s = (lane & ~3) | ((*m.quad_perm)[lane & 3] & 3);
      break;
    case Ctrl::shl:
      s = in_row + n < 16 ? lane + n : -1;
      break;
    case Ctrl::shr:
      s = in_row - n >= 0 ? lane - n : -1;
      break;
    case Ctrl::ror:
      s = row + ((in_row - n) & 15);
      break;
    case Ctrl::mirror:
      s = row + (15 - in_row);
      break;
    case Ctrl::half_mirror:
      s = (lane & ~7) + (7 - (lane & 7));
      break;
    case Ctrl::share:
      s = row + (n & 15);
      break;
    case Ctrl::xmask:
      s = row + ((in_row ^ n) & 15);
      break;
    }
    // A lane outside EXEC is read only with fi (fetch inactive).
    if (s >= 0 && !((exec >> s) & 1u) && !m.fi)
      s = -1;
    src[lane] = int8_t(s);
  }
  return src;
}

bool dpp_lane_enabled(const Modifiers& m, int lane) {
  if (m.dpp8)
    return true;
  return ((m.row_mask >> (lane >> 4)) & 1) && ((m.bank_mask >> ((lane >> 2) & 3)) & 1);
}

namespace {

// One source operand of an instruction, resolved for reading lane by lane (read_source's
// semantics plus the MODE input denormal flush).
// No member initializers: compute() keeps four on the stack per instruction and
// source_access() sets every field (zeroing them showed in profiles).
struct SourceAccess {
  const uint32_t* low;  // VGPR: the lanes of its (first) register; null: invariant
  const uint32_t* high; // 64-bit VGPR: the lanes of the second register
  uint64_t value;       // lane-invariant value, modifiers and flushing applied
  uint64_t clear, flip; // abs: sign bit cleared, then neg: sign bit flipped
  uint64_t sign;
  VT type;
  uint8_t shift; // 16-bit: 16 selects the high half
  bool flush;    // flush input denormals (MODE)

  uint64_t read(int lane) const {
    if (!low)
      return value;
    uint64_t v = low[lane];
    if (high)
      v |= uint64_t(high[lane]) << 32;
    else if (is_16(type))
      v = (v >> shift) & 0xffff;
    v = (v & ~clear) ^ flip;
    if (flush && is_denormal(type, v))
      v &= sign;
    return v;
  }
};

SourceAccess source_access(const WaveState& w, const Operand& op, VT t, bool hi) {
  SourceAccess a{nullptr, nullptr, 0, 0, 0, 0, VT::none, 0, false};
  a.type = t;
  a.sign = sign_bit(t);
  a.flush = is_float(t) && !(denorm_field(w, t) & 1u);
  if (op.is_vgpr()) {
    a.low = w.vgpr[op.reg].data();
    if (is_64(t))
      a.high = w.vgpr[op.reg + 1].data();
    a.shift = hi ? 16 : 0;
    a.clear = op.abs ? a.sign : 0;
    a.flip = op.neg ? a.sign : 0;
    return a;
  }
  a.value = read_source(w, op, 0, t, hi);
  if (a.flush && is_denormal(t, a.value))
    a.value &= a.sign;
  return a;
}

// Every lane's value of a source (inactive lanes too: reading them is harmless and keeps the
// loops free of branches). The plain 32-bit VGPR read is a straight copy.
void gather(const SourceAccess& a, std::array<uint64_t, kWaveSize>& out) {
  if (!a.low) {
    out.fill(a.value);
  } else if (!a.high && !is_16(a.type) && !a.clear && !a.flip && !a.flush) {
    for (int lane = 0; lane < kWaveSize; ++lane)
      out[lane] = a.low[lane];
  } else {
    for (int lane = 0; lane < kWaveSize; ++lane)
      out[lane] = a.read(lane);
  }
}

} // namespace

VopPlan make_plan(const DecodedInstr& in, const VopSpec& spec) {
  VopPlan p;
  p.spec = &spec;
  const int ndst = destination_count(spec.form);
  const int printed_srcs = spec.nsrc - (spec.form == Form::accumulate ? 1 : 0);
  const size_t expected = size_t(ndst + printed_srcs);
  const bool mask_form = spec.form == Form::mask_in || spec.form == Form::carry_inout;
  p.operands_ok = in.ops.size() >= expected && in.ops.size() <= expected + (mask_form ? 1 : 0);
  p.dpp = in.encoding == Encoding::Dpp || in.encoding == Encoding::E64Dpp;
  p.nsrc = spec.nsrc;
  p.float_dst = is_float(spec.dst) && !spec.int_clamp;
  p.omod_or_clamp = in.mods.omod_mul != 1 || in.mods.omod_div != 1 || in.mods.clamp;
  if (!p.operands_ok)
    return p;
  // The select / carry-in mask: the last printed operand, else VCC (VOPD, v_div_fmas).
  if (mask_form && in.ops.size() == expected + 1)
    p.mask_op = int8_t(in.ops.size() - 1);
  for (int i = 0; i < spec.nsrc; ++i) {
    PlannedSource& s = p.src[size_t(i)];
    const VT t = spec.src[size_t(i)];
    s.type = t;
    s.hi = is_16(t) && in.mods.op_sel[size_t(i)];
    s.op = uint8_t(spec.form == Form::accumulate && i == spec.nsrc - 1 ? 0 : ndst + i);
    const Operand& op = in.ops[s.op];
    if (op.is_vgpr()) {
      s.kind = SourceKind::Row;
      s.reg = op.reg;
      s.shift = s.hi ? 16 : 0;
      s.clear = op.abs ? sign_bit(t) : 0;
      s.flip = op.neg ? sign_bit(t) : 0;
      s.plain = !is_64(t) && !is_16(t) && !op.abs && !op.neg;
    } else if (op.is_sgpr() && op.reg != sreg::kNull && (t == VT::b32 || t == VT::f32)) {
      s.kind = SourceKind::Sgpr;
      s.reg = op.reg;
      s.clear = op.abs ? sign_bit(t) : 0;
      s.flip = op.neg ? sign_bit(t) : 0;
    } else if (op.kind == OperandKind::Imm || op.kind == OperandKind::FloatImm) {
      s.kind = SourceKind::Invariant;
      s.value = modified(is_64(t) ? WaveState::immediate64(op, imm_type(t))
                                  : WaveState::immediate32(op, imm_type(t)),
                         op, t, s.hi);
    } else {
      s.kind = SourceKind::Dynamic;
    }
  }
  p.narrow = spec.batch32 && !p.dpp && narrow_types(spec.dst, spec.src, spec.nsrc) &&
             (spec.dst == VT::none || in.ops[0].is_vgpr());
  return p;
}

namespace {

// The value of a SourceKind::Sgpr source (read_source's, without the flush).
uint64_t sgpr_source(const WaveState& w, const PlannedSource& s) {
  return (uint64_t(w.sgpr[s.reg]) & ~s.clear) ^ s.flip;
}

// Source i of a planned instruction for reading lane by lane.
SourceAccess planned_source(const WaveState& w, const DecodedInstr& in, const PlannedSource& s) {
  const VT t = s.type;
  if (s.kind == SourceKind::Dynamic)
    return source_access(w, in.ops[s.op], t, s.hi);
  SourceAccess a{nullptr, nullptr, 0, 0, 0, 0, t, 0, false};
  a.sign = sign_bit(t);
  a.flush = is_float(t) && !(denorm_field(w, t) & 1u);
  if (s.kind == SourceKind::Invariant || s.kind == SourceKind::Sgpr) {
    const uint64_t v = s.kind == SourceKind::Invariant ? s.value : sgpr_source(w, s);
    a.value = a.flush && is_denormal(t, v) ? v & a.sign : v;
    return a;
  }
  a.low = w.vgpr[s.reg].data();
  if (is_64(t))
    a.high = w.vgpr[s.reg + 1].data();
  a.shift = s.shift;
  a.clear = s.clear;
  a.flip = s.flip;
  return a;
}

// Every lane's value of planned source `s` (as gather() gives it from planned_source).
void gather_planned(const WaveState& w, const DecodedInstr& in, const PlannedSource& s,
                    std::array<uint64_t, kWaveSize>& out) {
  const VT t = s.type;
  const bool flush = is_float(t) && !(denorm_field(w, t) & 1u);
  if (s.kind == SourceKind::Invariant || s.kind == SourceKind::Sgpr) {
    const uint64_t v = s.kind == SourceKind::Invariant ? s.value : sgpr_source(w, s);
    out.fill(flush && is_denormal(t, v) ? v & sign_bit(t) : v);
    return;
  }
  if (s.kind != SourceKind::Row) {
    gather(planned_source(w, in, s), out);
    return;
  }
  const uint32_t* low = w.vgpr[s.reg].data();
  if (!is_64(t) && !is_16(t) && !s.clear && !s.flip && !flush) {
    for (int lane = 0; lane < kWaveSize; ++lane)
      out[size_t(lane)] = low[lane];
    return;
  }
  if (is_64(t) && !s.clear && !s.flip && !flush) {
    const uint32_t* high = w.vgpr[s.reg + 1].data();
    for (int lane = 0; lane < kWaveSize; ++lane)
      out[size_t(lane)] = low[lane] | uint64_t(high[lane]) << 32;
    return;
  }
  gather(planned_source(w, in, s), out);
}

// The 32-bit path for exec != 0: sources read in place (a plain VGPR row) or into `buf`, the
// results of the active lanes into value (the others 0), omod / clamp / output denormals
// applied; returns the carry / compare bits.
uint32_t compute_narrow(const WaveState& w, const DecodedInstr& in, const VopPlan& p,
                        const VopSpec& spec, uint32_t exec, uint32_t mask, uint32_t* value) {
  alignas(32) static constexpr std::array<uint32_t, kWaveSize> kZeros{};
  alignas(32) std::array<std::array<uint32_t, kWaveSize>, 4> buf;
  LaneBatch32 b;
  const bool flush_f32 = !(w.denorm_f32() & 1u);
  for (int i = 0; i < 4; ++i) {
    if (i >= p.nsrc) {
      b.s[size_t(i)] = kZeros.data();
      continue;
    }
    const PlannedSource& s = p.src[size_t(i)];
    const bool flush = flush_f32 && s.type == VT::f32;
    uint32_t* dst = buf[size_t(i)].data();
    b.s[size_t(i)] = dst;
    if (s.kind == SourceKind::Row) {
      const uint32_t* row = w.vgpr[s.reg].data();
      if (s.plain && !flush) {
        b.s[size_t(i)] = row;
        continue;
      }
      const uint32_t clear = uint32_t(s.clear), flip = uint32_t(s.flip);
      for (int lane = 0; lane < kWaveSize; ++lane) {
        uint32_t v = (row[lane] & ~clear) ^ flip;
        if (flush && (v & 0x7f800000u) == 0)
          v &= 0x80000000u; // a denormal (or zero) keeps its sign only
        dst[lane] = v;
      }
      continue;
    }
    uint64_t v = s.kind == SourceKind::Invariant ? s.value
                 : s.kind == SourceKind::Sgpr    ? sgpr_source(w, s)
                                                 : planned_source(w, in, s).read(0);
    if (flush && is_denormal(VT::f32, v))
      v &= 0x80000000u;
    std::fill_n(dst, kWaveSize, uint32_t(v));
  }
  b.exec = exec;
  b.mask_in = mask;
  b.clamp = in.mods.clamp;
  b.wave = &w;
  if (exec != ~0u)
    std::fill_n(value, kWaveSize, 0u);
  b.value = value;
  {
    // f32 results round per MODE[1:0] (the only float result type here).
    const HostRounding rounding(spec.dst == VT::f32 ? w.round_f32() : 0u);
    spec.batch32(b);
  }
  // finish_float changes a result only with omod, clamp or output denormal flushing.
  if (p.float_dst && (p.omod_or_clamp || !(denorm_field(w, spec.dst) & 2u)))
    for (uint32_t m = exec; m; m &= m - 1) {
      const int lane = std::countr_zero(m);
      value[lane] = uint32_t(finish_float(w, in, spec.dst, value[lane], in.mods.clamp));
    }
  return b.mask_out;
}

// The mask results of an instruction: compare -> sdst, v_cmpx -> EXEC, carries -> sdst.
void commit_mask(WaveState& w, const VopSpec& spec, const DecodedInstr& in, uint32_t mask_bits) {
  switch (spec.form) {
  case Form::compare:
    w.swrite32(in.op(0), mask_bits);
    return;
  case Form::compare_x:
    w.set_exec(mask_bits);
    return;
  case Form::carry_out:
  case Form::carry_inout:
    w.swrite32(in.op(1), mask_bits);
    return;
  default:
    return;
  }
}

// 32-bit results to the lanes `written` of a VGPR row (the others kept).
void commit_row(uint32_t* row, const uint32_t* value, uint32_t written) {
  if (written == ~0u) {
    std::memcpy(row, value, sizeof(uint32_t) * kWaveSize);
    return;
  }
  for (int lane = 0; lane < kWaveSize; ++lane) { // a blend the compiler vectorises
    const uint32_t keep = (written & kLaneBit[size_t(lane)]) ? 0u : ~0u; // not written: kept
    row[lane] = (row[lane] & keep) | (value[lane] & ~keep);
  }
}

// One planned 32-bit instruction computed and committed (not a VOPD half: nothing to stage).
void run_narrow(WaveContext& c, const DecodedInstr& in, const VopPlan& p, const VopSpec& spec) {
  WaveState& w = c.wave;
  const uint32_t mask = p.mask_op >= 0 ? w.sread32(in.ops[size_t(p.mask_op)]) : w.vcc();
  const uint32_t exec = w.exec();
  if (exec == 0) { // no lane: nothing read, no result but the (zero) masks
    commit_mask(w, spec, in, 0);
    return;
  }
  alignas(32) uint32_t value[kWaveSize];
  const uint32_t mask_bits = compute_narrow(w, in, p, spec, exec, mask, value);
  commit_mask(w, spec, in, mask_bits);
  if (spec.dst != VT::none)
    commit_row(w.vgpr[in.ops[0].reg].data(), value, exec);
}

} // namespace

namespace {

void compute_planned(WaveContext& c, const DecodedInstr& in, const VopPlan& p, const VopSpec& spec,
                     Staged& out) {
  const WaveState& w = c.wave;
  if (!p.operands_ok) {
    const int ndst = destination_count(spec.form);
    const int printed_srcs = spec.nsrc - (spec.form == Form::accumulate ? 1 : 0);
    const size_t expected = size_t(ndst + printed_srcs);
    const bool mask_form = spec.form == Form::mask_in || spec.form == Form::carry_inout;
    c.fail(in, "operand count " + std::to_string(in.ops.size()) + " does not match " +
                   std::string(spec.mnemonic) + " (expected " + std::to_string(expected) +
                   (mask_form ? " or one more for the mask" : "") + ")");
  }
  const uint32_t mask = p.mask_op >= 0 ? w.sread32(in.ops[size_t(p.mask_op)]) : w.vcc();
  const uint32_t exec = w.exec();
  out.spec = &spec;
  out.in = &in;
  out.write_mask = 0;
  out.mask_bits = 0;
  out.narrow = false;
  // f32 results round per MODE[1:0], f16 / f64 per MODE[3:2]. (f16 results are rounded by
  // tw::num, which is always nearest even: directed rounding of f16 is not modelled.)
  const unsigned round = spec.dst == VT::f32  ? w.round_f32()
                         : is_float(spec.dst) ? w.round_f16_f64()
                                              : 0u;
  // finish_float changes a result only with omod, clamp or output denormal flushing.
  const bool finish = p.float_dst && (p.omod_or_clamp || !(denorm_field(w, spec.dst) & 2u));
  if (p.narrow) {
    out.narrow = true;
    if (exec == 0) // no lane: nothing read
      return;
    out.write_mask = exec;
    out.mask_bits = compute_narrow(w, in, p, spec, exec, mask, out.value32.data());
    return;
  }

  // Sources are resolved once per instruction: a VGPR source reads its row(s) per lane, any
  // other source (SGPR, constant, literal, scc, src_*) is the same for every lane and is read,
  // modified and flushed once.
  const bool dpp = p.dpp;
  if (!dpp && spec.batch) { // every active lane at once
    if (exec == 0)          // no lane: nothing read
      return;
    LaneBatch b;
    for (int i = 0; i < spec.nsrc; ++i)
      gather_planned(w, in, p.src[size_t(i)], b.s[size_t(i)]);
    const HostRounding rounding(round);
    if (exec != ~0u)
      out.value.fill(0); // lanes not written (the blends of commit read every lane)
    b.exec = exec;
    b.mask_in = mask;
    b.clamp = in.mods.clamp;
    b.wave = &w;
    b.value = out.value.data();
    spec.batch(b);
    if (finish)
      for (uint32_t m = exec; m; m &= m - 1) {
        const int lane = std::countr_zero(m);
        out.value[size_t(lane)] =
            finish_float(w, in, spec.dst, out.value[size_t(lane)], in.mods.clamp);
      }
    out.write_mask = exec;
    out.mask_bits = b.mask_out;
    return;
  }
  std::array<SourceAccess, 4> src; // the first nsrc are set below, and only they are read
  for (int i = 0; exec != 0 && i < spec.nsrc; ++i) // no lane, nothing read
    src[size_t(i)] = planned_source(w, in, p.src[size_t(i)]);
  std::array<int8_t, kWaveSize> dpp_src{};
  if (dpp) {
    try {
      dpp_src = dpp_source_lanes(in.mods, exec);
    } catch (const std::invalid_argument& e) {
      c.fail(in, e.what());
    }
  }
  const HostRounding rounding(round);
  out.value.fill(0); // lanes not written (the blends of commit read every lane)
  Lane L;
  L.wave = &w;
  L.clamp = in.mods.clamp;
  const int nsrc = spec.nsrc;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int lane = std::countr_zero(m);
    int src0_lane = lane;
    bool src0_zero = false;
    if (dpp) {
      if (!dpp_lane_enabled(in.mods, lane))
        continue;
      src0_lane = dpp_src[size_t(lane)];
      if (src0_lane < 0) {
        if (!in.mods.bound_ctrl && !in.mods.dpp8)
          continue; // invalid source lane: the destination keeps its value
        src0_zero = true;
        src0_lane = lane;
      }
    }
    L.lane = lane;
    L.mask_in = (mask >> lane) & 1u;
    L.mask_out = false;
    // bound_ctrl: an invalid source lane reads 0
    L.s[0] = src0_zero ? 0 : src[0].read(src0_lane);
    for (int i = 1; i < nsrc; ++i)
      L.s[size_t(i)] = src[size_t(i)].read(lane);
    uint64_t r = spec.fn(L);
    if (finish)
      r = finish_float(w, in, spec.dst, r, in.mods.clamp);
    out.value[size_t(lane)] = r;
    out.write_mask |= 1u << lane;
    if (L.mask_out)
      out.mask_bits |= 1u << lane;
  }
}

} // namespace

void compute(WaveContext& c, const DecodedInstr& in, const VopSpec& spec, Staged& out) {
  if (in.vop_plan.spec == &spec) [[likely]] {
    compute_planned(c, in, in.vop_plan, spec, out);
    return;
  }
  const VopPlan made = make_plan(in, spec); // not bound with this spec (built by hand: tests)
  compute_planned(c, in, made, spec, out);
}

void commit(WaveContext& c, const Staged& st) {
  WaveState& w = c.wave;
  const VopSpec& spec = *st.spec;
  const DecodedInstr& in = *st.in;
  commit_mask(w, spec, in, st.mask_bits);
  if (spec.dst == VT::none || spec.form == Form::compare || spec.form == Form::compare_x)
    return;
  const Operand& d = in.op(0);
  if (st.narrow) { // a 32-bit VGPR destination (make_plan)
    if (st.write_mask)
      commit_row(w.vgpr[d.reg].data(), st.value32.data(), st.write_mask);
    return;
  }
  const int printed_srcs = spec.nsrc - (spec.form == Form::accumulate ? 1 : 0);
  const bool hi = is_16(spec.dst) && printed_srcs < 4 && in.mods.op_sel[printed_srcs];
  if (d.is_vgpr() && (spec.dst == VT::b32 || spec.dst == VT::f32)) {
    uint32_t* row = w.vgpr[d.reg].data();
    const uint32_t wm = st.write_mask;
    for (int lane = 0; lane < kWaveSize; ++lane) {            // a blend the compiler vectorises
      const uint32_t keep = (wm & kLaneBit[lane]) ? 0u : ~0u; // not written: kept
      row[lane] = (row[lane] & keep) | (uint32_t(st.value[lane]) & ~keep);
    }
    return;
  }
  if (d.is_vgpr() && is_64(spec.dst) && d.reg + 1 < kMaxVgprs) {
    uint32_t* low = w.vgpr[d.reg].data();
    uint32_t* high = w.vgpr[d.reg + 1].data();
    const uint32_t wm = st.write_mask;
    for (int lane = 0; lane < kWaveSize; ++lane) {
      const uint32_t keep = (wm & kLaneBit[lane]) ? 0u : ~0u; // not written: kept
      low[lane] = (low[lane] & keep) | (uint32_t(st.value[lane]) & ~keep);
      high[lane] = (high[lane] & keep) | (uint32_t(st.value[lane] >> 32) & ~keep);
    }
    return;
  }
  for (uint32_t m = st.write_mask; m; m &= m - 1) {
    const int lane = std::countr_zero(m);
    const uint64_t v = st.value[lane];
    if (is_64(spec.dst)) {
      w.write64(d, lane, v);
    } else if (is_16(spec.dst) && d.is_vgpr()) {
      uint32_t& r = w.v(d.reg, lane); // the other half is preserved
      r = hi ? (r & 0xffffu) | uint32_t(v << 16) : (r & 0xffff0000u) | uint32_t(v & 0xffff);
    } else {
      w.write32(d, lane, uint32_t(v));
    }
  }
}

// ---- registration: a fixed pool of handler slots, each bound to one spec ----------------

namespace {

constexpr size_t kSlots = 1024;
std::array<const VopSpec*, kSlots> g_slot_spec{};
size_t g_slots_used = 0;

std::unordered_map<std::string_view, const VopSpec*>& spec_index() {
  static std::unordered_map<std::string_view, const VopSpec*> index;
  return index;
}

template <size_t Slot>
void slot_handler(WaveContext& c, const DecodedInstr& in) {
  const VopSpec& spec = *g_slot_spec[Slot];
  if (in.vop_plan.spec == &spec && in.vop_plan.narrow) {
    run_narrow(c, in, in.vop_plan, spec);
    return;
  }
  Staged st;
  compute(c, in, spec, st);
  commit(c, st);
}

template <size_t... I>
constexpr std::array<Handler, sizeof...(I)> make_slot_handlers(std::index_sequence<I...>) {
  return {&slot_handler<I>...};
}
constexpr std::array<Handler, kSlots> kSlotHandlers =
    make_slot_handlers(std::make_index_sequence<kSlots>{});

} // namespace

const VopSpec* find_spec(std::string_view mnemonic) {
  auto it = spec_index().find(mnemonic);
  return it == spec_index().end() ? nullptr : it->second;
}

void register_specs(HandlerTable& table, std::span<const VopSpec> specs) {
  for (const VopSpec& s : specs) {
    // The table is built once per process; a second build reuses the same slots.
    if (const VopSpec* known = find_spec(s.mnemonic); known == &s) {
      for (size_t i = 0; i < g_slots_used; ++i)
        if (g_slot_spec[i] == &s)
          table.add(std::string(s.mnemonic), kSlotHandlers[i]);
      continue;
    }
    if (g_slots_used == kSlots)
      throw std::logic_error("valu: more table-driven mnemonics than handler slots");
    g_slot_spec[g_slots_used] = &s;
    spec_index()[s.mnemonic] = &s;
    table.add(std::string(s.mnemonic), kSlotHandlers[g_slots_used]);
    ++g_slots_used;
  }
}

} // namespace tw::emu::valu
