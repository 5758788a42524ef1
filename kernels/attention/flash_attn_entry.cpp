// The flash_attn entry point: validate everything, return on an empty problem (nothing is
// launched), choose the split count, hand over to the launch step (flash_attn_launch.hpp),
// which runs the attention kernel and, with more than one split, the combine
// (split_kv_combine.hpp) over a SplitKvWorkspace.
#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/attention/flash_attn_launch.hpp>
#include <kernels/attention/flash_attn_splits.hpp>

namespace tw::kernels {

void flash_attn(runtime::Device& device, const FlashAttnArgs& args) {
  FlashAttnProblem p = validate_flash_attn(device, args);
  if (p.empty())
    return;
  p.num_splits = choose_num_splits(p, split_heuristic_of(p));
  launch_flash_attn(device, args, p);
}

} // namespace tw::kernels
