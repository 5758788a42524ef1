// The flash attention body instantiated for int8 inputs (wmma_i32_16x16x16_iu8, signed
// operands; P quantized to int8 as in kernels/attention/blocks/attn_products.hpp).
#include <kernels/attention/flash_attn_body.hpp>

namespace tw::kernels::flash_attn_kernel::body {

ir::Kernel build_i8(const FlashAttnKernelSpec& s) {
  return build_atom<atoms::wmma_i32_16x16x16_iu8>(s);
}

} // namespace tw::kernels::flash_attn_kernel::body
