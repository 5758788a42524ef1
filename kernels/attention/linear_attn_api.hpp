#pragma once
// Linear attention (issue 11): the causal prefix recurrence, computed in chunks of 16 positions
// (the intra-chunk products on WMMA, the running state between chunks in registers).
// docs/kernels.md ("Linear attention") is the contract. For batch b, query head h (kv head
// h / (heads_q / heads_kv)) and position i:
//   num_i = sum_{j <= i} (scale * q_i . k_j) * lambda^(i - j) * v_j
//   o_i   = num_i                                  (normalize = false)
//   o_i   = num_i / (den_i + eps), den_i = sum_{j <= i} (scale * q_i . k_j) * lambda^(i - j)
// lambda = decay[h] (a per-head decay in (0, 1]; values outside give undefined results) or 1
// without decay. Computed with f32 accumulation; the state and the decayed values enter the
// WMMA rounded to the input dtype (bf16 / f16), as in chunked linear attention kernels.
#include <kernels/common/arg_check.hpp>

#include <optional>

namespace tw::kernels {

struct LinearAttnArgs {
  TensorView q{};   // [B, S, heads_q, D], bf16 / f16, last dim contiguous; D 1 .. 256
  TensorView k{};   // [B, S, heads_kv, D], q's dtype (heads_kv divides heads_q)
  TensorView v{};   // [B, S, heads_kv, Dv], q's dtype; Dv 1 .. 256
  TensorView out{}; // [B, S, heads_q, Dv], bf16 / f16 / f32
  std::optional<TensorView> decay{}; // f32 [heads_q]: lambda per head
  std::optional<float> scale{};      // default 1 / sqrt(D)
  bool normalize = false;
  float eps = 1e-6f;
  // Varlen: packed sequences q [T, heads_q, D], k [T, heads_kv, D], v [T, heads_kv, Dv], out
  // [T, heads_q, Dv]; sequence b is tokens cu_seqlens[b] .. cu_seqlens[b + 1] - 1 (int32
  // [B + 1], starting at 0, non-decreasing, ending at most at T; tokens past the last
  // sequence are not written). The recurrence restarts at each sequence's first token.
  std::optional<TensorView> cu_seqlens{};
};
void linear_attn(runtime::Device& device, const LinearAttnArgs& args);

} // namespace tw::kernels
