// Decoding .text with LLVM's AMDGPU MCDisassembler and parsing the printed assembly.
#include <runtime/emu/decoded_instr.hpp>
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/wave_state.hpp>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUDisassembler();

namespace tw::emu {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

std::optional<int64_t> parse_int(std::string_view s) {
  bool neg = false;
  if (!s.empty() && s.front() == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (starts_with(s, "0x")) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty())
    return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size())
    return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

// "v[4:7]" / "s12" / "ttmp[6:7]" -> (first, count)
bool parse_reg_range(std::string_view s, std::string_view prefix, unsigned& first,
                     unsigned& count) {
  if (!starts_with(s, prefix))
    return false;
  s.remove_prefix(prefix.size());
  if (!s.empty() && s.front() == '[' && s.back() == ']') {
    auto colon = s.find(':');
    if (colon == std::string_view::npos)
      return false;
    auto a = parse_int(s.substr(1, colon - 1));
    auto b = parse_int(s.substr(colon + 1, s.size() - colon - 2));
    if (!a || !b || *b < *a)
      return false;
    first = static_cast<unsigned>(*a);
    count = static_cast<unsigned>(*b - *a + 1);
    return true;
  }
  auto a = parse_int(s);
  if (!a || starts_with(s, "0x") || starts_with(s, "-"))
    return false;
  first = static_cast<unsigned>(*a);
  count = 1;
  return true;
}

Operand parse_operand(std::string_view text) {
  Operand op;
  op.text = std::string(text);
  std::string_view s = text;
  if (s.size() > 1 && s.front() == '-' && !(s[1] >= '0' && s[1] <= '9')) {
    op.neg = true;
    s.remove_prefix(1);
  }
  if (s.size() > 2 && s.front() == '|' && s.back() == '|') {
    op.abs = true;
    s = s.substr(1, s.size() - 2);
  }
  unsigned first = 0, count = 0;
  auto set_sreg = [&](unsigned r, unsigned n) {
    op.kind = OperandKind::Sgpr;
    op.reg = static_cast<uint16_t>(r);
    op.count = static_cast<uint8_t>(n);
    return op;
  };
  if (parse_reg_range(s, "v", first, count)) {
    op.kind = OperandKind::Vgpr;
    op.reg = static_cast<uint16_t>(first);
    op.count = static_cast<uint8_t>(count);
    return op;
  }
  if (parse_reg_range(s, "ttmp", first, count))
    return set_sreg(sreg::kTtmp0 + first, count);
  if (parse_reg_range(s, "s", first, count))
    return set_sreg(first, count);
  if (s == "vcc_lo")
    return set_sreg(sreg::kVccLo, 1);
  if (s == "vcc_hi")
    return set_sreg(sreg::kVccHi, 1);
  if (s == "vcc")
    return set_sreg(sreg::kVccLo, 2);
  if (s == "exec_lo")
    return set_sreg(sreg::kExecLo, 1);
  if (s == "exec_hi")
    return set_sreg(sreg::kExecHi, 1);
  if (s == "exec")
    return set_sreg(sreg::kExecLo, 2);
  if (s == "m0")
    return set_sreg(sreg::kM0, 1);
  if (s == "null")
    return set_sreg(sreg::kNull, 1);
  if (s == "scc" || s == "src_scc") {
    op.kind = OperandKind::Scc;
    return op;
  }
  if (s == "off") {
    op.kind = OperandKind::Off;
    return op;
  }
  if (starts_with(s, "src_")) {
    op.kind = OperandKind::Special;
    return op;
  }
  // "lit(0x..)" / "lit64(0x..)": a value the printer marks as an explicit literal.
  for (std::string_view w : {"lit(", "lit64("}) {
    if (starts_with(s, w) && s.back() == ')') {
      if (auto v = parse_int(s.substr(w.size(), s.size() - w.size() - 1))) {
        op.kind = OperandKind::Imm;
        op.value = *v;
        op.literal = true;
        return op;
      }
    }
  }
  if (auto v = parse_int(s)) {
    op.kind = OperandKind::Imm;
    op.value = *v;
    op.literal = s.find("0x") != std::string_view::npos;
    return op;
  }
  if (!s.empty() && (s.front() == '-' || (s.front() >= '0' && s.front() <= '9')) &&
      s.find('.') != std::string_view::npos) {
    std::string tmp(s);
    char* end = nullptr;
    double d = std::strtod(tmp.c_str(), &end);
    if (end && *end == '\0') {
      op.kind = OperandKind::FloatImm;
      op.fvalue = d;
      op.inv_2pi = std::fabs(d - 0.15915494309189535) < 1e-6;
      return op;
    }
  }
  op.kind = OperandKind::Text;
  return op;
}

template <size_t N>
void parse_list(std::string_view v, std::array<uint8_t, N>& out) {
  // "[1,0,1]"
  if (v.size() < 2 || v.front() != '[')
    return;
  v = v.substr(1, v.size() - 2);
  size_t i = 0;
  while (!v.empty() && i < N) {
    auto comma = v.find(',');
    auto n = parse_int(v.substr(0, comma));
    out[i++] = static_cast<uint8_t>(n ? *n : 0);
    if (comma == std::string_view::npos)
      break;
    v.remove_prefix(comma + 1);
  }
}

bool is_modifier_flag(std::string_view t) {
  for (std::string_view f : {"clamp", "offen", "idxen", "lds", "tfe", "gds", "nv", "glc", "slc",
                             "dlc", "row_mirror", "row_half_mirror", "a16", "r128", "unorm"})
    if (t == f)
      return true;
  return false;
}

void apply_modifier(Modifiers& m, std::string_view name, std::string_view value) {
  auto num = [&] { return parse_int(value).value_or(0); };
  if (name == "op_sel")
    parse_list(value, m.op_sel);
  else if (name == "op_sel_hi") {
    m.op_sel_hi = {0, 0, 0, 0};
    parse_list(value, m.op_sel_hi);
    m.has_op_sel_hi = true;
  } else if (name == "neg_lo")
    parse_list(value, m.neg_lo);
  else if (name == "neg_hi")
    parse_list(value, m.neg_hi);
  else if (name == "index_key")
    m.index_key = static_cast<int>(num());
  else if (name == "mul")
    m.omod_mul = static_cast<int>(num());
  else if (name == "div")
    m.omod_div = static_cast<int>(num());
  else if (name == "quad_perm") {
    std::array<uint8_t, 4> q{};
    parse_list(value, q);
    m.quad_perm = q;
  } else if (name == "dpp8") {
    std::array<uint8_t, 8> q{};
    parse_list(value, q);
    m.dpp8 = q;
  } else if (starts_with(name, "row_") && name != "row_mask") {
    m.dpp_ctrl = std::string(name);
    m.dpp_ctrl_value = static_cast<int>(num());
  } else if (starts_with(name, "wave_")) {
    m.dpp_ctrl = std::string(name);
    m.dpp_ctrl_value = static_cast<int>(num());
  } else if (name == "row_mask")
    m.row_mask = static_cast<int>(num());
  else if (name == "bank_mask")
    m.bank_mask = static_cast<int>(num());
  else if (name == "bound_ctrl")
    m.bound_ctrl = num() != 0;
  else if (name == "fi")
    m.fi = num() != 0;
  else if (name == "offset") {
    if (auto v = parse_int(value))
      m.offset = *v;
    else
      m.other.emplace_back(name, value);
  } else if (name == "offset0")
    m.offset0 = static_cast<int>(num());
  else if (name == "offset1")
    m.offset1 = static_cast<int>(num());
  else if (name == "th")
    m.th = std::string(value);
  else if (name == "scope")
    m.scope = std::string(value);
  else
    m.other.emplace_back(name, value);
}

// Splits at top-level commas and spaces (not inside [], () or ||).
std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '(')
      ++depth;
    else if (c == ']' || c == ')')
      --depth;
    if (depth == 0 && (c == ',' || c == ' ' || c == '\t')) {
      if (i > start)
        out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

InstrClass classify(std::string_view m) {
  if (starts_with(m, "v_wmma") || starts_with(m, "v_swmmac"))
    return InstrClass::Wmma;
  if (starts_with(m, "v_"))
    return InstrClass::Valu;
  if (starts_with(m, "ds_"))
    return InstrClass::Lds;
  if (starts_with(m, "global_") || starts_with(m, "buffer_") || starts_with(m, "flat_") ||
      starts_with(m, "scratch_") || starts_with(m, "tbuffer_"))
    return InstrClass::Vmem;
  if (starts_with(m, "s_wait") || m == "s_nop" || m == "s_delay_alu" || m == "s_clause" ||
      starts_with(m, "s_barrier") || m == "s_sleep" || m == "s_waitcnt")
    return InstrClass::Wait;
  if (m == "s_branch" || starts_with(m, "s_cbranch") || m == "s_setpc_b64" || m == "s_swappc_b64" ||
      m == "s_call_b64")
    return InstrClass::Branch;
  if (starts_with(m, "s_load") || starts_with(m, "s_buffer_load") || starts_with(m, "s_prefetch") ||
      starts_with(m, "s_dcache"))
    return InstrClass::Smem;
  if (starts_with(m, "s_"))
    return InstrClass::Salu;
  return InstrClass::Other;
}

// "v_wmma_f32_16x16x16_f16" -> 2 * 16 * 16 * 16.
uint64_t wmma_shape_ops(std::string_view m) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] != '_' || i + 1 >= m.size() || m[i + 1] < '0' || m[i + 1] > '9')
      continue;
    uint64_t dims[3] = {0, 0, 0};
    size_t j = i + 1;
    int d = 0;
    for (; j < m.size() && d < 3; ++j) {
      if (m[j] >= '0' && m[j] <= '9')
        dims[d] = dims[d] * 10 + uint64_t(m[j] - '0');
      else if (m[j] == 'x')
        ++d;
      else
        break;
    }
    if (d == 2 && dims[0] && dims[1] && dims[2])
      return 2 * dims[0] * dims[1] * dims[2];
  }
  return 0;
}

