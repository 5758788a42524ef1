// int8 ConvRot through the host API on the emulator (memcheck on, both emitters) against the
// float64 Hadamard rotation (tests/kernels/oracles/quant.hpp, a matrix product, not a
// butterfly): the logical K loaded, the rest of the group zero-filled, the full Hadamard width
// quantized and returned.
#include "elementwise_cases.hpp"

#include <kernels/quant/quant_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("convrot group and width: the next power of two, capped by group_size") {
  CHECK(kernels::convrot_group(100, 256) == 128);
  CHECK(kernels::convrot_width(100, 256) == 128);
  CHECK(kernels::convrot_group(300, 256) == 256);
  CHECK(kernels::convrot_width(300, 256) == 512);
  CHECK(kernels::convrot_width(1, 256) == 1);
  CHECK(kernels::convrot_width(7, 4) == 8);
  CHECK(kernels::convrot_width(4096, 256) == 4096);
}

TEST_CASE("quant_convrot: K 1, 7, 100, 128, 300, 700 with groups 256 and 64") {
  for (int64_t k : {1, 7, 100, 128, 300, 700})
    check_convrot(rows_tensor(DType::bf16, 2, k, uint64_t(k), ValueRange{-3, 3}), 256);
  check_convrot(rows_tensor(DType::f32, 3, 300, 5, ValueRange{-1, 4}), 64, /*ld_q=*/336);
  check_convrot(rows_tensor(DType::f16, 2, 2048, 6, ValueRange{-2, 2}), 2048, 0, /*block=*/64);
  check_convrot(rows_tensor(DType::f16, 2, 40, 7, ValueRange{-2, 2}), 2, 0, /*block=*/32);
}

TEST_CASE("quant_convrot of a one-hot row is the flat row 1 / sqrt(n): all codes +-127") {
  HostTensor x(DType::f32, {1, 5}); // n = 8: y_i = (-1)^popcount(i & 2) * 2 / sqrt(8)
  x.set({0, 2}, 2.0);
  KernelRun run;
  run.in["x"] = x;
  run.out["q"] = HostTensor(DType::int8, {1, 8});
  run.out["scale"] = HostTensor(DType::f32, {1});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_convrot(d, {v["x"], v["q"], v["scale"], 256});
      },
      [&](auto& got) {
        const double want[] = {127, 127, -127, -127, 127, 127, -127, -127};
        for (int j = 0; j < 8; ++j)
          CHECK(got["q"].at({0, j}) == want[j]);
        CHECK(got["scale"].at({0}) == doctest::Approx(2.0 / std::sqrt(8.0) / 127).epsilon(1e-6));
      });
}

TEST_CASE("quant_convrot all-zero rows get scale 1 and codes 0, and empty tensors") {
  check_convrot(HostTensor(DType::bf16, {2, 100}), 256);
  check_convrot(HostTensor(DType::bf16, {0, 100}), 256);
}

TEST_CASE("quant_convrot validation sentences") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {2, 100}));
  const TensorView s = dev.upload(HostTensor(DType::f32, {2}));
  const auto message = [&](const kernels::QuantConvrotArgs& a) {
    try {
      kernels::quant_convrot(d, a);
    } catch (const kernels::ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({x, dev.upload(HostTensor(DType::int8, {2, 100})), s}) ==
        "quant_convrot: argument 'q' has shape [2, 100]; expected [2, 128] (x's shape with the "
        "last dimension the Hadamard width ceil(K / 128) * 128)");
  CHECK(message({x, dev.upload(HostTensor(DType::int8, {2, 128})), s, 96}) ==
        "quant_convrot: parameter 'group_size' is 96; expected a power of two from 2 to 2048");
  CHECK(message({x, dev.upload(HostTensor(DType::int8, {2, 128})), s}) == "no error");
}
