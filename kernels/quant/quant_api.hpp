#pragma once
// Host entry points of the quantization kernels (issue 12). Same conventions as
// kernels/elementwise/elementwise_api.hpp (validation sentences, [rows, width] operands with
// contiguous rows, block_size 0 = 256, empty tensors return after validation).
// docs/kernels.md ("Quantization kernels") is the contract.
#include <kernels/common/arg_check.hpp>

#include <optional>

namespace tw::kernels {

enum class QuantGranularity { tensorwise, rowwise };

// int8 quantization of x (f16 / bf16 / f32, [rows, K] or [K]) into q (int8, x's shape):
//   q = clamp(round_half_even(x / s), -128, 127), computed in f32 (IEEE division).
// The scale s:
//  - given_scale (tensorwise only): S may be negative; s = sign(S) * max(|S|, 1e-30), so a
//    negative scale flips the codes; -128 is reachable.
//  - otherwise abs-max: s = amax / 127 (f32 division) over the whole tensor (tensorwise) or
//    each row (rowwise); an all-zero tensor / row gets s = 1.
// `scale` (f32) receives the s used: one element ([], [1] or [1, 1]) tensorwise, [rows]
// (or [rows, 1]) rowwise. Tensorwise abs-max reads x twice (a max pass, then the codes).
struct QuantInt8Args {
  TensorView x{};
  TensorView q{};
  TensorView scale{};
  QuantGranularity granularity = QuantGranularity::tensorwise;
  std::optional<float> given_scale{};
  int block_size = 0;
};
void quant_int8(runtime::Device& device, const QuantInt8Args& args);

// Stochastic rounding of x (f32, [rows, K] or [K]) into q (e4m3 / e5m2, x's shape), in one
// step from f32 (no f16 on the way), saturating: |x| past the largest finite value (448 /
// 57344) gives it, NaN stays NaN. Element e = row * K + col uses the 32 random bits
// word e % 4 of philox4x32_10(counter (lo(e / 4), hi(e / 4), lo(offset), hi(offset)),
// key (lo(seed), hi(seed))); they are added under the discarded bits of x's significand and
// the carry rounds up, so E[q] = x for finite |x| <= the largest finite value (and not more
// than 32 bit positions below the code's ulp). Same (seed, offset, x): same codes.
struct QuantFp8StochasticArgs {
  TensorView x{};
  TensorView q{};
  uint64_t seed = 0;
  uint64_t offset = 0;
  int block_size = 0;
};
void quant_fp8_stochastic(runtime::Device& device, const QuantFp8StochasticArgs& args);

// FP8 dequantization: out = x * s with x e4m3 / e5m2 and s (f32) one element (tensorwise) or
// one per row ([rows] or [rows, 1], rowwise); out bf16 / f16 / f32, rounded once.
struct DequantFp8Args {
  TensorView x{};
  TensorView scale{};
  TensorView out{};
  int block_size = 0;
};
void dequant_fp8(runtime::Device& device, const DequantFp8Args& args);

// AWQ dequantization: out[k, n] = (q[k, n] - zeros[k / group_size, n]) * scales[k / group_size, n]
// with q (qweight) and zeros packed uint4 (two per byte, element 2i in the low nibble; rows
// row-major with an even stride, N even), scales f16 / bf16 [ceil(K / group_size), N], out
// f16 / bf16 / f32 [K, N]. (The nibble order is the library's, not AutoAWQ's interleaved
// int32 packing: a loader repacks once.)
struct DequantAwqArgs {
  TensorView qweight{};
  TensorView zeros{};
  TensorView scales{};
  TensorView out{};
  int64_t group_size = 128;
  int block_size = 0;
};
void dequant_awq(runtime::Device& device, const DequantAwqArgs& args);

} // namespace tw::kernels
