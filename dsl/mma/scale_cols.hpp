#pragma once
// scale_cols_unless_one(acc, s): every column of an accumulator multiplied by its entry of s
// (a per-column RegTensor, e.g. from reduce_cols), with the multiplies skipped by a branch in a
// wave where every lane's entries are exactly 1. x * 1 is x for every float (signed zeros,
// infinities and NaN included), so the result is the same either way; what changes is the cost:
// attention rescales O by alpha = exp2(m_old - m_new) after every KV block, and alpha is exactly
// 1 for a query whose running maximum did not move. The branch is divergent: lanes whose entries
// are all 1 keep their values, the others multiply, and a wave with no such lane jumps over the
// block (s_cbranch_execz).
//   o = scale_cols_unless_one(o, alpha);
#include <dsl/builder/control.hpp>
#include <dsl/mma/row_reduce.hpp>

namespace tw::dsl {

template <MmaAtomType Atom, int RR, int RC>
MmaFragment<Atom, MmaOperand::C, RR, RC>
scale_cols_unless_one(const MmaFragment<Atom, MmaOperand::C, RR, RC>& acc,
                      const RegTensor<f32, 1, RC>& s) {
  using Frag = MmaFragment<Atom, MmaOperand::C, RR, RC>;
  static_assert(std::same_as<typename Frag::elem_type, f32>,
                "scale_cols_unless_one: the accumulator must hold f32 values");
  Bool scales = s(0, 0) != Float32(1.0f);
  for (int j = 1; j < RC; ++j)
    scales = scales || s(0, j) != Float32(1.0f);
  return if_(
      scales,
      [&] {
        return broadcast_cols(acc, s, [](const Float32& x, const Float32& a) { return x * a; });
      },
      [&] { return acc; });
}

} // namespace tw::dsl
