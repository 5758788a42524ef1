// The default query tile (flash_attn_query_tile.hpp).
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/attention/flash_attn_query_tile.hpp>

#include <algorithm>

namespace tw::kernels {

int default_query_tile(const FlashAttnProblem& p) {
  // the width the kernel pads both heads to (launch_flash_attn's spec_of)
  const int width = flash_attn_kernel::padded_head_dim(std::max(p.head_dim, p.head_dim_v));
  return width > 128 && p.seqlen_q > 64 ? 128 : 64;
}

} // namespace tw::kernels
