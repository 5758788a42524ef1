// v_wmma_* / v_swmmac_*: gathers the operand VGPR ranges of the wave, maps the printed
// modifiers onto tw::atoms::MmaModifiers and runs the atoms' reference semantics.
#include <runtime/emu/valu/vop.hpp>

#include <atoms/mma/reference.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

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

void matrix(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  const atoms::MmaInstrInfo* info = atoms::find_mma_instr(in.mnemonic);
  if (!info)
    c.unimplemented(in);
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

  std::vector<uint32_t> A(size_t(info->a_vgprs) * kWaveSize), B(size_t(info->b_vgprs) * kWaveSize),
      C(size_t(info->cd_vgprs) * kWaveSize), D(C.size()), index;
  gather(w, a, info->a_vgprs, info->a_type, A.data());
  gather(w, b, info->b_vgprs, info->b_type, B.data());
  if (info->sparse) {
    gather(w, d, info->cd_vgprs, info->cd_type, C.data()); // SWMMAC accumulates in place
    index.resize(kWaveSize);
    gather(w, in.op(3), 1, atoms::MmaElem::i32, index.data());
  } else {
    check(in.op(3), info->cd_vgprs, "C");
    gather(w, in.op(3), info->cd_vgprs, info->cd_type, C.data());
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
  try {
    atoms::mma_reference(*info, mods, A.data(), B.data(), C.data(),
                         info->sparse ? index.data() : nullptr, D.data());
  } catch (const std::exception& e) {
    c.fail(in, e.what());
  }
  for (int v = 0; v < info->cd_vgprs; ++v)
    for (int l = 0; l < kWaveSize; ++l)
      w.v(d.reg + v, l) = D[size_t(v * kWaveSize + l)];
}

} // namespace

void register_matrix_ops(HandlerTable& t) {
  for (const atoms::MmaInstrInfo& i : atoms::all_mma_instrs())
    t.add(std::string(i.mnemonic), &matrix);
}

} // namespace tw::emu::valu
