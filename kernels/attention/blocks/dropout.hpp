#pragma once
// Attention block: dropout of the normalized probabilities (attn_shared.md). Element (b, h, i,
// j) has idx = ((b * Hq + h) * SQ + i) * SK + j (SQ, SK: Sq, Sk or the varlen maxima); its
// random word is word idx % 4 of Philox4x32-10(counter (idx / 4, offset), key seed); it is kept
// iff that word >= uint32(floor(p * 2^32)), and kept values are scaled by 1 / (1 - p). Only P
// of P V is dropped: m, l and lse are not affected.
#include <dsl/dsl.hpp>
#include <dsl/ops/philox.hpp>

namespace tw::kernels::attention_blocks {

struct Dropout {
  dsl::Int64 row_base; // (b * Hq + h) * SQ
  dsl::Int64 sk;       // SK
  dsl::UInt64 seed, offset;
  dsl::UInt32 threshold;
  dsl::Float32 inv_keep; // 1 / (1 - p)

  // p after dropout for query row i, key j (inside the sequence).
  dsl::Float32 apply(const dsl::Float32& p, const dsl::Int32& i, const dsl::Int32& j) const {
    using namespace tw::dsl;
    const Int64 idx = (row_base + cast<i64>(i)) * sk + cast<i64>(j);
    const std::array<UInt32, 4> r =
        philox4x32_10(philox_counter(cast<u64>(idx >> 2), offset), philox_key(seed));
    const Int64 w = idx & Int64(3);
    const UInt32 word =
        select(w == Int64(0), r[0], select(w == Int64(1), r[1], select(w == Int64(2), r[2], r[3])));
    return select(dropout_keep(word, threshold), p * inv_keep, Float32(0.0f));
  }
};

} // namespace tw::kernels::attention_blocks
