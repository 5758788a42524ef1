#pragma once
// Host entry point of attention over a paged KV cache (issue 11; contract shared/KERNELS.md
// "Attention", docs/kernels.md "Paged attention"). The queries and every option are those of
// flash_attn (flash_attn_api.hpp); the keys and values live in page pools read through a block
// table:
//   attn.k  k_cache [num_pages, page_size, Hkv, D]    (any strides, the head dim contiguous)
//   attn.v  v_cache [num_pages, page_size, Hkv, Dv]   (same num_pages, page_size, Hkv)
//   block table, one of
//     block_table          int32 [B, max_blocks]: page of slot s of sequence b (row-major rows)
//     block_table_indptr   int32 [B + 1] and block_table_indices int32 [nnz] (CSR): the pages
//                          of sequence b are indices[indptr[b] .. indptr[b + 1])
//   seqlens_k              int32 [B]: the keys of sequence b (0 allowed); key j of sequence b
//                          is slot j % page_size of page table_b[j / page_size]
// Queries: dense attn.q [B, Sq, Hq, D] or varlen ([Tq, Hq, D] with attn.cu_seqlens_q and
// max_seqlen_q); attn.cu_seqlens_k must be absent and attn.max_seqlen_k 0 (the key lengths are
// seqlens_k). Masks and ALiBi are bottom-right per sequence with Sk_b = seqlens_k[b]. Slots of a
// table past a sequence's last page are not read (padding such as -1 is allowed there); every
// page a sequence uses must be in [0, num_pages), checked before launch. page_size is a multiple
// of 16 from 16 to 256. A bias / mask (dense queries only, as in flash_attn) is [Sq, Sk] or
// [Hq, Sq, Sk] with Sk the longest seqlens_k, indexed top-left [(h,) i, j] in every sequence.
#include <kernels/attention/flash_attn_api.hpp>

#include <optional>

namespace tw::kernels {

struct PagedKv {
  std::optional<TensorView> block_table{};
  std::optional<TensorView> block_table_indptr{}, block_table_indices{};
  TensorView seqlens_k{};
};

struct PagedAttnArgs {
  FlashAttnArgs attn{}; // q, out, lse, options; k / v are the page pools
  PagedKv paged{};
};

// The validated problem: attn.seqlen_k is the longest sequence (max seqlens_k).
struct PagedAttnProblem {
  FlashAttnProblem attn{};
  int64_t num_pages = 0, page_size = 0;
  bool csr = false;
};

PagedAttnProblem validate_paged_attn(const runtime::Device& device, const PagedAttnArgs& args);
// The prefill kernel over the paged cache (any Sq).
void paged_attn(runtime::Device& device, const PagedAttnArgs& args);

// Decode over the paged cache: 1 to 16 query rows per sequence (dense Sq, or varlen
// max_seqlen_q), otherwise paged_attn's arguments and rules (a sliding window sees the last
// `left` keys before each query's bottom-right origin; split-KV with the combine kernel when
// num_splits > 1 or the host picks it for a long context). When a kv head serves G > 1 query
// heads, the G * Sq query rows of its group are packed into the WMMA rows of one query tile
// (GQA packing, kernels/attention/blocks/gqa_packing.hpp): one pass over the kv head's pages
// for the whole group; with G = 1 it runs the paged prefill composition.
PagedAttnProblem validate_decode_attn(const runtime::Device& device, const PagedAttnArgs& args);
void decode_attn(runtime::Device& device, const PagedAttnArgs& args);

} // namespace tw::kernels
