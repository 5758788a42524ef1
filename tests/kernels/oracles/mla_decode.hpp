#pragma once
// The float64 reference of MLA decode (kernels/attention/mla_decode_api.hpp), included after
// tests/kernels/oracles.hpp (by tests/kernels/mla_decode_harness.hpp and test_oracles.cpp, not
// by oracles.hpp itself, so that the other kernel tests do not rebuild with it). By the definition
// of MLA over a latent cache, key j of sequence b is the whole row (576 dims) of the cache at slot
// j % page_size of page table_b[j / page_size], and its value the first 512 dims of that same row:
// the reference hands the paged attention reference (oracles/paged_attention.hpp, which gathers the
// pages itself into packed K / V) two host views of the one cache, k [num_pages, page_size, 1, 576]
// and v [num_pages, page_size, 1, 512] (one kv head, the row's first 512 elements), with the
// queries and options. int8: `int8_kv_block` is the kernel's KV block (P's quantization blocks of
// 64 keys) and args.num_splits must be the split count the kernel runs (>= 1).
#include <kernels/attention/mla_decode_api.hpp>

namespace tw::oracle {

inline AttentionReference mla_decode(const kernels::MlaDecodeArgs& args,
                                     int64_t int8_kv_block = 0) {
  const TensorView& c = args.kv_cache;
  if (!c.on_host_memory() || c.rank() != 3)
    throw std::invalid_argument("oracle mla_decode: kv_cache must be a host [P, ps, 576] view");
  kernels::PagedAttnArgs p;
  p.attn.q = args.q;
  p.attn.out = args.out;
  p.attn.sm_scale = args.sm_scale;
  p.attn.causal = args.causal;
  p.attn.q_descale = args.q_descale;
  p.attn.k_descale = args.k_descale;
  p.attn.v_descale = args.v_descale;
  p.attn.num_splits = args.num_splits; // int8: P's quantization follows the splits
  TensorView k = c;
  k.shape = {c.shape[0], c.shape[1], 1, kernels::mla_qk_dim};
  k.strides = {c.strides[0], c.strides[1], kernels::mla_qk_dim, 1};
  TensorView v = k;
  v.shape[3] = kernels::mla_v_dim;
  p.attn.k = k;
  p.attn.v = v;
  p.paged = args.paged;
  return paged_attn(p, int8_kv_block);
}

} // namespace tw::oracle
