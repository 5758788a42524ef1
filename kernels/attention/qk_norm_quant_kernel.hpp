#pragma once
// The quant QK-norm kernel (qk_norm_quant_api.hpp) by its spec: what changes the code of one
// launch (one of q / k). qk_norm_quant picks the spec from the validated tensors;
// `tilewave emit qk_norm_quant` / `tilewave aot` build it from parameters.
#include <dsl/ir/kernel.hpp>
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/elementwise/row_skeleton.hpp>

#include <optional>
#include <string>

namespace tw::kernels::qk_norm_quant_kernel {

struct QkNormQuantKernelSpec {
  DType x = DType::bf16;     // q / k and the weights: f16, bf16, f32
  DType codes = DType::e4m3; // int8, e4m3, e5m2
  RopeStyle style = RopeStyle::neox;
  bool position_ids = false;  // positions [tokens] (else the offset)
  std::optional<DType> cache; // cos / sin caches of this dtype (else computed angles)
  // The head's two slices: the columns before the RoPE tail and the tail's pairs.
  elementwise::RowPlan nope_plan, pair_plan;
  int threads = 256;

  std::string name() const; // unique per spec: the code object's symbol and cache key
};

// The spec of a head of `head_dim` columns with a RoPE tail of `rope_dim`, runs of `vec`
// columns and `threads` per workgroup (row plans of the element-wise skeleton).
QkNormQuantKernelSpec make_spec(DType x, DType codes, RopeStyle style, bool position_ids,
                                std::optional<DType> cache, int64_t head_dim, int64_t rope_dim,
                                int vec, int threads);

ir::Kernel build_qk_norm_quant_kernel(const QkNormQuantKernelSpec& spec);

} // namespace tw::kernels::qk_norm_quant_kernel
