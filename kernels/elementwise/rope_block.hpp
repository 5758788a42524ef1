#pragma once
// The RoPE block shared by rope (map skeleton) and rms_norm_rope (row skeleton): where a
// token's position comes from, the (cos, sin) of a run of pairs, and the rotation.
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/elementwise/row_skeleton.hpp>
#include <kernels/elementwise/typed_access.hpp>
#include <runtime/kernel_args.hpp>

#include <optional>
#include <string>

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

// ---- host side: the RoPE arguments of a kernel that rotates p.head_dim dims per head ----

// Validates positions (i32 [tokens]), the cos / sin caches ([max_pos, p.head_dim / 2]) and base;
// returns max_pos (0 without caches).
int64_t validate_rope_params(const ArgChecker& check, const runtime::Device& device,
                             const RopeParams& p, int64_t tokens);
// The block's kernel arguments after the tensors, in order (rope_angles_args reads them).
void add_rope_args(runtime::KernelArgs& a, const RopeParams& p, int64_t max_pos, int64_t heads);
// Declares the block's arguments in the kernel; `heads` receives the heads argument.
RopeAngles rope_angles_args(dsl::KernelBuilder& kb, const RopeParams& p, dsl::Int64& heads);
// The part of a cache key the block's code depends on (pairing, position source, cache dtype).
std::string rope_key_part(const RopeParams& p);

// (y1, y2) = (x1 cos - x2 sin, x2 cos + x1 sin).
inline std::pair<dsl::Float32, dsl::Float32> rotate(const dsl::Float32& x1, const dsl::Float32& x2,
                                                    const dsl::Float32& c, const dsl::Float32& s) {
  return {x1 * c - x2 * s, x2 * c + x1 * s};
}

// ---- the pairs of a head held by a row slice (one column per pair) ----

// lo[k][j] / hi[k][j]: the two elements of pair (k, j) of the slice.
struct PairRuns {
  std::vector<Values> lo, hi;
  dsl::Float32 lo_at(int k, int j) const { return lo[std::size_t(k)][std::size_t(j)]; }
  dsl::Float32 hi_at(int k, int j) const { return hi[std::size_t(k)][std::size_t(j)]; }
};

// The `half` pairs starting at `base`: (base[i], base[i + half]) (neox) or (base[2i],
// base[2i + 1]) (interleaved), i the slice's columns.
// shared: the pairs are a tensor every row shares (RowSlice::load_shared).
PairRuns load_pairs(const RowSlice& slice, const AnyPtr& base, RopeStyle style,
                    const dsl::Int64& half, bool shared = false);
void store_pairs(const RowSlice& slice, const AnyPtr& base, RopeStyle style, const dsl::Int64& half,
                 const PairRuns& y);
// Every pair of `x` rotated by the angles of position `pos`.
PairRuns rotate_pairs(const RowSlice& slice, const RopeAngles& angles, const dsl::Int64& pos,
                      const PairRuns& x);

} // namespace tw::kernels::elementwise