void split_mnemonic(std::string_view printed, DecodedInstr& out) {
  struct Suffix {
    std::string_view text;
    Encoding enc;
  };
  static constexpr Suffix suffixes[] = {{"_e64_dpp", Encoding::E64Dpp},
                                        {"_e32", Encoding::E32},
                                        {"_e64", Encoding::E64},
                                        {"_dpp", Encoding::Dpp},
                                        {"_sdwa", Encoding::Sdwa}};
  out.encoding = Encoding::Default;
  for (const auto& s : suffixes) {
    if (printed.size() > s.text.size() &&
        printed.substr(printed.size() - s.text.size()) == s.text) {
      printed.remove_suffix(s.text.size());
      out.encoding = s.enc;
      break;
    }
  }
  out.mnemonic = std::string(printed);
}

void parse_one(std::string_view text, DecodedInstr& out) {
  text = trim(text);
  size_t sp = text.find_first_of(" \t");
  split_mnemonic(text.substr(0, sp), out);
  out.cls = classify(out.mnemonic);
  out.wmma_ops = out.cls == InstrClass::Wmma ? wmma_shape_ops(out.mnemonic) : 0;
  out.ops.clear();
  out.mods = Modifiers{};
  if (sp == std::string_view::npos)
    return;
  for (std::string_view tok : tokenize(text.substr(sp + 1))) {
    auto colon = tok.find(':');
    auto bracket = tok.find_first_of("[(");
    bool named = colon != std::string_view::npos && colon > 0 &&
                 (bracket == std::string_view::npos || bracket > colon) && tok.front() >= 'a' &&
                 tok.front() <= 'z';
    if (named)
      apply_modifier(out.mods, tok.substr(0, colon), tok.substr(colon + 1));
    else if (is_modifier_flag(tok)) {
      if (tok == "clamp")
        out.mods.clamp = true;
      else if (tok == "offen")
        out.mods.offen = true;
      else if (tok == "idxen")
        out.mods.idxen = true;
      else if (tok == "lds")
        out.mods.lds = true;
      else if (tok == "tfe")
        out.mods.tfe = true;
      else if (tok == "row_mirror" || tok == "row_half_mirror")
        out.mods.dpp_ctrl = std::string(tok);
      else
        out.mods.other.emplace_back(tok, "");
    } else
      out.ops.push_back(parse_operand(tok));
  }
}

