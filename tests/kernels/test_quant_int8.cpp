// int8 quantization (tensorwise abs-max or caller scale, rowwise abs-max) and FP8
// dequantization through the host API on the emulator (memcheck on, both emitters): codes and
// scales exactly as the f32 rule gives them, every code within half a code of x / s, and the
// contract's named edge cases.
#include "elementwise_cases.hpp"

#include <kernels/quant/quant_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;
using kernels::QuantGranularity;

TEST_CASE("quant_int8 rowwise: any K (1, 7, 100, 300, 700), scales written out") {
  for (int64_t k : {1, 7, 100, 300, 700})
    check_quant_int8(rows_tensor(DType::f16, 3, k, uint64_t(k), ValueRange{-4, 4}),
                     QuantGranularity::rowwise);
  check_quant_int8(rows_tensor(DType::bf16, 2, 40, 5, ValueRange{-100, 30}),
                   QuantGranularity::rowwise, {}, /*ld_q=*/48);
  check_quant_int8(rows_tensor(DType::f32, 2, 96, 6), QuantGranularity::rowwise);
}

TEST_CASE("quant_int8 tensorwise abs-max: one scale over every row") {
  check_quant_int8(rows_tensor(DType::f16, 5, 100, 10, ValueRange{-3, 3}),
                   QuantGranularity::tensorwise);
  check_quant_int8(rows_tensor(DType::bf16, 3, 7, 11, ValueRange{-50, 2}),
                   QuantGranularity::tensorwise);
}

TEST_CASE("quant_int8 all-zero rows get scale 1 and codes 0") {
  HostTensor x(DType::f16, {2, 9}); // zero-filled
  check_quant_int8(x, QuantGranularity::rowwise);
  check_quant_int8(x, QuantGranularity::tensorwise);
}

TEST_CASE("quant_int8 ties round to even: 0.5, 1.5, 2.5, -2.5 codes of a caller scale") {
  HostTensor x(DType::f32, {1, 6});
  const double halves[] = {0.5, 1.5, 2.5, -2.5, 3.5, -0.5};
  for (int j = 0; j < 6; ++j)
    x.set({0, j}, halves[j] * 0.25); // scale 0.25: x / s lands exactly on the tie
  check_quant_int8(x, QuantGranularity::tensorwise, 0.25f);
  KernelRun run; // the codes themselves: 0, 2, 2, -2, 4, -0
  run.in["x"] = x;
  run.out["q"] = HostTensor(DType::int8, {1, 6});
  run.out["scale"] = HostTensor(DType::f32, {1});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_int8(d, {v["x"], v["q"], v["scale"], QuantGranularity::tensorwise, 0.25f});
      },
      [&](auto& got) {
        const double want[] = {0, 2, 2, -2, 4, 0};
        for (int j = 0; j < 6; ++j)
          CHECK(got["q"].at({0, j}) == want[j]);
      });
}

TEST_CASE("quant_int8 -128 is reachable with a caller scale, 127 clamps") {
  HostTensor x(DType::f32, {1, 4});
  x.set({0, 0}, -128.0);
  x.set({0, 1}, -200.0);
  x.set({0, 2}, 127.4);
  x.set({0, 3}, 300.0);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = HostTensor(DType::int8, {1, 4});
  run.out["scale"] = HostTensor(DType::f32, {1});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_int8(d, {v["x"], v["q"], v["scale"], QuantGranularity::tensorwise, 1.0f});
      },
      [&](auto& got) {
        CHECK(got["q"].at({0, 0}) == -128);
        CHECK(got["q"].at({0, 1}) == -128);
        CHECK(got["q"].at({0, 2}) == 127);
        CHECK(got["q"].at({0, 3}) == 127);
      });
}

TEST_CASE("quant_int8 a negative caller scale flips the codes and is returned signed") {
  const HostTensor x = rows_tensor(DType::f16, 2, 30, 40, ValueRange{-1, 1});
  check_quant_int8(x, QuantGranularity::tensorwise, -0.01f);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = HostTensor(DType::int8, {2, 30});
  run.out["scale"] = HostTensor(DType::f32, {1});
  const Int8Quantized pos =
      oracle::quant_int8({x.view(), run.out["q"].view(), run.out["scale"].view(),
                          QuantGranularity::tensorwise, 0.01f});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_int8(d, {v["x"], v["q"], v["scale"], QuantGranularity::tensorwise, -0.01f});
      },
      [&](auto& got) {
        CHECK(got["scale"].at({0}) == double(-0.01f));
        int64_t not_flipped = 0;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 30; ++j) // |codes| < 128 here: flipping is exact negation
            not_flipped += got["q"].at({i, j}) != -pos.codes.at(i, j);
        CHECK(not_flipped == 0);
      });
}

TEST_CASE("quant_int8 a caller scale of magnitude below 1e-30 is clamped to 1e-30") {
  check_quant_int8(rows_tensor(DType::f32, 1, 8, 50, ValueRange{-1e-28, 1e-28}),
                   QuantGranularity::tensorwise, 1e-35f);
  check_quant_int8(rows_tensor(DType::f32, 1, 8, 51, ValueRange{-1e-28, 1e-28}),
                   QuantGranularity::tensorwise, -0.0f);
}

