#include <runtime/emu/timing/instr_timing.hpp>

#include <string_view>

namespace tw::emu::timing {
namespace {

bool starts(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool has(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

void add_regs(const Operand& op, std::vector<uint16_t>& out) {
  if (op.kind == OperandKind::Vgpr) {
    for (unsigned i = 0; i < op.count; ++i)
      out.push_back(static_cast<uint16_t>(op.reg + i));
  } else if (op.kind == OperandKind::Sgpr && op.reg != sreg::kNull) {
    for (unsigned i = 0; i < op.count && op.reg + i < sreg::kFileSize; ++i)
      out.push_back(static_cast<uint16_t>(kSgprBase + op.reg + i));
  }
}

// Destinations among the printed operands (they come first).
size_t destination_count(const DecodedInstr& in) {
  const std::string_view m = in.mnemonic;
  switch (in.cls) {
  case InstrClass::Valu:
  case InstrClass::Wmma:
    if (starts(m, "v_cmpx"))
      return 0;
    if (has(m, "_co_") || starts(m, "v_div_scale") || starts(m, "v_mad_u64_u32") ||
        starts(m, "v_mad_i64_i32") || (has(m, "_co") && m.back() != 'x'))
      return 2;
    return 1;
  case InstrClass::Salu:
    return starts(m, "s_cmp") || starts(m, "s_bitcmp") ? 0 : 1;
  case InstrClass::Smem:
    return starts(m, "s_load") || starts(m, "s_buffer_load") ? 1 : 0;
  case InstrClass::Lds:
    return has(m, "load") || has(m, "read") || has(m, "permute") || has(m, "swizzle") ||
                   has(m, "_rtn") || has(m, "consume") || has(m, "append")
               ? 1
               : 0;
  case InstrClass::Vmem:
    if (has(m, "_lds_") || has(m, "load_lds"))
      return 0;
    if (has(m, "atomic"))
      return has(in.mods.th, "RETURN") ? 1 : 0;
    return has(m, "load") ? 1 : 0;
  default:
    return 0;
  }
}

bool is_trans(std::string_view m) {
  for (std::string_view p : {"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"})
    if (starts(m, p))
      return true;
  return false;
}

void add_operands(const DecodedInstr& in, InstrTiming& t) {
  const size_t dsts = destination_count(in);
  for (size_t i = 0; i < in.ops.size(); ++i)
    add_regs(in.ops[i], i < dsts ? t.writes : t.reads);
}

void set_wait(const DecodedInstr& in, InstrTiming& t) {
  const std::string_view m = in.mnemonic;
  const int64_t v = in.ops.empty() ? 0 : in.ops[0].value;
  auto set = [&](Counter c, int64_t n) { t.wait[static_cast<size_t>(c)] = int16_t(n & 0x3f); };
  if (m == "s_wait_loadcnt")
    set(Counter::Load, v);
  else if (m == "s_wait_storecnt")
    set(Counter::Store, v);
  else if (m == "s_wait_dscnt")
    set(Counter::Ds, v);
  else if (m == "s_wait_kmcnt")
    set(Counter::Km, v);
  else if (m == "s_wait_loadcnt_dscnt") { // simm16: loadcnt [13:8], dscnt [5:0]
    set(Counter::Load, v >> 8);
    set(Counter::Ds, v);
  } else if (m == "s_wait_storecnt_dscnt") {
    set(Counter::Store, v >> 8);
    set(Counter::Ds, v);
  } else if (m == "s_wait_idle") {
    for (size_t c = 0; c < kCounters; ++c)
      t.wait[c] = 0;
  }
}

} // namespace

const char* unit_name(Unit u) {
  static constexpr const char* names[] = {"VALU", "trans",  "WMMA",    "SALU", "SMEM", "VMEM",
                                          "LDS",  "branch", "barrier", "wait", "nop",  "end"};
  return u < Unit::Count ? names[static_cast<size_t>(u)] : "?";
}

InstrTiming classify_timing(const DecodedInstr& in, const MachineModel& m) {
  InstrTiming t;
  const std::string_view name = in.mnemonic;
  switch (in.cls) {
  case InstrClass::Wmma: {
    t.unit = Unit::Wmma;
    // 16-bit inputs take 16 cycles per 16x16 tile, 8-bit and 4-bit ones 8 (RDNA4.md table).
    const size_t shape = name.find("16x16x");
    const std::string_view types = shape == std::string_view::npos ? name : name.substr(shape);
    const bool wide = has(types, "_f16") || has(types, "_bf16");
    t.occupancy = wide ? 16 : 8;
    t.latency = static_cast<uint16_t>(t.occupancy + m.wmma_result_latency);
    add_operands(in, t);
    if (in.ops.size() >= 4 && in.ops[3].kind == OperandKind::Vgpr) {
      t.wmma_c_begin = in.ops[3].reg;
      t.wmma_c_end = static_cast<uint16_t>(in.ops[3].reg + in.ops[3].count);
    }
    return t;
  }
  case InstrClass::Valu:
    if (in.encoding == Encoding::Vopd) {
      t.unit = Unit::Valu;
      t.latency = static_cast<uint16_t>(m.valu_latency);
      for (const auto& half : in.vopd)
        for (size_t i = 0; i < half.ops.size(); ++i)
          add_regs(half.ops[i], i == 0 ? t.writes : t.reads);
      return t;
    }
    add_operands(in, t);
    if (is_trans(name)) {
      t.unit = Unit::Trans;
      t.occupancy = static_cast<uint16_t>(m.trans_occupancy);
      t.latency = static_cast<uint16_t>(m.trans_latency);
    } else if (has(name, "f64")) {
      t.unit = Unit::Valu;
      t.occupancy = static_cast<uint16_t>(m.f64_occupancy);
      t.latency = static_cast<uint16_t>(m.f64_latency);
    } else if (starts(name, "v_mul_lo_u32") || starts(name, "v_mul_hi_") ||
               starts(name, "v_mad_u64_u32") || starts(name, "v_mad_i64_i32") ||
               starts(name, "v_mul_lo_i32")) {
      t.unit = Unit::Valu;
      t.occupancy = static_cast<uint16_t>(m.mul32_occupancy);
      t.latency = static_cast<uint16_t>(m.mul32_latency);
    } else {
      t.unit = Unit::Valu;
      t.latency = static_cast<uint16_t>(m.valu_latency);
    }
    return t;
  case InstrClass::Salu:
    t.unit = name == "s_endpgm" ? Unit::End : Unit::Salu;
    t.latency = static_cast<uint16_t>(m.salu_latency);
    add_operands(in, t);
    return t;
  case InstrClass::Smem:
    t.unit = Unit::Smem;
    t.counter = Counter::Km;
    add_operands(in, t);
    return t;
  case InstrClass::Lds:
    t.unit = Unit::Lds;
    t.counter = Counter::Ds;
    add_operands(in, t);
    return t;
  case InstrClass::Vmem:
    t.unit = Unit::Vmem;
    add_operands(in, t);
    t.counter = t.writes.empty() && !has(name, "load") ? Counter::Store : Counter::Load;
    return t;
  case InstrClass::Branch:
    t.unit = Unit::Branch;
    if (has(name, "vccz") || has(name, "vccnz"))
      t.reads.push_back(kSgprBase + sreg::kVccLo);
    return t;
  case InstrClass::Wait:
    if (starts(name, "s_barrier")) {
      t.unit = Unit::Barrier;
      t.barrier_signal = has(name, "signal") || name == "s_barrier";
      t.barrier_wait = has(name, "wait") || name == "s_barrier";
      return t;
    }
    if (starts(name, "s_wait_") && name != "s_wait_alu" && name != "s_wait_event") {
      t.unit = Unit::Wait;
      set_wait(in, t);
      return t;
    }
    t.unit = Unit::Nop;
    if (name == "s_nop" && !in.ops.empty())
      t.occupancy = static_cast<uint16_t>(1 + (in.ops[0].value & 0xf));
    return t;
  default:
    t.unit = name == "s_endpgm" ? Unit::End : Unit::Nop;
    return t;
  }
}

} // namespace tw::emu::timing
