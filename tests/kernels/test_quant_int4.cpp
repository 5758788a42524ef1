// The 4-bit quantizers (quant_svdquant, quant_w4a8) through the host API on the emulator
// (memcheck on, both emitters): codes, scales, zero points and corrections exactly as the f32
// rules give them (tests/kernels/oracles/quant.hpp), every code within half a code of x / s',
// and the contract's named cases: the codes use the scale as stored (bf16 / fp16 for
// SVDQuant, e4m3 for W4A8), mode 2 on a negative-heavy row, odd K, all-zero groups.
#include "elementwise_cases.hpp"

#include <kernels/quant/quant_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("quant_svdquant: groups of 64 and 32, any K (odd K packs a zero pad nibble)") {
  for (int64_t k : {1, 7, 64, 100, 300})
    check_svdquant(rows_tensor(DType::bf16, 3, k, uint64_t(k), ValueRange{-4, 4}), 64);
  check_svdquant(rows_tensor(DType::f16, 2, 160, 3, ValueRange{-2, 6}), 32, /*ld_q=*/200);
  check_svdquant(rows_tensor(DType::f16, 2, 700, 4, ValueRange{-1, 1}), 128, 0, /*block=*/64);
}

TEST_CASE("quant_svdquant codes use the scale as stored in bf16, not the f32 amax / 7") {
  // amax 1: s = 1 / 7 = 0.142857.. in f32, 0.142578125 stored in bf16. x = 0.5 gives
  // 0.5 / 0.142857 = 3.4999 -> 3 with the f32 scale, 0.5 / 0.142578 = 3.5068 -> 4 stored.
  HostTensor x(DType::bf16, {1, 8});
  x.set({0, 0}, 1.0);
  x.set({0, 1}, 0.5);
  x.set({0, 2}, -0.5);
  REQUIRE(std::nearbyint(0.5f / (1.0f / 7.0f)) == 3.0f);
  const Int4Quantized want =
      oracle::quant_svdquant({x.view(), packed_codes(DType::int4, 1, 8).view(), {}, 8});
  CHECK(want.group_scale.at(0, 0) == 0.142578125);
  CHECK(want.codes.at(0, 1) == 4);
  CHECK(want.codes.at(0, 2) == -4);
  check_svdquant(x, 8);
  HostTensor h(DType::f16, {2, 16}); // fp16 storage too, with an all-zero row (scale 0, codes 0)
  h.set({0, 0}, 1.0);
  h.set({0, 1}, 0.5);
  check_svdquant(h, 16);
}

TEST_CASE("quant_w4a8 modes 0, 1 and 2 at any K") {
  for (int64_t k : {1, 7, 100, 300, 700}) {
    const HostTensor x = rows_tensor(DType::bf16, 3, k, uint64_t(k), ValueRange{-3, 2});
    check_w4a8(x, 0, 0);
    check_w4a8(x, 1, 128);
    check_w4a8(x, 2, 64);
  }
  const HostTensor f = rows_tensor(DType::f32, 2, 256, 9, ValueRange{-1, 5});
  check_w4a8(f, 1, 32, DType::f32);
  check_w4a8(f, 2, 16, DType::f32, /*correction=*/false);
  check_w4a8(rows_tensor(DType::f16, 2, 4096, 10, ValueRange{-2, 2}), 2, 128, DType::e4m3, true,
             /*block=*/128);
}

TEST_CASE("quant_w4a8 codes and correction use the e4m3-stored relative scale") {
  // Group 0 (amax 7) gives s_0 = 1 and the row scale S = 1 / 448; group 1 (amax 3.3) has
  // s_1 = 0.4714.., r_1 = s_1 / S = 211.2 stored in e4m3 as 208, so s'_1 = 208 / 448 =
  // 0.4643: x = 1.64 is 3.479 -> 3 with the f32 s_1 but 3.532 -> 4 with the stored one.
  HostTensor x(DType::f32, {1, 32});
  x.set({0, 0}, 7.0);
  x.set({0, 16}, 3.3);
  x.set({0, 17}, 1.64);
  x.set({0, 18}, -3.3);
  HostTensor gs(DType::e4m3, {1, 2});
  kernels::QuantW4a8Args a{x.view(), packed_codes(DType::int4, 1, 32).view(), {}, gs.view()};
  a.group_size = 16;
  const Int4Quantized want = oracle::quant_w4a8(a);
  CHECK(want.group_scale.at(0, 1) == 208.0);
  CHECK(std::nearbyint(1.64f / (3.3f / 7.0f)) == 3.0f);
  CHECK(want.codes.at(0, 17) == 4);
  check_w4a8(x, 1, 16);
  // Mode 2: the zero point and the correction z * s' use the stored scale too.
  HostTensor y(DType::f32, {1, 32});
  y.set({0, 0}, 15.0);  // group 0: [0, 15], s_0 = 1, S = 1 / 448
  y.set({0, 16}, -3.3); // group 1: [-3.3, 0.6], s_1 = 0.26, r_1 = 116.48 -> 120 in e4m3
  y.set({0, 17}, 0.6);
  y.set({0, 18}, -1.0);
  kernels::QuantW4a8Args b{y.view(), packed_codes(DType::uint4, 1, 32).view(), {}, gs.view()};
  b.mode = 2;
  b.group_size = 16;
  const Int4Quantized want2 = oracle::quant_w4a8(b);
  const float stored = 120.0f * (1.0f / 448.0f); // s'_1
  CHECK(want2.group_scale.at(0, 1) == 120.0);
  // z = 3.3 / s'_1 = 12.3 -> 12 with the stored scale, 3.3 / 0.26 = 12.7 -> 13 with the f32 one.
  CHECK(std::nearbyint(3.3f / (3.9f / 15.0f)) == 13.0f);
  CHECK(want2.zeros.at(0, 1) == 12);
  CHECK(want2.correction.at(0, 1) == double(12.0f * stored));
  check_w4a8(y, 2, 16);
}

