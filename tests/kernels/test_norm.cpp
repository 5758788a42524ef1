// RMSNorm and LayerNorm through the host API on the emulator (memcheck on, both emitters)
// against the float64 oracle (statistics over the decoded row) within the accuracy contract.
#include "elementwise_cases.hpp"

#include <kernels/elementwise/elementwise_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("rms_norm: f16, bf16, f32 rows, with and without bias, ragged widths") {
  run_norm(Norm::rms, DType::f16, DType::f16, 3, 96, 1, false);
  run_norm(Norm::rms, DType::bf16, DType::bf16, 2, 100, 2, true);
  run_norm(Norm::rms, DType::f32, DType::f32, 2, 7, 3, false);
  run_norm(Norm::rms, DType::f16, DType::f32, 2, 1, 4, true);
}

TEST_CASE("rms_norm: a row wider than one pass of the workgroup (several runs per thread)") {
  run_norm(Norm::rms, DType::bf16, DType::bf16, 2, 700, 5, false, 0, /*block=*/32);
  run_norm(Norm::rms, DType::f16, DType::f16, 2, 300, 6, true, /*ld_x=*/310, /*block=*/64);
}

TEST_CASE("layer_norm: mean and variance over ragged rows, strided x") {
  run_norm(Norm::layer, DType::f16, DType::f16, 3, 160, 10, true);
  run_norm(Norm::layer, DType::bf16, DType::f32, 2, 40, 11, false, /*ld_x=*/48);
  run_norm(Norm::layer, DType::f32, DType::f32, 2, 384, 12, true, 0, 0, 1e-3f);
}

TEST_CASE("rms_norm / layer_norm: more rows than workgroups (each loops, weight and bias kept)") {
  run_norm(Norm::rms, DType::bf16, DType::bf16, 300, 64, 13, false); // 256 workgroups
  run_norm(Norm::layer, DType::f16, DType::f16, 150, 40, 14, true, /*ld_x=*/48, /*block=*/1024);
  run_norm(Norm::rms, DType::f32, DType::bf16, 1100, 7, 15, true, 0, /*block=*/64); // 1024
}

TEST_CASE("rms_norm / layer_norm: empty tensors launch nothing") {
  run_norm(Norm::rms, DType::f16, DType::f16, 0, 64, 20, true);
  run_norm(Norm::layer, DType::f16, DType::f16, 3, 0, 21, false);
}

TEST_CASE("rms_norm / layer_norm validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView out = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView w = dev.upload(HostTensor(DType::f16, {8}));
  const TensorView w7 = dev.upload(HostTensor(DType::f16, {7}));
  const TensorView wb = dev.upload(HostTensor(DType::bf16, {8}));
  CHECK_THROWS_WITH(kernels::rms_norm(d, {x, w7, std::nullopt, out}),
                    doctest::Contains("rms_norm: argument 'weight' has shape [7]"));
  CHECK_THROWS_WITH(kernels::layer_norm(d, {x, w, wb, out}),
                    doctest::Contains("layer_norm: argument 'bias' has dtype bf16"));
  CHECK_THROWS_WITH(kernels::rms_norm(d, {x, w, std::nullopt, out, -1.0f}),
                    doctest::Contains("parameter 'eps'"));
  CHECK_THROWS_WITH(kernels::rms_norm(d, {x, w, std::nullopt, out, 1e-6f, 100}),
                    doctest::Contains("parameter 'block_size' is 100"));
  const TensorView wide = dev.upload(HostTensor(DType::f16, {1, 20000}));
  const TensorView ww = dev.upload(HostTensor(DType::f16, {20000}));
  CHECK_THROWS_WITH(
      kernels::rms_norm(d, {wide, ww, std::nullopt, wide}),
      doctest::Contains("argument 'x' has rows of 20000 elements; expected at most 16384"));
}

TEST_CASE("adaln: layer norm, then x * (1 + scale) + shift with [rows, N] scale / shift") {
  run_adaln(DType::bf16, DType::bf16, 3, 96, 1);
  run_adaln(DType::f16, DType::f16, 2, 100, 2, /*ld=*/104);
  run_adaln(DType::f32, DType::f16, 2, 7, 3);
  run_adaln(DType::f16, DType::f16, 0, 8, 4);
}

TEST_CASE("adaln validation: scale must have the shape of x") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView s1 = dev.upload(HostTensor(DType::f16, {1, 8}));
  CHECK_THROWS_WITH(kernels::adaln(d, {x, s1, x, x}),
                    doctest::Contains("adaln: argument 'scale' has shape [1, 8]; expected [4, 8]"));
}
