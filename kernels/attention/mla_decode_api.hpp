#pragma once
// Host entry point of MLA decode (multi-head latent attention, DeepSeek-V2 / V3 style) over a
// paged latent cache (issue 11; contract shared/KERNELS.md "Attention", docs/kernels.md
// "MLA decode"). One latent kv head serves every query head (MQA):
//   q         [B, Sq, Hq, 576]            the absorbed query: 512 latent dims + 64 rope dims
//   kv_cache  [num_pages, page_size, 576] one row per token (any page / token strides, the
//                                         576 dims contiguous): K is the whole row (576),
//                                         V its first 512 dims
//   block table and seqlens_k             as paged_attn (paged_attn_api.hpp): the dense table
//                                         int32 [B, max_blocks] or the CSR form, int32 [B]
//                                         key lengths (0 allowed)
//   out       [B, Sq, Hq, 512]            bf16 | f16
//   lse       [B, Hq, Sq] f32             optional, natural log of the softmax denominator
// out[b, i, h] = softmax_j(sm_scale * q_descale * k_descale * q[b, i, h] . K_b[j]) (v_descale
// V_b[j]) over the keys j that query i sees (all of them, or j <= i + Sk_b - Sq with causal,
// bottom-right as in flash_attn); a query that sees no key gets zeros and lse -inf.
// Sq is 1 to 16 (speculative rows). Caches and q are bf16, f16, e4m3, e5m2 or int8 (q in the
// cache's dtype; fp8 / int8 with tensorwise descales; int8 as in "int8 attention": P quantized
// in blocks of 64 keys). Split-KV over long contexts with flash_attn's combine kernel.
#include <kernels/attention/paged_attn_api.hpp>

namespace tw::kernels {

inline constexpr int64_t mla_qk_dim = 576, mla_v_dim = 512;

struct MlaDecodeArgs {
  TensorView q{};        // [B, Sq, Hq, 576]
  TensorView kv_cache{}; // [num_pages, page_size, 576], dtype of q
  PagedKv paged{};       // block table (either form) and seqlens_k
  TensorView out{};      // [B, Sq, Hq, 512], bf16 | f16
  std::optional<TensorView> lse{};
  float sm_scale = 0.0f;                                      // 0: 1 / sqrt(576)
  bool causal = false;                                        // bottom-right per sequence
  float q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f; // fp8 / int8 only
  int num_splits = 0; // split-KV: 0 = the host picks, 1 = none, N = N splits
};

struct MlaDecodeProblem {
  DType dtype = DType::bf16, out_dtype = DType::bf16;
  int64_t batch = 0, seqlen_q = 0, heads_q = 0, longest_k = 0;
  int64_t num_pages = 0, page_size = 0;
  bool csr = false;
  float sm_scale = 0.0f; // resolved (never 0)
  bool return_lse = false;
  int num_splits = 1;
  bool empty() const { return batch == 0 || seqlen_q == 0 || heads_q == 0; }
};

MlaDecodeProblem validate_mla_decode(const runtime::Device& device, const MlaDecodeArgs& args);
void mla_decode(runtime::Device& device, const MlaDecodeArgs& args);

} // namespace tw::kernels
