#pragma once
// Attention block: ALiBi, -slope_h * |i + sk - sq - j| added to the scaled score (bottom-right
// aligned; in varlen sk and sq are the sequence's own lengths). The slope is one scalar for
// every head or slopes[h].
#include <dsl/dsl.hpp>

namespace tw::kernels::attention_blocks {

inline dsl::Float32 alibi_term(const dsl::Float32& slope, const dsl::Int32& i, const dsl::Int32& j,
                               const dsl::Int32& sq, const dsl::Int32& sk) {
  using namespace tw::dsl;
  return -(slope * cast<f32>(abs(i + sk - sq - j)));
}

} // namespace tw::kernels::attention_blocks
