// Stochastic rounding f32 -> e4m3 / e5m2 through the host API on the emulator (memcheck on,
// both emitters): every code equals the oracle's for the same Philox bits (the rule of
// docs/kernels.md, implemented independently in oracles/quant.hpp), and the mean of many
// codes of one value approaches it (the property the rounding exists for).
#include "elementwise_cases.hpp"

#include <kernels/quant/quant_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("quant_fp8_stochastic codes are the Philox rule's, e4m3 and e5m2, widths 1, 7, 300") {
  for (int64_t k : {1, 7, 300}) {
    CAPTURE(k);
    check_fp8_stochastic(rows_tensor(DType::f32, 3, k, uint64_t(k), ValueRange{-8, 8}), DType::e4m3,
                         1234, 0);
    check_fp8_stochastic(rows_tensor(DType::f32, 3, k, uint64_t(k) + 1, ValueRange{-3000, 3000}),
                         DType::e5m2, 99, 17);
  }
}

TEST_CASE("quant_fp8_stochastic uses both 32-bit halves of the seed and the offset") {
  const HostTensor x = rows_tensor(DType::f32, 2, 40, 7, ValueRange{-2, 2});
  check_fp8_stochastic(x, DType::e4m3, 0x123456789abcdefull, 0xfedcba9876543ull, 64);
  check_fp8_stochastic(x, DType::e5m2, 0xffffffff00000001ull, uint64_t(1) << 40);
}

TEST_CASE("quant_fp8_stochastic edge values: exact codes stay, subnormals, saturation, zeros") {
  HostTensor x(DType::f32, {1, 16});
  const double v[] = {0.0,    -0.0, 1.0,   -0.375,  448.0, 470.0,   1e6,     -1e6,
                      0x1p-9, 3e-3, -1e-3, 0x1p-12, 57344, 60000.0, 0x1p-16, -7e-6};
  for (int j = 0; j < 16; ++j)
    x.set({0, j}, v[j]);
  check_fp8_stochastic(x, DType::e4m3, 5, 0);
  check_fp8_stochastic(x, DType::e5m2, 5, 0);
}

TEST_CASE("quant_fp8_stochastic: NaN gives a NaN code, inf the largest finite one") {
  for (DType t : {DType::e4m3, DType::e5m2}) {
    HostTensor x(DType::f32, {1, 3});
    x.set({0, 0}, std::nan(""));
    x.set({0, 1}, std::numeric_limits<double>::infinity());
    x.set({0, 2}, -std::numeric_limits<double>::infinity());
    KernelRun run;
    run.in["x"] = x;
    run.out["q"] = HostTensor(t, {1, 3});
    run.run(
        [&](runtime::Device& d, auto& v) {
          kernels::quant_fp8_stochastic(d, {v["x"], v["q"], 1, 2});
        },
        [&](auto& got) {
          const double max_finite = t == DType::e4m3 ? 448.0 : 57344.0;
          CHECK(std::isnan(got["q"].at({0, 0})));
          CHECK(got["q"].at({0, 1}) == max_finite);
          CHECK(got["q"].at({0, 2}) == -max_finite);
        });
  }
}

TEST_CASE("quant_fp8_stochastic: the mean of many codes of one value approaches it") {
  struct Case {
    DType q;
    double x, lo, hi; // x and its two grid neighbours
  };
  for (const Case& c :
       {Case{DType::e4m3, 0.3, 0.28125, 0.3125}, Case{DType::e4m3, -100.0, -104.0, -96.0},
        Case{DType::e4m3, 0.005, 0.00390625, 0.005859375}, // subnormal neighbours
        Case{DType::e5m2, 1000.7, 896.0, 1024.0}}) {
    CAPTURE(c.x);
    constexpr int64_t n = 4096;
    HostTensor x(DType::f32, {1, n});
    for (int64_t j = 0; j < n; ++j)
      x.set({0, j}, c.x);
    KernelRun run;
    run.in["x"] = x;
    run.out["q"] = HostTensor(c.q, {1, n});
    run.run(
        [&](runtime::Device& d, auto& v) {
          kernels::quant_fp8_stochastic(d, {v["x"], v["q"], 2024, 3});
        },
        [&](auto& got) {
          double sum = 0;
          int64_t at_lo = 0, at_hi = 0;
          for (int64_t j = 0; j < n; ++j) {
            const double q = got["q"].at({0, j});
            sum += q;
            at_lo += q == c.lo;
            at_hi += q == c.hi;
          }
          CHECK(at_lo + at_hi == n); // only the two neighbours
          // Up with probability p = (x - lo) / (hi - lo): the mean's standard deviation is
          // |hi - lo| * sqrt(p (1 - p) / n); allow 5 of them.
          const double p = (float(c.x) - c.lo) / (c.hi - c.lo);
          const double sigma = std::abs(c.hi - c.lo) * std::sqrt(p * (1 - p) / double(n));
          CHECK(std::abs(sum / double(n) - double(float(c.x))) < 5 * sigma);
        });
  }
}

TEST_CASE("quant_fp8_stochastic of an empty tensor writes nothing") {
  KernelRun run;
  run.in["x"] = HostTensor(DType::f32, {0, 8});
  run.out["q"] = HostTensor(DType::e4m3, {0, 8});
  run.run(
      [&](runtime::Device& d, auto& v) {
        kernels::quant_fp8_stochastic(d, {v["x"], v["q"]});
      },
      [&](auto& got) { CHECK(got["q"].bytes().empty()); });
}

TEST_CASE("quant_fp8_stochastic validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f32, {4, 8}));
  const TensorView xh = dev.upload(HostTensor(DType::f16, {4, 8}));
  const TensorView q = dev.upload(HostTensor(DType::e4m3, {4, 8}));
  const TensorView qi = dev.upload(HostTensor(DType::int8, {4, 8}));
  const TensorView q3 = dev.upload(HostTensor(DType::e5m2, {3, 8}));
  CHECK_THROWS_WITH(kernels::quant_fp8_stochastic(d, {xh, q}),
                    doctest::Contains("quant_fp8_stochastic: argument 'x' has dtype f16"));
  CHECK_THROWS_WITH(kernels::quant_fp8_stochastic(d, {x, qi}),
                    doctest::Contains("argument 'q' has dtype int8"));
  CHECK_THROWS_WITH(kernels::quant_fp8_stochastic(d, {x, q3}),
                    doctest::Contains("argument 'q' has shape [3, 8]"));
  CHECK_THROWS_WITH(kernels::quant_fp8_stochastic(d, {x, q, 1, 0, 100}),
                    doctest::Contains("block_size"));
}
