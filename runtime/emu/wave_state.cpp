// Operand access of WaveState: sources (registers, inline constants, literals) and
// destinations.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/wave_state.hpp>

#include <bit>
#include <cmath>

namespace tw::emu {
namespace {

// Inline float constants are 0, +-0.5, +-1, +-2, +-4 and 1/(2*pi): powers of two are exact
// in every format, so the bits are built from the exponent.
uint64_t pow2_bits(double v, int exp_bits, int mant_bits) {
  const uint64_t d = std::bit_cast<uint64_t>(v);
  const uint64_t sign = (d >> 63) ? 1ull << (exp_bits + mant_bits) : 0;
  if ((d << 1) == 0)
    return sign;
  const int e = static_cast<int>((d >> 52) & 0x7ff) - 1023; // |v| = 2^e
  const int bias = (1 << (exp_bits - 1)) - 1;
  return sign | (static_cast<uint64_t>(e + bias) << mant_bits);
}

} // namespace

uint64_t float_const_bits(const Operand& op, ImmType t) {
  switch (t) {
  case ImmType::F16:
  case ImmType::B16:
    return op.inv_2pi ? 0x3118 : pow2_bits(op.fvalue, 5, 10);
  case ImmType::BF16:
    return op.inv_2pi ? 0x3e22 : pow2_bits(op.fvalue, 8, 7);
  case ImmType::F64:
  case ImmType::B64:
    return op.inv_2pi ? 0x3fc45f306dc9c882ull : pow2_bits(op.fvalue, 11, 52);
  case ImmType::B32:
  case ImmType::F32:
    break;
  }
  return op.inv_2pi ? 0x3e22f983u : pow2_bits(op.fvalue, 8, 23);
}

static uint64_t special_value(const WaveState& w, const Operand& op) {
  const std::string& n = op.text;
  if (n == "src_shared_base")
    return kSharedApertureBase;
  if (n == "src_shared_limit")
    return kSharedApertureBase + 0xffffffffull;
  if (n == "src_private_base")
    return kPrivateApertureBase;
  if (n == "src_private_limit")
    return kPrivateApertureBase + 0xffffffffull;
  if (n == "src_execz")
    return w.exec() == 0;
  if (n == "src_vccz")
    return w.vcc() == 0;
  if (n == "src_scc")
    return w.scc;
  throw EmuError("emulator: unsupported special source operand '" + n + "'");
}

uint32_t WaveState::immediate32(const Operand& op, ImmType t) {
  return op.kind == OperandKind::FloatImm ? static_cast<uint32_t>(float_const_bits(op, t))
                                          : static_cast<uint32_t>(op.value);
}

uint64_t WaveState::immediate64(const Operand& op, ImmType t) {
  if (op.kind == OperandKind::FloatImm)
    return float_const_bits(op, t == ImmType::F32 || t == ImmType::B32 ? ImmType::F64 : t);
  // A 32-bit literal of a double operand is its high half.
  if (t == ImmType::F64 && op.literal && (static_cast<uint64_t>(op.value) >> 32) == 0)
    return static_cast<uint64_t>(op.value) << 32;
  return static_cast<uint64_t>(op.value);
}

uint32_t WaveState::read32_constant(const Operand& op, ImmType t) const {
  switch (op.kind) {
  case OperandKind::Vgpr:
  case OperandKind::Sgpr:
    return read32(op, 0, t); // not reached from read32
  case OperandKind::Scc:
    return scc;
  case OperandKind::Imm:
  case OperandKind::FloatImm:
    return immediate32(op, t);
  case OperandKind::Special: {
    uint64_t v = special_value(*this, op);
    return v > 0xffffffffull ? static_cast<uint32_t>(v >> 32) : static_cast<uint32_t>(v);
  }
  default:
    throw EmuError("emulator: operand '" + op.text + "' is not a readable source");
  }
}

uint64_t WaveState::read64(const Operand& op, int lane, ImmType t) const {
  switch (op.kind) {
  case OperandKind::Vgpr:
    return vgpr[op.reg][lane] | (static_cast<uint64_t>(vgpr[op.reg + 1][lane]) << 32);
  case OperandKind::Sgpr:
    if (op.reg == sreg::kNull)
      return 0;
    return sgpr[op.reg] |
           (op.reg + 1u < sreg::kFileSize ? static_cast<uint64_t>(sgpr[op.reg + 1]) << 32 : 0);
  case OperandKind::Scc:
    return scc;
  case OperandKind::Imm:
  case OperandKind::FloatImm:
    return immediate64(op, t);
  case OperandKind::Special:
    return special_value(*this, op);
  default:
    throw EmuError("emulator: operand '" + op.text + "' is not a readable source");
  }
}

uint32_t WaveState::read_dword(const Operand& op, int lane, int i) const {
  if (op.kind == OperandKind::Vgpr)
    return vgpr[op.reg + i][lane];
  if (op.kind == OperandKind::Sgpr)
    return op.reg == sreg::kNull ? 0 : sgpr[op.reg + i];
  return i == 0 ? read32(op, lane) : 0;
}

void WaveState::write32_other(const Operand& op, uint32_t v) {
  switch (op.kind) {
  case OperandKind::Scc:
    scc = v & 1u;
    return;
  default:
    throw EmuError("emulator: operand '" + op.text + "' is not a writable destination");
  }
}

void WaveState::write64(const Operand& op, int lane, uint64_t v) {
  write_dword(op, lane, 0, static_cast<uint32_t>(v));
  write_dword(op, lane, 1, static_cast<uint32_t>(v >> 32));
}

void WaveState::write_dword(const Operand& op, int lane, int i, uint32_t v) {
  if (op.kind == OperandKind::Vgpr) {
    vgpr[op.reg + i][lane] = v;
  } else if (op.kind == OperandKind::Sgpr) {
    if (op.reg != sreg::kNull && op.reg + i < static_cast<int>(sreg::kFileSize))
      sgpr[op.reg + i] = v;
  } else if (i == 0) {
    write32(op, lane, v);
  }
}

} // namespace tw::emu
