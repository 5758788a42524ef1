// The odd-shapes sweep (issue 12; label slow, CI runs it): every host entry point of the
// element-wise / normalization / quantization family and of the GEMM family at widths and
// shapes that are not tile or vector multiples, with the default block size (no block
// override), through both emitters on the emulator with memcheck, against the oracles. The
// width sweep (test_elementwise_widths.cpp) and the GEMM sweep (test_gemm_sweep.cpp) cover
// many more extents; this one makes sure no host needs a friendly shape.
#include "../elementwise_cases.hpp"
#include "../gemm_cases.hpp"

#include <kernels/gemm/gemm_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::ActQuantMode;
using kernels::DType;

namespace {
// Row widths: prime, past one 256-thread pass of 8-element runs at 2079.
constexpr int64_t widths[] = {33, 259, 2079};
// GEMM shapes {M, N, K}: none a multiple of the 128 x 128 tile, the 16 atom or the K tile.
constexpr std::array<int64_t, 3> gemm_shapes[] = {{33, 45, 71}, {130, 3, 37}};
} // namespace

TEST_CASE("odd shapes: silu, swiglu, rms_norm, layer_norm, adaln") {
  for (int64_t w : widths) {
    run_silu(DType::f16, DType::f16, 3, w, uint64_t(w));
    run_swiglu(DType::bf16, DType::bf16, 3, w, uint64_t(w) + 1);
    run_norm(Norm::rms, DType::bf16, DType::bf16, 3, w, uint64_t(w) + 2, true);
    run_norm(Norm::layer, DType::f16, DType::f32, 3, w, uint64_t(w) + 3, false);
    run_adaln(DType::f16, DType::f16, 3, w, uint64_t(w) + 4);
  }
}

TEST_CASE("odd shapes: rope and rms_norm_rope (head_dim 34, 98, 130)") {
  for (int64_t d : {34, 98, 130}) {
    run_rope({.tokens = 3, .heads = 3, .head_dim = d}, uint64_t(d));
    run_rope({.dtype = DType::bf16,
              .tokens = 3,
              .heads = 2,
              .head_dim = d,
              .style = RopeStyle::interleaved,
              .cache = true,
              .norm = true},
             uint64_t(d) + 1);
  }
}

TEST_CASE("odd shapes: quant_int8, quant_fp8_stochastic, dequant_fp8, dequant_awq") {
  for (int64_t w : widths) {
    check_quant_int8(rows_tensor(DType::bf16, 3, w, uint64_t(w), ValueRange{-3, 3}),
                     QuantGranularity::rowwise);
    check_quant_int8(rows_tensor(DType::f16, 3, w, uint64_t(w) + 1, ValueRange{-3, 3}),
                     QuantGranularity::tensorwise);
    check_fp8_stochastic(rows_tensor(DType::f32, 3, w, uint64_t(w) + 2, ValueRange{-8, 8}),
                         DType::e4m3, uint64_t(w), 2);
    run_dequant(DType::e5m2, DType::f16, 3, w, false, uint64_t(w) + 3);
  }
  run_dequant_awq(DType::bf16, DType::bf16, 37, 34, 16, 5);
  run_dequant_awq(DType::f16, DType::f32, 130, 258, 128, 6);
}

TEST_CASE("odd shapes: quant_svdquant, quant_w4a8, quant_convrot") {
  for (int64_t w : widths) {
    check_svdquant(rows_tensor(DType::bf16, 3, w, uint64_t(w), ValueRange{-2, 2}), 64);
    check_w4a8(rows_tensor(DType::f16, 3, w, uint64_t(w) + 1, ValueRange{-2, 1}), 0, 0);
    check_w4a8(rows_tensor(DType::bf16, 3, w, uint64_t(w) + 2, ValueRange{-2, 1}), 1, 128);
    check_w4a8(rows_tensor(DType::f32, 3, w, uint64_t(w) + 3, ValueRange{-2, 1}), 2, 32);
    check_convrot(rows_tensor(DType::f16, 3, w, uint64_t(w) + 4, ValueRange{-2, 2}), 256);
  }
}

TEST_CASE("odd shapes: gemm, scaled_mm, int8_linear, w8a16, mxfp8_gemm, iu4_gemm") {
  uint64_t seed = 100;
  for (const auto& [m, n, k] : gemm_shapes) {
    run_gemm({m, n, k, DType::bf16, DType::bf16}, seed++);
    run_scaled_mm({m, n, k}, seed++);
    run_int8_linear({m, n, k}, seed++);
    run_w8a16(m, n, k, DType::f16, true, seed++);
    run_mxfp8(m, n, k, DType::e4m3, DType::e5m2, DType::bf16, false, seed++);
    run_iu4({m, n, k}, seed++);
  }
}

TEST_CASE("odd shapes: scaled_mm_fused_quant, int8_linear_fused, scaled_mm_multi") {
  uint64_t seed = 200;
  for (const auto& [m, n, k] : gemm_shapes) {
    run_fused(false, m, n, k, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
              DType::bf16, seed++);
    run_fused(true, m, n, k, DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false,
              DType::f16, seed++, /*lora_rank=*/3);
  }
  ScaledMultiCase c;
  uint64_t workgroups = 0;
  for (const auto& [m, n, k] : gemm_shapes) {
    c.shapes.push_back({m, n, k});
    workgroups += uint64_t((m + 127) / 128) * uint64_t((n + 127) / 128);
  }
  run_scaled_mm_multi(c, seed, workgroups);
}
