#pragma once
// Host entry points of the GEMM family (issue 6). Each takes the launch Device and an
// argument struct of TensorViews, validates every argument (dtype, rank, shape, memory
// order, alignment, device, overlap) and throws ArgumentError naming the argument and the
// rule before anything touches the device. docs/kernels.md ("GEMM") is the contract.
//
// Conventions shared by every kernel here:
//  - Shapes are logical: a is [M, K], b is [K, N], out is [M, N]. The "linear" kernels
//    (w8a16, int8_linear*) take the weight as nn.Linear stores it, [N, K] row-major, and
//    compute out = x @ weight^T.
//  - Scale tensors are f32. "Tensorwise" is one element (shape [], [1] or [1, 1]);
//    "rowwise" is one scale per row of a (M of them) or per column of b / row of the weight
//    (N of them), as a contiguous vector of shape [n], [n, 1] or [1, n].
//  - bias is [N] with the dtype of out and is added last.
//  - M = 0 or N = 0: validated, then nothing to do. K = 0: out = bias (or 0), written by
//    the kernel.
//
// Every launch runs on the GEMM composition (kernels/gemm/gemm_kernel.hpp): LoRA is a block of
// the fused kernels (any out dtype), scaled_mm_multi is one grouped launch. docs/kernels.md
// "GEMM kernel bodies" has the details.
#include <kernels/common/arg_check.hpp>
#include <kernels/common/tensor.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tw::kernels {

// How a scale tensor applies.
enum class ScaleGranularity { tensorwise, rowwise };

// What a validated problem is, for the launch: the values that pick a config and key the
// compile cache.
struct GemmProblem {
  std::string kernel; // "gemm", "scaled_mm", ...
  int64_t m = 0, n = 0, k = 0;
  DType a_dtype = DType::f16, b_dtype = DType::f16, out_dtype = DType::f32;
  MatrixOrder a_order = MatrixOrder::row_major, b_order = MatrixOrder::row_major;
  std::optional<ScaleGranularity> scale_a, scale_b; // kernels with scales
  bool has_bias = false;
  bool has_c = false;    // gemm with beta != 0
  int64_t lora_rank = 0; // 0: no LoRA
  bool empty() const { return m == 0 || n == 0; }
};

// ---- gemm: f16 / bf16 operands, f32 accumulate -------------------------------------------
// out = alpha * (a @ b) + beta * c + bias[n]
struct GemmArgs {
  TensorView a{};                   // [M, K] f16 | bf16, row- or column-major
  TensorView b{};                   // [K, N] dtype of a, row- or column-major
  TensorView out{};                 // [M, N] f16 | bf16 | f32, row-major
  std::optional<TensorView> c{};    // [M, N] dtype of out, row-major; needed when beta != 0;
                                    // may be the very same view as out (in place)
  std::optional<TensorView> bias{}; // [N], dtype of out
  float alpha = 1.0f;
  float beta = 0.0f;
};
GemmProblem validate_gemm(const runtime::Device& device, const GemmArgs& args);
void gemm(runtime::Device& device, const GemmArgs& args);

// ---- scaled_mm: fp8 operands (e4m3 / e5m2, all four combinations) -------------------------
// out[m, n] = (sum_k a[m, k] * b[k, n]) * scale_a(m) * scale_b(n) + bias[n]
struct ScaledMmArgs {
  TensorView a{};                   // [M, K] e4m3 | e5m2, row-major (K contiguous)
  TensorView b{};                   // [K, N] e4m3 | e5m2, column-major (K contiguous)
  TensorView scale_a{};             // f32, tensorwise or rowwise (M)
  TensorView scale_b{};             // f32, tensorwise or rowwise (N)
  TensorView out{};                 // [M, N] bf16 | f16 | f32, row-major
  std::optional<TensorView> bias{}; // [N], dtype of out
};
GemmProblem validate_scaled_mm(const runtime::Device& device, const ScaledMmArgs& args);
void scaled_mm(runtime::Device& device, const ScaledMmArgs& args);

// ---- activation quantization in the prologue (the fused kernels) --------------------------
// Rule (docs/kernels.md "Activation quantization"), all in f32:
//   given_scale:     s = the caller's scale (tensorwise, or one per row of x)
//   dynamic_rowwise: s_m = amax_k |x[m, k]| / qmax (f32 division), or 1 when the row is 0
//   q[m, k] = quantize(x[m, k] * (1.0f / s_m)), the reciprocal and the product each
//             rounded to f32; quantize = round to nearest even, then saturate to
//             [-qmax, qmax] (fp8: qmax = 448 e4m3, 57344 e5m2; int8: clamp [-128, 127],
//             qmax = 127).
// The GEMM then uses q and dequantizes with s_m in the epilogue.
enum class ActQuantMode { given_scale, dynamic_rowwise };
struct ActivationQuant {
  DType dtype = DType::e4m3; // e4m3 | e5m2 (scaled_mm_fused_quant), int8 (int8_linear_fused)
  ActQuantMode mode = ActQuantMode::dynamic_rowwise;
  std::optional<TensorView> scale{};     // given_scale only: f32 tensorwise or rowwise (M)
  std::optional<TensorView> scale_out{}; // dynamic_rowwise only, optional: f32 [M] receives s_m
};

// LoRA (PEFT's convention): out += lora.scale * (x @ down^T) @ up^T, on the unquantized
// activation x. rank R >= 1.
struct LoraArgs {
  TensorView down{}; // lora_A: [R, K], dtype of x, row-major
  TensorView up{};   // lora_B: [N, R], dtype of x, row-major
  float scale = 1.0f;
};

