#pragma once
// The launch step of flash_attn, called by flash_attn_entry.cpp after validate_flash_attn with
// a non-empty problem whose num_splits is chosen (>= 1). Written by the attention kernel
// (kernels/attention/launch_flash_attn.cpp); declared here so the entry compiles before it.
#include <kernels/attention/flash_attn_api.hpp>

namespace tw::kernels {

void launch_flash_attn(runtime::Device& device, const FlashAttnArgs& args,
                       const FlashAttnProblem& problem);

} // namespace tw::kernels
