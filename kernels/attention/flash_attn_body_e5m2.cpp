// The flash attention body instantiated for e5m2 inputs (wmma_f32_16x16x16_bf8_bf8).
#include <kernels/attention/flash_attn_body.hpp>

namespace tw::kernels::flash_attn_kernel::body {

ir::Kernel build_e5m2(const FlashAttnKernelSpec& s) {
  return build_atom<atoms::wmma_f32_16x16x16_bf8_bf8>(s);
}

} // namespace tw::kernels::flash_attn_kernel::body
