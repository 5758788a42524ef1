// SiLU and SwiGLU through the host API on the emulator (memcheck on, both emitters) against
// the float64 oracle within the accuracy contract: every float dtype, ragged widths, strided
// (column-slice) outputs, in place, empty tensors, and the validation sentences.
#include "elementwise_cases.hpp"

#include <kernels/elementwise/elementwise_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("silu: f16, bf16 and f32 at ragged widths, 128-bit runs and tails") {
  run_silu(DType::f16, DType::f16, 3, 100, 1);
  run_silu(DType::bf16, DType::bf16, 2, 7, 2);
  run_silu(DType::f32, DType::f32, 2, 300, 3);
  run_silu(DType::bf16, DType::f32, 1, 1, 4);
}

TEST_CASE("swiglu: silu(gate) * up into a contiguous and a column-slice out") {
  run_swiglu(DType::f16, DType::f16, 3, 96, 10);
  run_swiglu(DType::bf16, DType::bf16, 2, 40, 11, /*ld_out=*/72); // a 40-column slice of 72
  run_swiglu(DType::f16, DType::f16, 3, 7, 12, /*ld_out=*/13);    // unaligned: scalar runs
  run_swiglu(DType::f32, DType::bf16, 2, 160, 13, 0, /*block=*/64);
}

TEST_CASE("silu and swiglu: empty tensors launch nothing") {
  run_silu(DType::f16, DType::f16, 0, 16, 20);
  run_swiglu(DType::bf16, DType::bf16, 4, 0, 21);
}

TEST_CASE("silu in place: out is the very same view as x") {
  KernelRun k;
  k.out["x"] = rows_tensor(DType::bf16, 2, 24, 30, ValueRange{-4, 4});
  const Reference want = oracle::silu({k.out["x"].view(), k.out["x"].view()});
  k.run(
      [&](runtime::Device& d, auto& v) {
        kernels::silu(d, {v["x"], v["x"]});
      },
      [&](auto& got) { check_close(got["x"], want, activation_tolerance(DType::bf16)); });
}

TEST_CASE("silu / swiglu validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView out = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView wrong = dev.upload(HostTensor(DType::f16, {4, 9}));
  const TensorView ints = dev.upload(HostTensor(DType::int8, {4, 8}));
  CHECK_THROWS_WITH(kernels::silu(d, {ints, out}),
                    doctest::Contains("silu: argument 'x' has dtype int8"));
  CHECK_THROWS_WITH(kernels::silu(d, {x, wrong}), doctest::Contains("argument 'x'"));
  CHECK_THROWS_WITH(kernels::swiglu(d, {x, ints, out}),
                    doctest::Contains("swiglu: argument 'up' has dtype int8"));
  CHECK_THROWS_WITH(kernels::silu(d, {x, out, 48}),
                    doctest::Contains("parameter 'block_size' is 48"));
  TensorView cols = x;
  cols.strides = {1, 4};
  CHECK_THROWS_WITH(kernels::silu(d, {cols, out}), doctest::Contains("expected contiguous rows"));
  HostTensor host(DType::f16, {4, 8});
  CHECK_THROWS_WITH(kernels::silu(d, {host.view(), out}), doctest::Contains("is in host memory"));
}
