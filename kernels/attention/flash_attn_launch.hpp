#pragma once
// The launch step of flash_attn, called by flash_attn_entry.cpp after validate_flash_attn with
// a non-empty problem whose num_splits is chosen (>= 1): picks the kernel spec, builds it
// through the compile cache, launches (split-KV: the partials into a workspace, then the
// combine kernel). Implemented in launch_flash_attn.cpp.
#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/attention/flash_attn_kernel.hpp>

namespace tw::kernels {

void launch_flash_attn(runtime::Device& device, const FlashAttnArgs& args,
                       const FlashAttnProblem& problem);

namespace flash_attn_kernel {
// The spec and kernel arguments of a validated problem (split-KV partials go to `workspace`:
// o_part, m_part, l_part of attn_shared.md, when problem.num_splits > 1).
FlashAttnKernelSpec spec_of(const FlashAttnArgs& args, const FlashAttnProblem& problem);
FlashAttnLaunchArgs launch_args_of(const FlashAttnArgs& args, const FlashAttnProblem& problem);
} // namespace flash_attn_kernel

} // namespace tw::kernels