TEST_CASE("quant_int8 empty tensors: nothing launched, scales still validated") {
  check_quant_int8(HostTensor(DType::f16, {0, 16}), QuantGranularity::rowwise);
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {0, 16}));
  const TensorView q = dev.upload(HostTensor(DType::int8, {0, 16}));
  const TensorView s2 = dev.upload(HostTensor(DType::f32, {2}));
  CHECK_THROWS_WITH(kernels::quant_int8(d, {x, q, s2, QuantGranularity::tensorwise}),
                    doctest::Contains("quant_int8: argument 'scale' has shape [2]"));
}

TEST_CASE("quant_int8 validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView q = dev.upload(HostTensor(DType::int8, {4, 8}));
  const TensorView qf = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView s1 = dev.upload(HostTensor(DType::f32, {1}));
  const TensorView s4 = dev.upload(HostTensor(DType::f32, {4}));
  CHECK_THROWS_WITH(kernels::quant_int8(d, {x, qf, s1}),
                    doctest::Contains("quant_int8: argument 'q' has dtype f16"));
  CHECK_THROWS_WITH(kernels::quant_int8(d, {x, q, s1, QuantGranularity::rowwise}),
                    doctest::Contains("argument 'scale' has shape [1]; expected [4] or [4, 1]"));
  CHECK_THROWS_WITH(kernels::quant_int8(d, {x, q, s4, QuantGranularity::rowwise, 2.0f}),
                    doctest::Contains("parameter 'given_scale'"));
  CHECK_THROWS_WITH(kernels::quant_int8(d, {x, q, s1, QuantGranularity::tensorwise, std::nanf("")}),
                    doctest::Contains("expected a finite scale"));
}

TEST_CASE("dequant_fp8: e4m3 / e5m2 with tensorwise and rowwise scales into bf16, f16, f32") {
  run_dequant(DType::e4m3, DType::bf16, 3, 100, true, 1);
  run_dequant(DType::e5m2, DType::f16, 2, 40, false, 2);
  run_dequant(DType::e4m3, DType::f32, 2, 7, false, 3);
  run_dequant(DType::e5m2, DType::bf16, 4, 300, true, 4);
  run_dequant(DType::e4m3, DType::bf16, 3, 5000, true, 5); // 625 runs: 3 passes of 256 threads
  run_dequant(DType::e5m2, DType::f32, 2, 1, true, 6);
}

TEST_CASE("dequant_awq: packed uint4 weights, per-group zero points and scales") {
  run_dequant_awq(DType::f16, DType::f16, 256, 64, 128, 1);  // two full groups, 128-bit runs
  run_dequant_awq(DType::bf16, DType::bf16, 100, 18, 32, 2); // a partial last group, odd bytes
  run_dequant_awq(DType::f16, DType::f32, 7, 2, 4, 3);
  run_dequant_awq(DType::bf16, DType::f16, 40, 30, 16, 4, /*ld_out=*/34);
  run_dequant_awq(DType::f16, DType::f16, 0, 8, 128, 5);
  run_dequant_awq(DType::f16, DType::bf16, 40, 7, 16, 6); // odd N: a pad nibble per row
  run_dequant_awq(DType::bf16, DType::f32, 5, 1, 2, 7);
}

TEST_CASE("dequant_awq validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView q = dev.upload(HostTensor(DType::uint4, {64, 16}));
  const TensorView z = dev.upload(HostTensor(DType::uint4, {2, 16}));
  const TensorView s = dev.upload(HostTensor(DType::f16, {2, 16}));
  const TensorView out = dev.upload(HostTensor(DType::f16, {64, 16}));
  const TensorView q8 = dev.upload(HostTensor(DType::int8, {64, 16}));
  CHECK_THROWS_WITH(kernels::dequant_awq(d, {q8, z, s, out, 32}),
                    doctest::Contains("dequant_awq: argument 'qweight' has dtype int8"));
  CHECK_THROWS_WITH(kernels::dequant_awq(d, {q, z, s, out, 16}),
                    doctest::Contains("argument 'zeros' has shape [2, 16]; expected [4, 16]"));
  CHECK_THROWS_WITH(kernels::dequant_awq(d, {q, z, s, out, 0}),
                    doctest::Contains("parameter 'group_size' is 0"));
  const TensorView q7 = dev.upload(HostTensor(DType::uint4, {64, 7}, {7, 1}));
  CHECK_THROWS_WITH(kernels::dequant_awq(d, {q7, z, s, out, 32}),
                    doctest::Contains("argument 'qweight' is packed uint4 with leading stride 7 "
                                      "(odd); expected an even leading stride"));
}

TEST_CASE("dequant_fp8 validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::e4m3, {4, 8}));
  const TensorView xf = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView out = dev.upload(HostTensor(DType::bf16, {4, 8}));
  const TensorView out8 = dev.upload(HostTensor(DType::int8, {4, 8}));
  const TensorView s1 = dev.upload(HostTensor(DType::f32, {1}));
  const TensorView s3 = dev.upload(HostTensor(DType::f32, {3}));
  CHECK_THROWS_WITH(kernels::dequant_fp8(d, {xf, s1, out}),
                    doctest::Contains("dequant_fp8: argument 'x' has dtype f16"));
  CHECK_THROWS_WITH(kernels::dequant_fp8(d, {x, s1, out8}),
                    doctest::Contains("dequant_fp8: argument 'out' has dtype int8"));
  CHECK_THROWS_WITH(kernels::dequant_fp8(d, {x, s3, out}),
                    doctest::Contains("dequant_fp8: argument 'scale' has shape [3]"));
  CHECK_THROWS_WITH(kernels::dequant_fp8(d, {x, s1, out, 48}),
                    doctest::Contains("parameter 'block_size' is 48"));
}
