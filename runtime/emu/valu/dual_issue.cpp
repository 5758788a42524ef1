// VOPD (v_dual_*): two VALU operations issued together. Both read all their sources before
// either writes, so X's destination never feeds Y in the same instruction.
#include <runtime/emu/valu/vop.hpp>

#include <string>

namespace tw::emu::valu {
namespace {

void dual(WaveContext& c, const DecodedInstr& in) {
  if (in.vopd.size() != 2)
    c.fail(in, "VOPD instruction without its two component operations");
  Staged x, y;
  // Bound at load; an instruction built by hand (tests) is looked up by name.
  const VopSpec* sx = in.vopd[0].vop_spec ? in.vopd[0].vop_spec : find_spec(in.vopd[0].mnemonic);
  const VopSpec* sy = in.vopd[1].vop_spec ? in.vopd[1].vop_spec : find_spec(in.vopd[1].mnemonic);
  if (!sx || !sy)
    c.fail(in, "unimplemented VOPD component '" + (sx ? in.vopd[1].mnemonic : in.vopd[0].mnemonic) +
                   "'");
  compute(c, in.vopd[0], *sx, x);
  compute(c, in.vopd[1], *sy, y);
  commit(c, x);
  commit(c, y);
}

} // namespace

void register_dual_issue(HandlerTable& t) {
  t.add("v_dual", &dual);
}

} // namespace tw::emu::valu
