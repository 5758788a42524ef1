#pragma once
// One decoded gfx12 instruction. The code object's .text is decoded once with LLVM's
// AMDGPU MCDisassembler; each MCInst is printed with the MCInstPrinter and the canonical
// assembly text (the documented ISA syntax) is parsed into the structured form below,
// because the backend's named-operand tables are not installed.
#include <llvm/MC/MCInst.h>
#include <runtime/emu/valu/vop_plan.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw::emu {

struct WaveContext;
struct DecodedInstr;
namespace valu {
struct VopSpec; // runtime/emu/valu/vop.hpp
}
using Handler = void (*)(WaveContext&, const DecodedInstr&);

// Scalar operand numbering follows the hardware encoding, so a 64-bit pair such as
// vcc or exec is two consecutive entries of one scalar register file.
namespace sreg {
inline constexpr unsigned kNumSgprs = 106; // s0..s105
inline constexpr unsigned kVccLo = 106;
inline constexpr unsigned kVccHi = 107;
inline constexpr unsigned kTtmp0 = 108; // ttmp0..ttmp15 = 108..123
inline constexpr unsigned kNull = 124;  // reads 0, writes are dropped
inline constexpr unsigned kM0 = 125;
inline constexpr unsigned kExecLo = 126;
inline constexpr unsigned kExecHi = 127;
inline constexpr unsigned kFileSize = 128;
} // namespace sreg

enum class OperandKind : uint8_t {
  Sgpr,     // scalar register(s): `reg` in the numbering above, `count` dwords
  Vgpr,     // vector register(s) v[reg .. reg+count-1]
  Scc,      // scc as an explicit operand
  Imm,      // integer: inline constant (decimal syntax) or literal (hex syntax)
  FloatImm, // inline float constant (0.5, -4.0, 1/(2*pi)...): value in `fvalue`
  Special,  // src_shared_base, src_private_base, src_execz... : name in `text`
  Off,      // "off": absent address/saddr operand of VMEM instructions
  Text,     // anything else the printer writes (hwreg(...), swizzle(...), labels...)
};

struct Operand {
  OperandKind kind = OperandKind::Text;
  uint16_t reg = 0;     // first register (Sgpr / Vgpr)
  uint8_t count = 1;    // number of 32-bit registers (Sgpr / Vgpr)
  bool neg = false;     // "-x" source modifier
  bool abs = false;     // "|x|" source modifier
  bool literal = false; // Imm written as a 32-bit literal (hex), not an inline constant
  int64_t value = 0;    // Imm value as printed (inline ints are -16..64)
  double fvalue = 0;    // FloatImm value (1/(2*pi) is recognised and exact per type)
  bool inv_2pi = false; // FloatImm is the 1/(2*pi) inline constant
  std::string text;     // the operand's printed text (always set)

  bool is_reg() const { return kind == OperandKind::Sgpr || kind == OperandKind::Vgpr; }
  bool is_vgpr() const { return kind == OperandKind::Vgpr; }
  bool is_sgpr() const { return kind == OperandKind::Sgpr; }
};

// Encoding suffix stripped from the printed mnemonic.
enum class Encoding : uint8_t { Default, E32, E64, Dpp, E64Dpp, Sdwa, Vopd };

// Statistics class of an instruction (fixed at decode time).
enum class InstrClass : uint8_t { Salu, Smem, Valu, Vmem, Lds, Wmma, Branch, Wait, Other, Count };

// Modifier fields written after the operands. Absent fields keep their defaults; the
// raw "name:value" pairs are kept in `other` for anything not listed here.
struct Modifiers {
  bool clamp = false;
  std::array<uint8_t, 4> op_sel{};              // op_sel:[a,b,c(,d)]
  std::array<uint8_t, 4> op_sel_hi{1, 1, 1, 1}; // VOP3P default: high halves from high
  bool has_op_sel_hi = false;
  std::array<uint8_t, 3> neg_lo{};
  std::array<uint8_t, 3> neg_hi{};
  int index_key = 0;
  int omod_mul = 1, omod_div = 1; // mul:2 / mul:4 / div:2
  // DPP (16-lane rows)
  std::optional<std::array<uint8_t, 4>> quad_perm;
  std::optional<std::array<uint8_t, 8>> dpp8;
  std::string dpp_ctrl;   // "row_shl", "row_shr", "row_ror", "row_mirror",
  int dpp_ctrl_value = 0; // "row_half_mirror", "row_share", "row_xmask", ...
  int row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false, fi = false;
  // memory
  int64_t offset = 0;           // offset:N (signed)
  int offset0 = 0, offset1 = 0; // ds_*_2addr
  bool offen = false, idxen = false, lds = false, tfe = false;
  std::string th, scope; // th:TH_..., scope:SCOPE_...
  std::vector<std::pair<std::string, std::string>> other;
};

struct DecodedInstr {
  uint64_t pc = 0;         // virtual address of the instruction in the code object
  uint32_t size = 0;       // in bytes (4, 8 or 12 on gfx12, +4 with a literal)
  llvm::MCInst mc;         // as decoded
  std::string opcode_name; // MCInstrInfo::getName, e.g. GLOBAL_LOAD_DWORDX4_SADDR_gfx12
  std::string asm_text;    // the printed instruction, e.g. "v_add_f32_e32 v1, v2, v3"
  std::string mnemonic;    // without encoding suffix, e.g. "v_add_f32"; VOPD: "v_dual"
  Encoding encoding = Encoding::Default;
  InstrClass cls = InstrClass::Other;
  std::vector<Operand> ops; // in printed order (destinations first)
  Modifiers mods;
  // VOPD only: the two component instructions ("v_dual_mul_f32" is given as mnemonic
  // "v_mul_f32", "v_dual_fmac_f32" as "v_fmac_f32", ...), X first.
  std::vector<DecodedInstr> vopd;
  Handler handler = nullptr; // resolved from the HandlerTable when the program is prepared
  // The table-driven VALU spec of the mnemonic, bound with the handler (VOPD components use
  // it: no look-up by name when they run); null for other instructions.
  const valu::VopSpec* vop_spec = nullptr;
  // How the VALU engine reads and writes its operands, made with vop_spec (engine.cpp).
  valu::VopPlan vop_plan;
  // WMMA / SWMMAC: 2*M*N*K of the shape in the mnemonic (SWMMAC counted dense-equivalent).
  uint64_t wmma_ops = 0;

  // Immediate operands of the MCInst in order (SOPP targets, s_nop counts, ...).
  std::vector<int64_t> mc_imms() const;
  // Bounds-checked (inline: every handler reads its operands through it); throws naming the
  // instruction.
  const Operand& op(size_t i) const {
    if (i >= ops.size()) [[unlikely]]
      missing_operand(i);
    return ops[i];
  }
  [[noreturn]] void missing_operand(size_t i) const;
};

// The mnemonic decode_text gives an instruction whose printed registers leave the register
// files (e.g. v[255:256]): it has no handler and fails when executed, naming the rule.
inline constexpr std::string_view kRegisterOutOfRange = "<register out of range>";

// Decodes the whole .text section. `text_address` is the section's virtual address
// (pc values are absolute virtual addresses of the code object).
std::vector<DecodedInstr> decode_text(const uint8_t* bytes, size_t size, uint64_t text_address,
                                      std::string_view cpu = "gfx1201");

// Parses one printed instruction into mnemonic / encoding / operands / modifiers.
// Exposed for tests and for the trace printer.
void parse_asm_text(DecodedInstr& out);

} // namespace tw::emu
