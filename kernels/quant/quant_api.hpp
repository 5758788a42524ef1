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
// row-major with an even stride in nibbles, so an odd N leaves a pad nibble at the end of each
// row, as the 4-bit quantizers write it), scales f16 / bf16 [ceil(K / group_size), N], out
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

// The 4-bit quantizers below write packed 4-bit codes: q has x's shape [rows, K] counted in
// nibbles (two per byte, element 2i in the low nibble), row-major with an even row stride;
// when K is odd the high nibble of each row's last byte is written 0. Groups are
// `group_size` consecutive elements of a row (a power of two, 2 .. 2048; the last group of a
// row may be partial), g = ceil(K / group_size) per row. Everything is computed in f32; the
// codes use the scale as stored. A group whose scale (as used) is 0 gets codes 0.

// SVDQuant W4A4 activation quantization (the residual branch's int4 operand): per group,
// s = amax / 7 (f32 division) rounded to x's dtype and stored in `scale` (x's dtype,
// [rows, g]); q (int4) = clamp(round_half_even(x / s), -8, 7) with that stored s (f32
// division), not the f32 amax / 7. x is f16 or bf16.
struct QuantSvdquantArgs {
  TensorView x{};
  TensorView q{};
  TensorView scale{};
  int64_t group_size = 64;
  int block_size = 0;
};
void quant_svdquant(runtime::Device& device, const QuantSvdquantArgs& args);

// Asymmetric W4A8 weight quantization of x ([N, K] weights, f16 / bf16 / f32), by mode:
//  0 per channel, symmetric: s = amax(row) / 7 in `scale` (f32, [N]); q int4 =
//    clamp(round_half_even(x / s), -8, 7).
//  1 per group, symmetric, two-level: s_g = amax(group) / 7; the row scale S = max_g s_g / 448
//    (1 for an all-zero row) goes to `scale`; the relative scale r_g = s_g / S rounded to
//    group_scale's dtype (e4m3, RNE saturating, or f32) goes to `group_scale` [N, g]; the codes
//    use s'_g = r_g * S with the stored r_g: q int4 = clamp(round_half_even(x / s'_g), -8, 7).
//  2 per group, asymmetric, two-level: the group's range includes 0 (lo = min(0, min x),
//    hi = max(0, max x)), s_g = (hi - lo) / 15, S, r_g and s'_g as in mode 1; the zero point
//    z_g = clamp(round_half_even(-lo / s'_g), 0, 15) goes to `zeros` (uint8, [N, g]); q uint4
//    = clamp(round_half_even(x / s'_g) + z_g, 0, 15), so x ~ (q - z_g) * s'_g; the optional
//    `correction` (f32, [N, g]) receives z_g * s'_g (the zero term a W4A8 GEMM subtracts,
//    x ~ q * s'_g - correction), again with the stored r_g.
struct QuantW4a8Args {
  TensorView x{};
  TensorView q{};
  TensorView scale{};
  std::optional<TensorView> group_scale{}; // modes 1 and 2
  std::optional<TensorView> zeros{};       // mode 2
  std::optional<TensorView> correction{};  // mode 2, optional
  int mode = 1;
  int64_t group_size = 128;
  int block_size = 0;
};
void quant_w4a8(runtime::Device& device, const QuantW4a8Args& args);

// int8 ConvRot: each row of x ([rows, K], f16 / bf16 / f32) is rotated by the normalized
// Sylvester Hadamard matrix H_n / sqrt(n) in groups of n = min(group_size, next power of two
// >= K) columns (group_size a power of two, 2 .. 2048): the logical K elements are loaded and
// the rest of the last group is zero-filled, so the rotated row has the full Hadamard width
// Kp = ceil(K / n) * n. It is then quantized to int8 per row with abs-max: s = amax / 127
// (1 for an all-zero row) into `scale` (f32, [rows]), q = clamp(round_half_even(y / s), -128,
// 127) into q (int8, [rows, Kp]). y_i = sum_k (-1)^popcount(i & k) x_k / sqrt(n) within a
// group, summed in f32 (a butterfly), so codes are within half a code of the exact rotation
// plus the f32 error.
struct QuantConvrotArgs {
  TensorView x{};
  TensorView q{};
  TensorView scale{};
  int64_t group_size = 256;
  int block_size = 0;
};
void quant_convrot(runtime::Device& device, const QuantConvrotArgs& args);
// The Hadamard group and the output width Kp of quant_convrot for rows of K.
int64_t convrot_group(int64_t k, int64_t group_size);
int64_t convrot_width(int64_t k, int64_t group_size);

} // namespace tw::kernels
