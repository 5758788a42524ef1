#pragma once
// Host entry points of the element-wise and normalization kernels (issue 12). Each takes the
// launch Device and an argument struct of TensorViews, validates everything (dtype, rank,
// shape, strides, alignment, device, overlap) and throws ArgumentError naming the argument and
// the rule before anything is launched. docs/kernels.md ("Element-wise and normalization") is
// the contract.
//
// Shared conventions:
//  - Activations are [width] or [rows, width] with contiguous rows (any row stride >= width,
//    e.g. a column slice of a larger buffer); float dtypes f16, bf16, f32; `out` may have its
//    own float dtype and row stride, and may be the very same view as an input (in place).
//  - Everything is computed in f32 and rounded once into `out`.
//  - Empty tensors return at once (after validation).
//  - block_size: 0 = 256 threads per workgroup, or a multiple of 32 up to 1024. Row kernels hold
//    the row in registers: rows up to block_size * 64 elements (16384 at 256 threads).
#include <kernels/common/arg_check.hpp>

#include <optional>

namespace tw::kernels {

// out = silu(x) = x / (1 + exp(-x))
struct SiluArgs {
  TensorView x{};
  TensorView out{};
  int block_size = 0;
};
void silu(runtime::Device& device, const SiluArgs& args);

// out = silu(gate) * up (gate, up and out of one shape; out may be non-contiguous)
struct SwigluArgs {
  TensorView gate{};
  TensorView up{};
  TensorView out{};
  int block_size = 0;
};
void swiglu(runtime::Device& device, const SwigluArgs& args);

// RMSNorm: out = x / sqrt(mean(x^2) + eps) * weight (+ bias)
// LayerNorm: out = (x - mean) / sqrt(var + eps) * weight (+ bias), var = mean((x - mean)^2)
// weight and bias are [width] with x's dtype.
struct NormArgs {
  TensorView x{};
  TensorView weight{};
  std::optional<TensorView> bias{};
  TensorView out{};
  float eps = 1e-6f;
  int block_size = 0;
};
void rms_norm(runtime::Device& device, const NormArgs& args);
void layer_norm(runtime::Device& device, const NormArgs& args);

// AdaLN: out = layer_norm(x) * (1 + scale) + shift, the layer norm without affine weights
// (eps inside the square root); scale and shift are [rows, width] (x's shape, any row stride)
// with x's dtype.
struct AdaLnArgs {
  TensorView x{};
  TensorView scale{};
  TensorView shift{};
  TensorView out{};
  float eps = 1e-6f;
  int block_size = 0;
};
void adaln(runtime::Device& device, const AdaLnArgs& args);

// RoPE over x [tokens, heads * head_dim] (rank 2, contiguous rows, any row stride; head_dim
// even, any size: 64, 80, 96, 128, ...). For token t at position p and pair i < head_dim / 2
// of every head, with theta = p * base^(-2i / head_dim):
//   y1 = x1 * cos(theta) - x2 * sin(theta),  y2 = x2 * cos(theta) + x1 * sin(theta)
// where (x1, x2) = (x[i], x[i + head_dim / 2]) (neox) or (x[2i], x[2i + 1]) (interleaved).
// p = positions[t] (i32 [tokens]) or position_offset + t. cos / sin come from the caches
// [max_pos, head_dim / 2] (f32, f16 or bf16; positions are clamped to [0, max_pos)) or are
// computed in the kernel (f32: base^(-2i/d) with the hardware exp2, dsl sincos).
enum class RopeStyle { neox, interleaved };
struct RopeParams {
  int64_t head_dim = 0;
  RopeStyle style = RopeStyle::neox;
  std::optional<TensorView> positions{};
  int64_t position_offset = 0;
  std::optional<TensorView> cos{}, sin{};
  float base = 10000.0f;
};
struct RopeArgs {
  TensorView x{};
  TensorView out{};
  RopeParams rope{};
  int block_size = 0;
};
void rope(runtime::Device& device, const RopeArgs& args);

// RMSNorm over each head (weight [head_dim], x's dtype), then RoPE, in one pass (QK-norm):
// y = rope(x_head / sqrt(mean(x_head^2) + eps) * weight). Shapes and RoPE as for rope.
struct RmsNormRopeArgs {
  TensorView x{};
  TensorView weight{};
  TensorView out{};
  RopeParams rope{};
  float eps = 1e-6f;
  int block_size = 0;
};
void rms_norm_rope(runtime::Device& device, const RmsNormRopeArgs& args);

} // namespace tw::kernels