struct LlvmMc {
  llvm::Triple triple{"amdgcn-amd-amdhsa"};
  const llvm::Target* target = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> disasm;
  std::unique_ptr<llvm::MCInstPrinter> printer;

  explicit LlvmMc(std::string_view cpu) {
    static std::once_flag once;
    std::call_once(once, [] {
      LLVMInitializeAMDGPUTargetInfo();
      LLVMInitializeAMDGPUTargetMC();
      LLVMInitializeAMDGPUDisassembler();
    });
    std::string err;
    target = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!target)
      throw EmuError("emulator: LLVM has no AMDGPU target: " + err);
    mri.reset(target->createMCRegInfo(triple));
    llvm::MCTargetOptions opts;
    mai.reset(target->createMCAsmInfo(*mri, triple, opts));
    sti.reset(target->createMCSubtargetInfo(triple, std::string(cpu), ""));
    mii.reset(target->createMCInstrInfo());
    if (!mri || !mai || !sti || !mii)
      throw EmuError("emulator: cannot create the AMDGPU MC objects for " + std::string(cpu));
    ctx = std::make_unique<llvm::MCContext>(triple, mai.get(), mri.get(), sti.get());
    disasm.reset(target->createMCDisassembler(*sti, *ctx));
    printer.reset(
        target->createMCInstPrinter(triple, mai->getAssemblerDialect(), *mai, *mii, *mri));
    if (!disasm || !printer)
      throw EmuError("emulator: cannot create the AMDGPU disassembler / printer");
  }
};

} // namespace

