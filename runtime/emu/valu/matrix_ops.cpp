// v_wmma_* / v_swmmac_*: maps the printed modifiers onto tw::atoms::MmaModifiers and runs
// mma_fast (or, in the reference mode, the atoms' reference semantics) on the operand VGPR
// ranges of the wave. One handler per instruction of the gfx12 table, so executing one needs
// no look-up by name.
#include <runtime/emu/valu/mma_engine.hpp>
#include <runtime/emu/valu/vop.hpp>

#include <atoms/mma/gfx12_instrs.hpp>
#include <atoms/mma/reference.hpp>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace tw::emu::valu {
namespace {

// X[v * 32 + lane] of an operand of `count` VGPRs. An inline constant (LLVM folds a zero
// accumulator into one) applies to every element: 16-bit elements get the 16-bit constant
// in both halves.
void gather(const WaveState& w, const Operand& op, int count, atoms::MmaElem elem, uint32_t* x) {
  if (op.is_vgpr()) {
    for (int v = 0; v < count; ++v)
      for (int l = 0; l < kWaveSize; ++l)
        x[v * kWaveSize + l] = w.v(op.reg + v, l);
    return;
  }
  uint32_t k;
  if (elem == atoms::MmaElem::f16 || elem == atoms::MmaElem::bf16) {
    const uint32_t h =
        w.read32(op, 0, elem == atoms::MmaElem::f16 ? ImmType::F16 : ImmType::BF16) & 0xffffu;
    k = h | (h << 16);
  } else {
    k = w.read32(op, 0, elem == atoms::MmaElem::f32 ? ImmType::F32 : ImmType::B32);
  }
  for (int i = 0; i < count * kWaveSize; ++i)
    x[i] = k;
}

// The 32 x count values of a VGPR range, in place in the register file (rows of 32 lanes are
// contiguous), or `scratch` filled by gather for an inline constant.
const uint32_t* registers(const WaveState& w, const Operand& op, int count, atoms::MmaElem elem,
                          uint32_t* scratch) {
  if (op.is_vgpr() && op.reg + count <= kMaxVgprs)
    return w.vgpr[op.reg].data();
  gather(w, op, count, elem, scratch);
  return scratch;
}

void matrix(WaveContext& c, const DecodedInstr& in, const atoms::MmaInstrInfo* info) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  if (w.exec() == 0)
    return;
  if (w.exec() != 0xffffffffu)
    c.fail(
        in, "WMMA/SWMMAC needs EXEC = all 32 lanes (EXEC is 0x" + [&] {
          char b[16];
          std::snprintf(b, sizeof b, "%08x", w.exec());
          return std::string(b);
        }() + ")");
  if (in.ops.size() != 4)
    c.fail(in, "expected 4 operands (D, A, B, " + std::string(info->sparse ? "index" : "C") + ")");
  const Operand &d = in.op(0), &a = in.op(1), &b = in.op(2);
  auto check = [&](const Operand& op, int want, const char* what) {
    if (op.is_vgpr() && op.count != want)
      c.fail(in, std::string(what) + " has " + std::to_string(op.count) + " VGPRs, " +
                     std::string(info->mnemonic) + " takes " + std::to_string(want));
  };
  check(d, info->cd_vgprs, "D");
  check(a, info->a_vgprs, "A");
  check(b, info->b_vgprs, "B");
  if (!d.is_vgpr() || !a.is_vgpr() || !b.is_vgpr())
    c.fail(in, "D, A and B must be VGPR ranges");

  if (d.reg + info->cd_vgprs > kMaxVgprs)
    c.fail(in, "D runs past v255");
  std::array<uint32_t, 8 * kWaveSize> a_scratch, b_scratch, c_scratch, index_scratch;
  const uint32_t* A = registers(w, a, info->a_vgprs, info->a_type, a_scratch.data());
  const uint32_t* B = registers(w, b, info->b_vgprs, info->b_type, b_scratch.data());
  const uint32_t *C, *index = nullptr;
  if (info->sparse) {
    C = registers(w, d, info->cd_vgprs, info->cd_type, c_scratch.data()); // in place
    index = registers(w, in.op(3), 1, atoms::MmaElem::i32, index_scratch.data());
  } else {
    check(in.op(3), info->cd_vgprs, "C");
    C = registers(w, in.op(3), info->cd_vgprs, info->cd_type, c_scratch.data());
  }

  atoms::MmaModifiers mods;
  const bool integer = info->a_type == atoms::MmaElem::iu8 || info->a_type == atoms::MmaElem::iu4;
  if (integer) {
    mods.a_signed = in.mods.neg_lo[0];
    mods.b_signed = in.mods.neg_lo[1];
  } else {
    for (int i = 0; i < 3; ++i) {
      mods.neg_lo |= unsigned(in.mods.neg_lo[i] != 0) << i;
      mods.neg_hi |= unsigned(in.mods.neg_hi[i] != 0) << i;
    }
  }
  mods.clamp = in.mods.clamp;
  mods.index_key = unsigned(in.mods.index_key);
  // Both write D only after reading every source, so D may overlap A, B or C.
  uint32_t* D = w.vgpr[d.reg].data();
  try {
    if (mma_mode() == MmaMode::fast)
      mma_fast(*info, mods, A, B, C, index, D);
    else
      atoms::mma_reference(*info, mods, A, B, C, index, D);
  } catch (const std::exception& e) {
    c.fail(in, e.what());
  }
}

template <size_t I>
void matrix_instr(WaveContext& c, const DecodedInstr& in) {
  matrix(c, in, &atoms::kGfx12MmaInstrs[I]);
}

template <size_t... I>
void register_all(HandlerTable& t, std::index_sequence<I...>) {
  (t.add(std::string(atoms::kGfx12MmaInstrs[I].mnemonic), &matrix_instr<I>), ...);
}

} // namespace

void register_matrix_ops(HandlerTable& t) {
  register_all(t, std::make_index_sequence<atoms::kGfx12MmaInstrs.size()>{});
}

} // namespace tw::emu::valu
