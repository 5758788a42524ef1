#pragma once
// Quant QK-norm (issue 11): the per-head RMSNorm of q and k, RoPE on the tail of each head and
// the per-(token, head) quantization of the result, in one pass per head (each rotated pair
// stays in registers from the load to the code). docs/kernels.md ("Quant QK-norm") is the
// contract. For every token t and head h of q (and of k, with its own weight):
//   y    = x[t, h] / sqrt(mean(x[t, h]^2) + eps) * weight                  (f32, over head_dim)
//   the last R = rope.head_dim dims of y are rotated as by rope() on a head of R dims:
//   pairs (i, i + R/2) (neox) or (2i, 2i + 1) (interleaved) of the tail, theta = p * base^(-2i/R)
//   s    = amax(|y|) / qmax (f32; qmax 127 int8, 448 e4m3, 57344 e5m2), 1 when y is all zero
//   code = y / s (f32 division) rounded to nearest even; int8 clamps to [-128, 127], fp8
//          saturates to its largest finite value
// and scale[t, h] = s.
#include <kernels/elementwise/elementwise_api.hpp>

namespace tw::kernels {

struct QkNormQuantArgs {
  TensorView q{};        // [tokens, heads_q * head_dim] f16 / bf16 / f32, contiguous rows
  TensorView k{};        // [tokens, heads_k * head_dim], q's dtype
  TensorView q_weight{}; // [head_dim], q's dtype
  TensorView k_weight{}; // [head_dim], q's dtype
  TensorView q_out{};    // codes, q's shape: int8, e4m3 or e5m2
  TensorView k_out{};    // codes, k's shape, q_out's dtype
  TensorView q_scale{};  // f32 [tokens, heads_q], contiguous
  TensorView k_scale{};  // f32 [tokens, heads_k], contiguous
  int64_t head_dim = 0;  // 2 .. 16384 (heads_q, heads_k: 1 .. 512)
  // rope.head_dim: the rotated tail R (even, <= head_dim; 0 = the whole head); positions /
  // offset, cos / sin caches ([max_pos, R / 2]) and base as for rope().
  RopeParams rope{};
  float eps = 1e-6f;
  int block_size = 0;
};
void qk_norm_quant(runtime::Device& device, const QkNormQuantArgs& args);

} // namespace tw::kernels
