#pragma once
// The paged-cache rules that paged_attn, decode_attn and mla_decode share (paged_attn_api.hpp,
// docs/kernels.md "Paged attention"), one sentence each, checked before anything runs: the key
// lengths (int32 [B], each >= 0 and within its table row's capacity), exactly one form of block
// table (dense int32 [B, max_blocks] or CSR indptr [B + 1] / indices with non-decreasing
// offsets), and every page a sequence uses in [0, num_pages). Tables and lengths are read back
// from the device (never written).
#include <kernels/attention/paged_attn_api.hpp>

#include <string_view>

namespace tw::kernels {

// Returns the longest sequence; `csr` tells which table form was given. `pools` names the page
// pools in the page-index error (e.g. "'k' / 'v'").
int64_t check_paged_kv(const ArgChecker& chk, runtime::Device& dev, const PagedKv& pk,
                       int64_t batch, int64_t page_size, int64_t num_pages, std::string_view pools,
                       bool& csr);

// validate_paged_attn's rules with every sentence starting with `chk`'s name: paged_attn, or
// decode_attn (which adds its own query-row rule).
PagedAttnProblem validate_paged_attn(const ArgChecker& chk, const runtime::Device& device,
                                     const PagedAttnArgs& args);

} // namespace tw::kernels