// out = (q(x) @ b) * s(m) * scale_b(n) + bias[n] (+ LoRA)
struct ScaledMmFusedQuantArgs {
  TensorView x{}; // [M, K] bf16 | f16, row-major
  ActivationQuant quant{};
  TensorView b{};       // [K, N] e4m3 | e5m2, column-major
  TensorView scale_b{}; // f32, tensorwise or rowwise (N)
  TensorView out{};     // [M, N] bf16 | f16 | f32, row-major
  std::optional<TensorView> bias{};
  std::optional<LoraArgs> lora{};
};
GemmProblem validate_scaled_mm_fused_quant(const runtime::Device& device,
                                           const ScaledMmFusedQuantArgs& args);
void scaled_mm_fused_quant(runtime::Device& device, const ScaledMmFusedQuantArgs& args);

// ---- scaled_mm_multi: a list of independent scaled_mm problems in one (grouped) launch ----
// Every problem has the same dtypes (a, b, out), the same scale granularities and either
// all or none have a bias; M, N, K differ freely.
struct ScaledMmMultiArgs {
  std::vector<ScaledMmArgs> problems;
};
std::vector<GemmProblem> validate_scaled_mm_multi(const runtime::Device& device,
                                                  const ScaledMmMultiArgs& args);
void scaled_mm_multi(runtime::Device& device, const ScaledMmMultiArgs& args);

// ---- w8a16: int8 weights, per-output-channel scales, f16 / bf16 activations ----------------
// out[m, n] = scale[n] * sum_k x[m, k] * weight[n, k] + bias[n]
struct W8A16Args {
  TensorView x{};      // [M, K] f16 | bf16, row-major
  TensorView weight{}; // [N, K] int8, row-major
  TensorView scale{};  // f32, rowwise (N): one per output channel
  TensorView out{};    // [M, N] dtype of x, row-major
  std::optional<TensorView> bias{};
};
GemmProblem validate_w8a16(const runtime::Device& device, const W8A16Args& args);
void w8a16(runtime::Device& device, const W8A16Args& args);

// ---- int8_linear: iu8 WMMA, exact i32 accumulation, scales in the epilogue ----------------
// out[m, n] = float(sum_k x[m, k] * weight[n, k]) * x_scale(m) * w_scale(n) + bias[n]
struct Int8LinearArgs {
  TensorView x{};       // [M, K] int8, row-major
  TensorView weight{};  // [N, K] int8, row-major
  TensorView x_scale{}; // f32, tensorwise or rowwise (M)
  TensorView w_scale{}; // f32, tensorwise or rowwise (N)
  TensorView out{};     // [M, N] f16 | bf16 | f32, row-major
  std::optional<TensorView> bias{};
};
GemmProblem validate_int8_linear(const runtime::Device& device, const Int8LinearArgs& args);
void int8_linear(runtime::Device& device, const Int8LinearArgs& args);

// ---- int8_linear_fused: the activation is quantized to int8 in the kernel -----------------
struct Int8LinearFusedArgs {
  TensorView x{};          // [M, K] f16 | bf16, row-major
  ActivationQuant quant{}; // dtype int8
  TensorView weight{};     // [N, K] int8, row-major
  TensorView w_scale{};    // f32, tensorwise or rowwise (N)
  TensorView out{};        // [M, N] f16 | bf16 | f32, row-major
  std::optional<TensorView> bias{};
  std::optional<LoraArgs> lora{};
};
GemmProblem validate_int8_linear_fused(const runtime::Device& device,
                                       const Int8LinearFusedArgs& args);
void int8_linear_fused(runtime::Device& device, const Int8LinearFusedArgs& args);

// ---- iu4_gemm: packed int4 x int4 -> i32, exact (the 16x16x32 iu4 atom) -------------------
// Signedness of each operand comes from its dtype (int4 signed, uint4 unsigned).
struct Iu4GemmArgs {
  TensorView a{};   // [M, K] int4 | uint4 packed, row-major, even leading stride
  TensorView b{};   // [K, N] int4 | uint4 packed, column-major, even leading stride
  TensorView out{}; // [M, N] i32, row-major
};
GemmProblem validate_iu4_gemm(const runtime::Device& device, const Iu4GemmArgs& args);
void iu4_gemm(runtime::Device& device, const Iu4GemmArgs& args);

// ---- mxfp8_gemm: OCP MX fp8, one e8m0 scale per 32 consecutive K elements ------------------
// out[m, n] = sum_blk 2^ea[m, blk] * 2^eb[n, blk] * sum_{k in blk} a[m, k] * b[k, n] + bias[n]
inline constexpr int64_t mx_block_size = 32;
struct Mxfp8GemmArgs {
  TensorView a{};       // [M, K] e4m3 | e5m2, row-major
  TensorView b{};       // [K, N] e4m3 | e5m2, column-major
  TensorView scale_a{}; // [M, ceil(K / 32)] e8m0, row-major
  TensorView scale_b{}; // [N, ceil(K / 32)] e8m0, row-major
  TensorView out{};     // [M, N] bf16 | f16 | f32, row-major
  std::optional<TensorView> bias{};
};
GemmProblem validate_mxfp8_gemm(const runtime::Device& device, const Mxfp8GemmArgs& args);
void mxfp8_gemm(runtime::Device& device, const Mxfp8GemmArgs& args);

} // namespace tw::kernels