TEST_CASE("quant_w4a8 mode 2 on a negative-heavy row: the zero point near 15, codes exact") {
  const HostTensor x = rows_tensor(DType::bf16, 2, 96, 21, ValueRange{-10, 0.5});
  const Int4Quantized want = oracle::quant_w4a8({x.view(),
                                                 packed_codes(DType::uint4, 2, 96).view(),
                                                 {},
                                                 HostTensor(DType::e4m3, {2, 3}).view(),
                                                 {},
                                                 {},
                                                 2,
                                                 32});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t g = 0; g < 3; ++g)
      CHECK(want.zeros.at(i, g) >= 12);
  check_w4a8(x, 2, 32);
  check_w4a8(x, 2, 32, DType::f32);
}

TEST_CASE("quant_w4a8 all-zero rows and groups: scale 1 (two-level) or 0, codes 0") {
  HostTensor x(DType::f16, {2, 40});
  for (int64_t j = 0; j < 8; ++j)
    x.set({1, j}, 0.25 * double(j)); // row 1: one non-zero group of 8, the rest zero
  check_w4a8(x, 0, 0);
  check_w4a8(x, 1, 8);
  check_w4a8(x, 2, 8);
}

TEST_CASE("quant_w4a8 and quant_svdquant validation sentences") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::bf16, {2, 64}));
  const TensorView q4 = dev.upload(packed_codes(DType::int4, 2, 64));
  const TensorView u4 = dev.upload(packed_codes(DType::uint4, 2, 64));
  const TensorView s = dev.upload(HostTensor(DType::f32, {2}));
  const TensorView gs = dev.upload(HostTensor(DType::e4m3, {2, 1}));
  const TensorView z = dev.upload(HostTensor(DType::uint8, {2, 1}));
  const auto message = [&](const kernels::QuantW4a8Args& a) {
    try {
      kernels::quant_w4a8(d, a);
    } catch (const kernels::ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  kernels::QuantW4a8Args a{x, q4, s, gs};
  a.group_size = 64;
  CHECK(message(a) == "no error");
  a.mode = 3;
  CHECK(message(a) == "quant_w4a8: parameter 'mode' is 3; expected 0 (per channel), 1 (per "
                      "group, symmetric) or 2 (per group, asymmetric with a zero point)");
  a.mode = 1;
  a.group_size = 100;
  CHECK(message(a) ==
        "quant_w4a8: parameter 'group_size' is 100; expected a power of two from 2 to 2048");
  a.group_size = 64;
  a.group_scale.reset();
  CHECK(message(a) == "quant_w4a8: argument 'group_scale' is missing with mode 1; expected it "
                      "for modes 1 and 2 only");
  a.group_scale = gs;
  a.mode = 2;
  CHECK(message(a).starts_with("quant_w4a8: argument 'q' has dtype int4; expected"));
  a.q = u4;
  CHECK(message(a) == "quant_w4a8: argument 'zeros' is missing with mode 2; expected it for "
                      "mode 2 only");
  a.zeros = z;
  CHECK(message(a) == "no error");
  a.group_size = 32;
  CHECK(message(a).starts_with("quant_w4a8: argument 'group_scale' has shape [2, 1]; expected"));
  HostTensor odd(DType::int4, {2, 5}, {7, 1});
  kernels::QuantSvdquantArgs sv{dev.upload(HostTensor(DType::f16, {2, 5})), dev.upload(odd),
                                dev.upload(HostTensor(DType::f16, {2, 1}))};
  try {
    kernels::quant_svdquant(d, sv);
    FAIL("no error for an odd row stride of q");
  } catch (const kernels::ArgumentError& e) {
    CHECK(std::string(e.what()) ==
          "quant_svdquant: argument 'q' has layout [2, 5] with strides [7, 1] (an odd row "
          "stride); expected an even row stride so every row of packed 4-bit codes starts on a "
          "byte");
  }
  sv.q = dev.upload(packed_codes(DType::int4, 2, 5));
  sv.scale = dev.upload(HostTensor(DType::bf16, {2, 1}));
  try {
    kernels::quant_svdquant(d, sv);
    FAIL("no error for a bf16 scale of f16 x");
  } catch (const kernels::ArgumentError& e) {
    CHECK(std::string(e.what()).starts_with("quant_svdquant: argument 'scale' has dtype bf16"));
  }
}

TEST_CASE("quant_svdquant and quant_w4a8 on empty tensors validate and write nothing") {
  check_svdquant(HostTensor(DType::bf16, {0, 64}), 64);
  check_w4a8(HostTensor(DType::f16, {0, 32}), 2, 16);
}
