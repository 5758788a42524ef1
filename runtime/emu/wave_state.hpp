#pragma once
// Architectural state of one wave32 wave and the per-lane operand access helpers every
// handler uses (sources with inline constants / literals / SGPR broadcast, destinations
// under EXEC).
#include <runtime/emu/decoded_instr.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tw::emu {

inline constexpr int kWaveSize = 32;
inline constexpr int kMaxVgprs = 256;

// Flat-address apertures (the high 32 bits of a 64-bit flat address). Device global
// allocations are ordinary host addresses, which never reach these values.
inline constexpr uint64_t kSharedApertureBase = 0x0001'0000'0000'0000ull;
inline constexpr uint64_t kPrivateApertureBase = 0x0002'0000'0000'0000ull;

// How an inline float constant (or a 32-bit literal in a 64-bit operand) is expanded:
// the handler says which operand type it reads.
enum class ImmType : uint8_t { B32, F32, F16, BF16, B16, B64, F64 };

struct WaveState {
  std::array<uint32_t, sreg::kFileSize> sgpr{}; // see sreg:: for the numbering
  bool scc = false;
  uint64_t pc = 0;   // virtual address of the next instruction to execute
  uint32_t mode = 0; // MODE register: [3:0] round, [7:4] denorm (from the descriptor)
  uint32_t trapsts = 0;
  bool ended = false; // executed s_endpgm
  int wave_id = 0;    // index of the wave in its workgroup
  std::vector<std::array<uint32_t, kWaveSize>> vgpr =
      std::vector<std::array<uint32_t, kWaveSize>>(kMaxVgprs);

  // The state of a new wave (every register 0), keeping the VGPR file's allocation: the
  // executor starts thousands of waves per launch.
  void reset() {
    sgpr.fill(0);
    scc = false;
    pc = 0;
    mode = 0;
    trapsts = 0;
    ended = false;
    wave_id = 0;
    if (vgpr.size() != size_t(kMaxVgprs))
      vgpr.assign(kMaxVgprs, {});
    else
      std::memset(vgpr.data(), 0, sizeof(vgpr[0]) * kMaxVgprs);
  }

  uint32_t exec() const { return sgpr[sreg::kExecLo]; }
  void set_exec(uint32_t m) {
    sgpr[sreg::kExecLo] = m;
    sgpr[sreg::kExecHi] = 0;
  }
  uint32_t vcc() const { return sgpr[sreg::kVccLo]; }
  void set_vcc(uint32_t m) { sgpr[sreg::kVccLo] = m; }
  uint32_t m0() const { return sgpr[sreg::kM0]; }
  bool lane_active(int lane) const { return (exec() >> lane) & 1u; }

  // MODE fields (gfx12): round mode f32 [1:0], f16/f64 [3:2]; denorm f32 [5:4], f16/f64 [7:6]
  // (denorm value 3 = keep input and output denormals, 0 = flush both).
  unsigned round_f32() const { return mode & 3u; }
  unsigned round_f16_f64() const { return (mode >> 2) & 3u; }
  unsigned denorm_f32() const { return (mode >> 4) & 3u; }
  unsigned denorm_f16_f64() const { return (mode >> 6) & 3u; }

  // ---- sources -------------------------------------------------------------------
  // 32-bit value of a source operand for `lane` (SGPRs and constants are broadcast).
  // Source modifiers (neg/abs) are NOT applied: they depend on the operand type.
  uint32_t read32(const Operand& op, int lane, ImmType t = ImmType::B32) const {
    // Registers are the hot path (inline); null reads 0.
    if (op.kind == OperandKind::Vgpr)
      return vgpr[op.reg][lane];
    if (op.kind == OperandKind::Sgpr)
      return op.reg == sreg::kNull ? 0 : sgpr[op.reg];
    if (op.kind == OperandKind::Imm)
      return static_cast<uint32_t>(op.value); // = immediate32
    return read32_constant(op, t);
  }
  // read32 of a non-register operand (constants, scc, src_* specials).
  uint32_t read32_constant(const Operand& op, ImmType t) const;
  // 64-bit value (register pairs, 64-bit constants; F64 literals fill the high half).
  uint64_t read64(const Operand& op, int lane, ImmType t = ImmType::B64) const;
  // What read32 / read64 give for an immediate (OperandKind::Imm or FloatImm): the same for
  // every wave, so it can be resolved once when a program is bound.
  static uint32_t immediate32(const Operand& op, ImmType t);
  static uint64_t immediate64(const Operand& op, ImmType t);
  // Dword `i` of a multi-register operand (v[4:7] i=2 -> v6).
  uint32_t read_dword(const Operand& op, int lane, int i) const;
  // Scalar value (lane independent); throws std::logic_error for a VGPR operand.
  uint32_t sread32(const Operand& op, ImmType t = ImmType::B32) const { return read32(op, 0, t); }
  uint64_t sread64(const Operand& op, ImmType t = ImmType::B64) const { return read64(op, 0, t); }

  // ---- destinations --------------------------------------------------------------
  // VGPR destination: writes `lane` (callers test EXEC themselves: see for_each_active).
  // SGPR destination: writes the register (lane ignored). null: dropped.
  void write32(const Operand& op, int lane, uint32_t v) {
    // Registers are the hot path (inline); null drops the value.
    if (op.kind == OperandKind::Vgpr) {
      vgpr[op.reg][lane] = v;
    } else if (op.kind == OperandKind::Sgpr) {
      if (op.reg != sreg::kNull)
        sgpr[op.reg] = v;
    } else {
      write32_other(op, v);
    }
  }
  void write64(const Operand& op, int lane, uint64_t v);
  void write_dword(const Operand& op, int lane, int i, uint32_t v);
  // write32 to an operand that is not a register (scc; anything else throws).
  void write32_other(const Operand& op, uint32_t v);
  void swrite32(const Operand& op, uint32_t v) { write32(op, 0, v); }
  void swrite64(const Operand& op, uint64_t v) { write64(op, 0, v); }

  uint32_t& v(unsigned reg, int lane) { return vgpr[reg][lane]; }
  uint32_t v(unsigned reg, int lane) const { return vgpr[reg][lane]; }
  uint32_t& s(unsigned reg) { return sgpr[reg]; }

  // Calls f(lane) for every lane set in EXEC, in increasing lane order.
  template <class F>
  void for_each_active(F&& f) const {
    for_each_lane_of(exec(), f);
  }
  // Calls f(lane) for every lane set in `mask`, in increasing lane order (a plain counted loop
  // when all 32 are set, which the compiler can unroll or vectorise).
  template <class F>
  static void for_each_lane_of(uint32_t mask, F&& f) {
    if (mask == ~0u) {
      for (int lane = 0; lane < kWaveSize; ++lane)
        f(lane);
    } else {
      for (uint32_t m = mask; m; m &= m - 1)
        f(std::countr_zero(m));
    }
  }
};

// Bits of an inline float constant for an operand type (f32 0.5 -> 0x3f000000,
// f16 -> 0x3800, f64 -> 0x3fe0000000000000); 1/(2*pi) uses the ISA's exact values.
uint64_t float_const_bits(const Operand& op, ImmType t);

inline float as_f32(uint32_t b) {
  return std::bit_cast<float>(b);
}
inline uint32_t f32_bits(float f) {
  return std::bit_cast<uint32_t>(f);
}
inline double as_f64(uint64_t b) {
  return std::bit_cast<double>(b);
}
inline uint64_t f64_bits(double d) {
  return std::bit_cast<uint64_t>(d);
}

} // namespace tw::emu