void parse_asm_text(DecodedInstr& out) {
  std::string_view text = trim(out.asm_text);
  auto sep = text.find(" :: ");
  if (sep == std::string_view::npos) {
    parse_one(text, out);
    return;
  }
  // VOPD: "v_dual_X ... :: v_dual_Y ..."
  out.vopd.assign(2, DecodedInstr{});
  for (int half = 0; half < 2; ++half) {
    std::string_view part = half == 0 ? text.substr(0, sep) : text.substr(sep + 4);
    DecodedInstr& d = out.vopd[half];
    d.pc = out.pc;
    d.size = out.size;
    d.asm_text = std::string(trim(part));
    parse_one(d.asm_text, d);
    if (starts_with(d.mnemonic, "v_dual_"))
      d.mnemonic = "v_" + d.mnemonic.substr(7);
    d.encoding = Encoding::Vopd;
  }
  out.mnemonic = "v_dual";
  out.encoding = Encoding::Vopd;
  out.cls = InstrClass::Valu;
  out.ops.clear();
  out.mods = Modifiers{};
}

std::vector<int64_t> DecodedInstr::mc_imms() const {
  std::vector<int64_t> r;
  for (const auto& o : mc)
    if (o.isImm())
      r.push_back(o.getImm());
  return r;
}

void DecodedInstr::missing_operand(size_t i) const {
  throw EmuError("emulator: instruction '" + asm_text + "' has no operand " + std::to_string(i));
}

