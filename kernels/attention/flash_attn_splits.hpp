#pragma once
// How many KV splits flash_attn runs when the caller leaves num_splits at 0 (docs/kernels.md
// "Attention", split heuristic). Split-KV pays off when the grid without it cannot fill the
// GPU: few query tiles x heads x batch against gfx1201's 64 CUs, and a long Sk to share out.
#include <kernels/attention/flash_attn_api.hpp>

#include <cstdint>

namespace tw::kernels {

struct SplitHeuristic {
  int64_t query_tile = 64;       // query rows per workgroup of the attention kernel
  int64_t compute_units = 64;    // gfx1201
  int64_t workgroups_per_cu = 2; // the occupancy the grid aims for
  int64_t min_keys_per_split = 256;
  int max_splits = 16; // bounds the workspace and the combine's reads
};

// problem.num_splits when it is > 0; otherwise 1 when the unsplit grid (ceil(Sq / query_tile)
// x Hq x B workgroups) already has a workgroup per CU, else enough splits to reach
// compute_units x workgroups_per_cu workgroups, at most Sk / min_keys_per_split and max_splits
// (so 1 whenever Sk < 2 x min_keys_per_split).
int choose_num_splits(const FlashAttnProblem& problem, const SplitHeuristic& h = {});

// The heuristic of flash_attn's kernel for a validated problem: its query_tile.
SplitHeuristic split_heuristic_of(const FlashAttnProblem& problem);

} // namespace tw::kernels
