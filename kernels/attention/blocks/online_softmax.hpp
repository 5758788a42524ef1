#pragma once
// Attention block: one step of the online softmax in the log2 domain, for an S^T accumulator
// whose columns are queries. The scores enter as raw products s and reach the log2 domain by a
// scale c > 0 (sm_scale log2(e) times the descales; 1 when they are already there):
//   m' = max(m, c max_j s_j)   p_j = exp2(c s_j - m')   alpha = exp2(m - m')   l' = alpha l + sum p
// c > 0 keeps the maximum where it was (rounding is monotonic: c max_j s_j is max_j of c s_j
// rounded), so the block's maximum costs one multiply per query and each p one fma
// (c s_j - m' in one rounding), not a multiply per score and a subtraction.
// A query that has seen no key yet keeps m = -inf; exp2 then works from 0 so that masked
// scores (-inf) give p = 0 and alpha = 0 instead of NaN.
//
// Lazy rescaling (slack > 0, in log2 units): the reference m moves only when the block's
// maximum exceeds it by more than `slack`,
//   m' = c max_j s_j  if c max_j s_j > m + slack,  else m,
// so that m' is within `slack` below the true running maximum (p <= 2^slack, l and O stay far
// from f32 overflow) and alpha is exactly 1, i.e. O's rescale is skipped
// (scale_cols_unless_one), for every block whose maximum does not jump by more than `slack`.
// out = O / l and lse = m + log2(l) do not depend on which reference m is used. slack = 0 is
// the exact running maximum (int8 attention's P rule needs it: P <= 1).
#include <dsl/dsl.hpp>

#include <limits>

namespace tw::kernels::attention_blocks {

template <class Frag, int RN>
struct SoftmaxStep {
  Frag p;                                // exp2(c s - m'), f32
  dsl::RegTensor<dsl::f32, 1, RN> alpha; // rescale of the previous O and l
  dsl::RegTensor<dsl::f32, 1, RN> m, l;
};

template <class Frag, int RN>
SoftmaxStep<Frag, RN>
online_softmax_step(const Frag& s, const dsl::Float32& c, const dsl::RegTensor<dsl::f32, 1, RN>& m,
                    const dsl::RegTensor<dsl::f32, 1, RN>& l, float slack = 0.0f) {
  using namespace tw::dsl;
  const Float32 neg_inf(-std::numeric_limits<float>::infinity());
  const auto block_max = reduce_cols(s, Reduce::max);
  SoftmaxStep<Frag, RN> out;
  RegTensor<f32, 1, RN> neg_base;
  for (int j = 0; j < RN; ++j) {
    const Float32 cand = block_max(0, j) * c;
    // (a NaN candidate leaves m where it was in both forms: max ignores NaN, and the compare
    // is false)
    out.m(0, j) =
        slack > 0.0f ? select(cand > m(0, j) + Float32(slack), cand, m(0, j)) : max(m(0, j), cand);
    const Float32 base = select(out.m(0, j) == neg_inf, Float32(0.0f), out.m(0, j));
    neg_base(0, j) = -base;
    out.alpha(0, j) = exp2(m(0, j) + neg_base(0, j));
  }
  out.p = broadcast_cols(s, neg_base,
                         [&](const Float32& v, const Float32& nb) { return exp2(fma(v, c, nb)); });
  const auto block_sum = reduce_cols(out.p, Reduce::sum);
  for (int j = 0; j < RN; ++j)
    out.l(0, j) = fma(out.alpha(0, j), l(0, j), block_sum(0, j));
  return out;
}

} // namespace tw::kernels::attention_blocks