namespace {
// Encodings LLVM 22's AMDGPU disassembler crashes on or decodes wrongly (fuzz findings); they
// are refused before LLVM sees them:
// - SOP1 opcodes 0x4e..0x52 (s_barrier_signal, s_barrier_signal_isfirst, s_get_barrier_state
//   and neighbours) with a literal source (src0 = 0xff): SEGV.
// - VOP2 v_fmamk_f16 / v_fmaak_f16 (opcodes 0x37 / 0x38) whose 32-bit K literal is 0x80..0xff:
//   LLVM reads K as an operand code, so 0x80..0xfe come out as inline constants (0x80 as 0,
//   0xf0 as 0.5) and 0xff crashes it. `at` holds at least 8 bytes (see decode_text).
bool crashes_llvm_decoder(const uint8_t* at) {
  uint32_t word, next;
  std::memcpy(&word, at, 4);
  std::memcpy(&next, at + 4, 4);
  const bool sop1 = (word >> 23) == 0x17du;
  const uint32_t op = (word >> 8) & 0xffu, src0 = word & 0xffu;
  if (sop1 && op >= 0x4eu && op <= 0x52u && src0 == 0xffu)
    return true;
  const uint32_t vop2_op = word >> 25; // bit 31 clear: VOP2, opcode in [30:25]
  return (vop2_op == 0x37u || vop2_op == 0x38u) && next >= 0x80u && next <= 0xffu;
}

// LLVM prints register ranges the hardware does not have (v_max_num_f64 v[255:256], found by
// the executor fuzz target); the handlers index the register files without checks, so such
// an instruction is refused here, once, and fails when executed.
bool registers_in_file(const DecodedInstr& d) {
  for (const Operand& op : d.ops)
    if ((op.kind == OperandKind::Vgpr && op.reg + op.count > unsigned(kMaxVgprs)) ||
        (op.kind == OperandKind::Sgpr && op.reg + op.count > sreg::kFileSize))
      return false;
  for (const DecodedInstr& half : d.vopd)
    if (!registers_in_file(half))
      return false;
  return true;
}
} // namespace

std::vector<DecodedInstr> decode_text(const uint8_t* bytes, size_t size, uint64_t text_address,
                                      std::string_view cpu) {
  // The MC objects are built once per cpu and shared; decoding is serialized because the
  // disassembler and printer keep state.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<LlvmMc>, std::less<>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(cpu);
  if (it == cache.end())
    it = cache.emplace(std::string(cpu), std::make_unique<LlvmMc>(cpu)).first;
  LlvmMc& mc = *it->second;
  std::vector<DecodedInstr> out;
  size_t off = 0;
  // The last instructions are decoded from a zero-padded copy: LLVM 22's printer crashes on
  // the operand its decoder makes for a literal cut off by the end of the buffer (found by
  // fuzz_code_object). An instruction that needs bytes past .text is refused below.
  constexpr size_t kMaxInstrBytes = 16;
  uint8_t tail[2 * kMaxInstrBytes] = {};
  while (off < size) {
    DecodedInstr d;
    d.pc = text_address + off;
    uint64_t len = 0;
    const size_t left = size - off;
    const uint8_t* at = bytes + off;
    size_t window = left;
    if (left < kMaxInstrBytes) {
      std::memset(tail, 0, sizeof(tail));
      std::memcpy(tail, at, left);
      at = tail;
      window = sizeof(tail);
    }
    const auto status =
        crashes_llvm_decoder(at) // `at` has at least 16 bytes (zero-padded at the end)
            ? llvm::MCDisassembler::Fail
            : mc.disasm->getInstruction(d.mc, len, llvm::ArrayRef<uint8_t>(at, window), d.pc,
                                        llvm::nulls());
    if (status != llvm::MCDisassembler::Success || len == 0 || len > left) {
      d.size = 4;
      d.asm_text = "<undecodable>";
      d.mnemonic = "<undecodable>";
      out.push_back(std::move(d));
      off += 4;
      continue;
    }
    d.size = static_cast<uint32_t>(len);
    d.opcode_name = std::string(mc.mii->getName(d.mc.getOpcode()));
    llvm::raw_string_ostream os(d.asm_text);
    mc.printer->printInst(&d.mc, d.pc, "", *mc.sti, os);
    os.flush();
    d.asm_text = std::string(trim(d.asm_text));
    parse_asm_text(d);
    if (!registers_in_file(d)) {
      d.mnemonic = std::string(kRegisterOutOfRange);
      d.ops.clear();
      d.vopd.clear();
    }
    out.push_back(std::move(d));
    off += len;
  }
  return out;
}

} // namespace tw::emu
