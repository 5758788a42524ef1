// The flash attention body instantiated for e4m3 inputs (wmma_f32_16x16x16_fp8_fp8).
#include <kernels/attention/flash_attn_body.hpp>

namespace tw::kernels::flash_attn_kernel::body {

ir::Kernel build_e4m3(const FlashAttnKernelSpec& s) {
  return build_atom<atoms::wmma_f32_16x16x16_fp8_fp8>(s);
}

} // namespace tw::kernels::flash_attn_kernel::body
