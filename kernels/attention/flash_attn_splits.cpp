// The split-KV heuristic (flash_attn_splits.hpp).
#include <kernels/attention/flash_attn_splits.hpp>

#include <algorithm>

namespace tw::kernels {

int choose_num_splits(const FlashAttnProblem& p, const SplitHeuristic& h) {
  if (p.num_splits > 0)
    return p.num_splits;
  const int64_t workgroups = (p.seqlen_q + h.query_tile - 1) / h.query_tile * p.heads_q * p.batch;
  if (workgroups == 0 || workgroups >= h.compute_units)
    return 1;
  const int64_t target = h.compute_units * h.workgroups_per_cu;
  const int64_t wanted = (target + workgroups - 1) / workgroups;
  const int64_t by_keys = p.seqlen_k / h.min_keys_per_split;
  return int(std::max<int64_t>(1, std::min({wanted, by_keys, int64_t(h.max_splits)})));
}

SplitHeuristic split_heuristic_of(const FlashAttnProblem& p) {
  SplitHeuristic h;
  h.query_tile = p.query_tile;
  return h;
}

} // namespace tw::kernels
