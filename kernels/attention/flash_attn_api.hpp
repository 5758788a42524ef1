#pragma once
// Host entry point of flash attention forward (dense and varlen prefill). The contract is
// shared/KERNELS.md "Attention" and docs/kernels.md "Attention":
//   O = softmax(Q K^T * sm_scale + bias) V   (per batch b, query head h, kv head h / (Hq / Hkv))
// with the masks, position terms, softcap and dropout below. flash_attn validates every
// argument and every combination (ArgumentError naming the argument and the rule) before it
// touches the device.
//
// Layouts (strides in elements, the head dimension contiguous):
//   dense:  q [B, Sq, Hq, D], k [B, Sk, Hkv, D], v [B, Sk, Hkv, Dv], out [B, Sq, Hq, Dv]
//   varlen: q [Tq, Hq, D], k [Tk, Hkv, D], v [Tk, Hkv, Dv], out [Tq, Hq, Dv] with
//           cu_seqlens_q [B + 1], cu_seqlens_k [B + 1] (int32, non-decreasing, starting at 0)
//   lse (optional output): f32 [B, Hq, Sq] dense, [Hq, Tq] varlen; natural-log log-sum-exp
//           of the scaled, biased, softcapped scores of each query row (-inf for a row that
//           sees no key).
#include <kernels/common/arg_check.hpp>
#include <kernels/common/tensor.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tw::kernels {

// How `bias` applies: an additive f32 / f16 / bf16 bias added to the scaled scores, or a
// boolean mask (uint8 / int8: nonzero = keep, zero = -inf). Shared [Sq, Sk] or per head
// [Hq, Sq, Sk] (dense only; per-head masks stay top-left aligned).
enum class AttnBiasKind { none, additive, bool_mask };

struct FlashAttnArgs {
  TensorView q{};   // bf16 | f16 | e4m3 | e5m2 | int8
  TensorView k{};   // dtype of q
  TensorView v{};   // dtype of q
  TensorView out{}; // bf16 | f16
  std::optional<TensorView> lse{};

  float sm_scale = 0.0f; // 0: 1 / sqrt(D)
  bool causal = false;   // bottom-right aligned: row i sees keys j <= i + Sk - Sq
  // Sliding window, flash-attn's window_size: key j visible to row i iff
  // o - left <= j <= o + right with o = i + Sk - Sq; -1 = unbounded on that side.
  // causal is window_right = 0.
  int64_t window_left = -1, window_right = -1;

  std::optional<TensorView> bias{}; // see AttnBiasKind
  AttnBiasKind bias_kind = AttnBiasKind::none;
  // ALiBi: -slope_h * |i + Sk - Sq - j| added to the scaled scores. Either one scalar slope
  // for every head or f32 slopes [Hq].
  std::optional<float> alibi_slope{};
  std::optional<TensorView> alibi_slopes{};
  float softcap = 0.0f; // > 0: s -> tanh(s / softcap) * softcap on the scaled score

  float dropout_p = 0.0f; // 0: no dropout (the same code as no dropout)
  uint64_t dropout_seed = 0, dropout_offset = 0;

  // fp8 / int8 inputs: the real values are code * descale (f32 scalars, tensorwise).
  float q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f;

  std::optional<TensorView> cu_seqlens_q{}, cu_seqlens_k{}; // varlen (both or neither)
  int64_t max_seqlen_q = 0, max_seqlen_k = 0;               // varlen: the largest lengths

  int num_splits = 0; // split-KV: 0 = the host picks, 1 = no split, N = N splits

  // Query rows per workgroup: 64 (4 waves) or 128 (8 waves); 0 = the host picks: 128 when the
  // head dim (the larger of D and Dv) is above 128 and Sq (varlen: max_seqlen_q) is above 64,
  // else 64 (flash_attn_query_tile.hpp).
  int query_tile = 0;
};

// The validated problem: everything that picks a configuration and keys the compile cache.
struct FlashAttnProblem {
  DType dtype = DType::f16, out_dtype = DType::f16;
  int64_t batch = 0, seqlen_q = 0, seqlen_k = 0; // varlen: max lengths
  int64_t heads_q = 0, heads_kv = 0, head_dim = 0, head_dim_v = 0;
  bool varlen = false;
  float sm_scale = 0.0f;
  bool causal = false;
  int64_t window_left = -1, window_right = -1;
  AttnBiasKind bias_kind = AttnBiasKind::none;
  bool bias_per_head = false;
  enum class Alibi { none, scalar, per_head } alibi = Alibi::none;
  float softcap = 0.0f;
  float dropout_p = 0.0f;
  bool return_lse = false;
  int num_splits = 1;
  int query_tile = 64; // query rows per workgroup (64 or 128)
  bool empty() const { return batch == 0 || seqlen_q == 0 || heads_q == 0; }
};

FlashAttnProblem validate_flash_attn(const runtime::Device& device, const FlashAttnArgs& args);
void flash_attn(runtime::Device& device, const FlashAttnArgs& args);

} // namespace tw::kernels
