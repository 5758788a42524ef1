#pragma once
// Attention block: logit softcap, s -> tanh(s / softcap) * softcap on the scaled score.
#include <dsl/dsl.hpp>

namespace tw::kernels::attention_blocks {

inline dsl::Float32 softcap_score(const dsl::Float32& s, const dsl::Float32& inv_cap,
                                  const dsl::Float32& cap) {
  return dsl::ops::tanh(s * inv_cap) * cap;
}

} // namespace tw::kernels::attention_blocks
