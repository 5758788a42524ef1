// The flash attention body instantiated for bf16 inputs (wmma_f32_16x16x16_bf16).
#include <kernels/attention/flash_attn_body.hpp>

namespace tw::kernels::flash_attn_kernel::body {

ir::Kernel build_bf16(const FlashAttnKernelSpec& s) {
  return build_atom<atoms::wmma_f32_16x16x16_bf16>(s);
}

} // namespace tw::kernels::flash_attn_kernel::body
