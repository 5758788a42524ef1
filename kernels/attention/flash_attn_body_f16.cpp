// The flash attention body instantiated for f16 inputs (wmma_f32_16x16x16_f16).
#include <kernels/attention/flash_attn_body.hpp>

namespace tw::kernels::flash_attn_kernel::body {

ir::Kernel build_f16(const FlashAttnKernelSpec& s) {
  return build_atom<atoms::wmma_f32_16x16x16_f16>(s);
}

} // namespace tw::kernels::flash_attn_kernel::body
