#pragma once
// The RoPE block shared by rope (map skeleton) and rms_norm_rope (row skeleton): where a
// token's position comes from, the (cos, sin) of a run of pairs, and the rotation.
#include <kernels/elementwise/typed_access.hpp>

#include <optional>

namespace tw::kernels::elementwise {

struct RopeAngles {
  std::optional<AnyPtr> positions; // i32 [tokens]; else offset + token
  dsl::Int64 position_offset;
  std::optional<AnyPtr> cos_cache, sin_cache; // [max_pos, half]; else computed
  dsl::Int64 max_pos;
  dsl::Float32 freq_exponent; // -2 * log2(base) / head_dim: inv_freq(i) = exp2(i * this)
  dsl::Int64 half;            // head_dim / 2

  // The position of `token` as an index (clamped to the cache rows when there is a cache).
  dsl::Int64 position(const dsl::Int64& token) const;
  // cos and sin of pairs first .. first + count - 1 (masked past `half`) at position `pos`.
  std::pair<Values, Values> cos_sin(const dsl::Int64& pos, const dsl::Int64& first,
                                    int count) const;
};

// (y1, y2) = (x1 cos - x2 sin, x2 cos + x1 sin).
inline std::pair<dsl::Float32, dsl::Float32> rotate(const dsl::Float32& x1, const dsl::Float32& x2,
                                                    const dsl::Float32& c, const dsl::Float32& s) {
  return {x1 * c - x2 * s, x2 * c + x1 * s};
}

} // namespace tw::kernels::elementwise
