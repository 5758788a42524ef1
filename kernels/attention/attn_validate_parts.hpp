#pragma once
// The parts of flash_attn's validation (flash_attn_validate.cpp) that the other attention
// entries (paged_attn, decode_attn) share: one rule, one sentence, wherever it is checked.
#include <kernels/attention/flash_attn_api.hpp>

#include <string_view>
#include <vector>

namespace tw::kernels::attn_validate {

inline constexpr int64_t max_head_dim = 256;

// Well formed, in `dev`'s memory, its start aligned to its element size.
void check_memory(const ArgChecker& chk, const runtime::Device& dev, const TensorView& t,
                  std::string_view arg);
// The last dimension has stride 1 (`what` names it in the error).
void check_last_contiguous(const ArgChecker& chk, const TensorView& t, std::string_view arg,
                           std::string_view what);
// The head counts and head dims of q [.., Hq, D], k (Hkv kv heads), v [.., Dv] and out
// [.., Hq, Dv]: out's shape, 1 <= D, Dv <= 256, Hkv divides Hq (GQA), every head dim contiguous;
// sets p.heads_q, heads_kv, head_dim, head_dim_v. `head` is q's head axis.
void check_heads(const ArgChecker& chk, const FlashAttnArgs& args, int head, int64_t hkv,
                 bool varlen, FlashAttnProblem& p);
// An int32 offsets vector [B + 1], read back and checked (starts at 0, non-decreasing, ends at
// most at `tokens` of `packed`, no length above `max_len`); returns the B lengths.
std::vector<int64_t> check_offsets(const ArgChecker& chk, runtime::Device& dev,
                                   const TensorView& cu, std::string_view arg, int64_t tokens,
                                   std::string_view packed, int64_t max_len,
                                   std::string_view max_name);
// Everything after the tensors, for a problem whose dtype, varlen flag, batch, lengths, heads
// and head dims are set: sm_scale, window / causal, softcap, dropout, descales, bias / mask,
// ALiBi, lse, num_splits, query_tile (sets the matching fields of p).
void validate_attn_options(const ArgChecker& chk, const runtime::Device& device,
                           const FlashAttnArgs& args, FlashAttnProblem& p);

} // namespace tw::kernels::attn_validate
