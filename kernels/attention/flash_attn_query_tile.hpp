#pragma once
// The query tile flash_attn runs when the caller leaves FlashAttnArgs::query_tile at 0
// (docs/kernels.md "Attention", query tile). 64 rows (4 waves) in general; 128 rows (8 waves)
// when the padded head dim is above 128 and a sequence has more than 64 query rows: at D = 256
// the 64-row tile is LDS-bound at 3 waves per SIMD, and 128 rows share K's LDS staging between
// twice the waves (modeled (gfx1201) bf16 D = 256, B = 4, H = 32, S = 4096: 101 against 72
// TFLOP/s full, 68.1 / 55.0 against 43.1 / 44.0 causal, hip / llvm). Decode-like problems
// (Sq <= 64) keep 64 rows: a 128-row tile would be mostly empty.
#include <kernels/attention/flash_attn_api.hpp>

#include <string_view>

namespace tw::kernels {

// The rule in words, for the messages that name the choices of query_tile.
inline constexpr std::string_view default_query_tile_rule = "128 when D > 128 and Sq > 64, else 64";

// Query rows per workgroup for the validated head dims and query length of `problem`
// (head_dim, head_dim_v, seqlen_q: the longest sequence's query rows in varlen): 64 or 128.
int default_query_tile(const FlashAttnProblem& problem);

} // namespace tw::kernels
