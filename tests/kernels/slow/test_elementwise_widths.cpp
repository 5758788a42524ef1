// The issue-12 width sweep (label slow): every element-wise, normalization, RoPE and
// quantization kernel at widths 1, 7, 40, 80, 96, 100, 160, 300, 384, 700, 4096 (and an empty
// tensor), through both emitters on the emulator with memcheck, against the oracles.
#include "../elementwise_cases.hpp"

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("width sweep: silu and swiglu") {
  for (int64_t w : sweep_widths) {
    run_silu(DType::bf16, DType::bf16, 2, w, uint64_t(w));
    run_swiglu(DType::f16, DType::f16, 2, w, uint64_t(w) + 1);
  }
  run_silu(DType::f16, DType::f16, 0, 0, 1);
}

TEST_CASE("width sweep: rms_norm, layer_norm and adaln") {
  for (int64_t w : sweep_widths) {
    run_norm(Norm::rms, DType::f16, DType::f16, 2, w, uint64_t(w), true);
    run_norm(Norm::layer, DType::bf16, DType::bf16, 2, w, uint64_t(w) + 1, false);
    run_adaln(DType::bf16, DType::bf16, 2, w, uint64_t(w) + 2);
  }
  run_norm(Norm::rms, DType::f16, DType::f16, 0, 0, 2, false);
  run_norm(Norm::layer, DType::bf16, DType::bf16, 0, 0, 3, true);
  run_adaln(DType::f16, DType::f16, 0, 0, 4);
}

TEST_CASE("width sweep: rope and rms_norm_rope with head_dim = the width (even widths)") {
  for (int64_t w : sweep_widths) {
    if (w % 2 != 0)
      continue;
    run_rope({.tokens = 2, .heads = 1, .head_dim = w}, uint64_t(w));
    run_rope({.dtype = DType::bf16,
              .tokens = 2,
              .heads = 1,
              .head_dim = w,
              .style = RopeStyle::interleaved,
              .norm = true},
             uint64_t(w) + 1);
  }
  // Odd widths have no even head_dim (the validation test names the rule); empty tensors:
  run_rope({.tokens = 0, .heads = 1, .head_dim = 40}, 1);
  run_rope({.tokens = 0, .heads = 1, .head_dim = 40, .norm = true}, 2);
}

TEST_CASE("width sweep: quant_int8 rowwise and tensorwise, quant_fp8_stochastic, dequant_fp8") {
  for (int64_t w : sweep_widths) {
    check_quant_int8(rows_tensor(DType::f16, 2, w, uint64_t(w), ValueRange{-3, 3}),
                     QuantGranularity::rowwise);
    check_quant_int8(rows_tensor(DType::bf16, 2, w, uint64_t(w) + 1, ValueRange{-3, 3}),
                     QuantGranularity::tensorwise);
    run_dequant(DType::e4m3, DType::bf16, 2, w, true, uint64_t(w) + 2);
    check_fp8_stochastic(rows_tensor(DType::f32, 2, w, uint64_t(w) + 3, ValueRange{-8, 8}),
                         w % 2 ? DType::e4m3 : DType::e5m2, uint64_t(w), 1);
  }
  check_quant_int8(HostTensor(DType::f16, {0, 0}), QuantGranularity::rowwise);
  check_quant_int8(HostTensor(DType::bf16, {0, 0}), QuantGranularity::tensorwise);
  run_dequant(DType::e4m3, DType::bf16, 0, 0, true, 3);
  run_dequant(DType::e5m2, DType::f16, 0, 0, false, 4);
  check_fp8_stochastic(HostTensor(DType::f32, {0, 0}), DType::e4m3, 5, 0);
}

TEST_CASE("width sweep: dequant_awq (N = every width, odd ones with a pad nibble, and K = every "
          "width, groups of 32 rows)") {
  for (int64_t w : sweep_widths) {
    run_dequant_awq(DType::f16, DType::f16, 40, w, 32, uint64_t(w));
    run_dequant_awq(DType::bf16, DType::f32, w, 18, 32, uint64_t(w) + 1);
  }
  run_dequant_awq(DType::bf16, DType::bf16, 0, 0, 32, 1);
}

TEST_CASE("width sweep: quant_svdquant, quant_w4a8 (modes 0, 1, 2), quant_convrot") {
  for (int64_t w : sweep_widths) {
    check_svdquant(rows_tensor(DType::f16, 2, w, uint64_t(w), ValueRange{-3, 3}), 64);
    check_w4a8(rows_tensor(DType::bf16, 2, w, uint64_t(w) + 1, ValueRange{-2, 3}), int(w % 3), 128,
               w % 2 ? DType::e4m3 : DType::f32);
    check_convrot(rows_tensor(DType::bf16, 2, w, uint64_t(w) + 2, ValueRange{-3, 3}), 256);
  }
  check_svdquant(HostTensor(DType::bf16, {0, 0}), 64);
  check_convrot(HostTensor(DType::f16, {0, 0}), 256);
  for (int mode : {0, 1, 2})
    check_w4a8(HostTensor(DType::f16, {0, 0}), mode, 128);
}
