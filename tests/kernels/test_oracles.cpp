// The references of oracles.hpp (GEMM and attention), checked on tiny cases whose expected
// values are derived by hand (the derivation is in the comments), on algebraic properties
// and, for Philox, on published known-answer vectors. Nothing here compares an oracle with
// itself under the same arguments.
#include "oracles.hpp"
// (oracles.hpp does not include the MLA reference: the other kernel tests do not need it)
#include "oracles/mla_decode.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;
using kernels::HostTensor;

namespace {

// A host tensor of `dtype` holding `values` (row-major logical order) in the given strides.
HostTensor filled(DType dtype, kernels::Extents shape, std::initializer_list<double> values,
                  kernels::Extents strides = {}) {
  HostTensor t(dtype, shape, strides);
  REQUIRE(int64_t(values.size()) == t.view().numel());
  auto it = values.begin();
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < (shape.size() > 1 ? shape[1] : 1); ++j) {
      if (shape.size() > 1)
        t.set({i, j}, *it++);
      else
        t.set({i}, *it++);
    }
  return t;
}

HostTensor scalar(double v) {
  return filled(DType::f32, {1}, {v});
}

kernels::Extents col_major(kernels::Extents shape) {
  return kernels::column_major_strides(shape);
}

} // namespace

TEST_CASE("oracle gemm: alpha, beta, c and bias on a 2x2 case") {
  // a = [[1, 2], [3, 4]], b = [[5, 6], [7, 8]]  ->  a @ b = [[19, 22], [43, 50]]
  // out = 0.5 * ab + 2 * c + bias, c = [[1, 0], [0, -1]], bias = [0.25, -0.5]
  //     = [[9.5 + 2 + 0.25, 11 + 0 - 0.5], [21.5 + 0 + 0.25, 25 - 2 - 0.5]]
  //     = [[11.75, 10.5], [21.75, 22.5]]
  const HostTensor a = filled(DType::f16, {2, 2}, {1, 2, 3, 4});
  const HostTensor b = filled(DType::f16, {2, 2}, {5, 6, 7, 8}, col_major({2, 2}));
  const HostTensor c = filled(DType::f32, {2, 2}, {1, 0, 0, -1});
  const HostTensor bias = filled(DType::f32, {2}, {0.25, -0.5});
  const HostTensor out(DType::f32, {2, 2});
  kernels::GemmArgs args{a.view(), b.view(), out.view(), c.view(), bias.view(), 0.5f, 2.0f};
  const Reference r = gemm(args);
  CHECK(r.value.at(0, 0) == 11.75);
  CHECK(r.value.at(0, 1) == 10.5);
  CHECK(r.value.at(1, 0) == 21.75);
  CHECK(r.value.at(1, 1) == 22.5);
  // |terms| of (1,1): 0.5 * (3*6 + 4*8) + |2 * -1| + |-0.5| = 25 + 2 + 0.5
  CHECK(r.accum_magnitude.at(1, 1) == 27.5);
  // beta = 0 ignores c entirely: out(0,0) = 0.5 * 19 + 0.25
  args.beta = 0.0f;
  CHECK(gemm(args).value.at(0, 0) == 9.75);
}

TEST_CASE("oracle gemm: bf16 inputs are the decoded (rounded) values") {
  // 1 + 2^-8 is a tie between bf16 neighbours 1 and 1 + 2^-7: nearest even stores 1.0, so
  // the product with 3 is exactly 3, not 3.01171875.
  const HostTensor a = filled(DType::bf16, {1, 1}, {1.00390625});
  const HostTensor b = filled(DType::bf16, {1, 1}, {3});
  const HostTensor out(DType::bf16, {1, 1});
  CHECK(gemm({a.view(), b.view(), out.view()}).value.at(0, 0) == 3.0);
}

TEST_CASE("oracle gemm: alpha and beta are linear") {
  const int64_t m = 5, n = 7, k = 9;
  const HostTensor a = random_tensor(DType::f16, {m, k}, 1);
  const HostTensor b = random_tensor(DType::f16, {k, n}, 2, std::nullopt, col_major({k, n}));
  const HostTensor c = random_tensor(DType::f32, {m, n}, 3);
  const HostTensor out(DType::f32, {m, n});
  const Reference ab = gemm({a.view(), b.view(), out.view()});
  const Reference mixed =
      gemm({a.view(), b.view(), out.view(), c.view(), std::nullopt, -1.5f, 0.75f});
  const Matrix cv = decode_matrix(c.view());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      CHECK(mixed.value.at(i, j) ==
            doctest::Approx(-1.5 * ab.value.at(i, j) + 0.75 * cv.at(i, j)).epsilon(1e-14));
}

TEST_CASE("oracle gemm: the memory order of b does not change the result") {
  // The same logical b stored row-major and column-major decodes to the same matrix.
  const int64_t m = 3, n = 4, k = 6;
  const HostTensor a = random_tensor(DType::bf16, {m, k}, 11);
  const HostTensor b_row = random_tensor(DType::bf16, {k, n}, 12);
  HostTensor b_col(DType::bf16, {k, n}, col_major({k, n}));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      b_col.set_code({i, j}, b_row.code({i, j}));
  CHECK(b_col.bytes() != b_row.bytes()); // really a different storage
  const HostTensor out(DType::f32, {m, n});
  const Reference r1 = gemm({a.view(), b_row.view(), out.view()});
  const Reference r2 = gemm({a.view(), b_col.view(), out.view()});
  CHECK(r1.value.v == r2.value.v);
}

TEST_CASE("oracle scaled_mm: tensorwise e4m3 x e5m2 with bias") {
  // a = [0.5, 3] (e4m3), b = [4, -1.5]^T (e5m2: 1.5 = 1.1b fits 2 mantissa bits)
  // a @ b = 2 - 4.5 = -2.5; * scale_a 2 * scale_b 0.25 = -1.25; + bias 1 = -0.25
  const HostTensor a = filled(DType::e4m3, {1, 2}, {0.5, 3});
  const HostTensor b = filled(DType::e5m2, {2, 1}, {4, -1.5}, col_major({2, 1}));
  const HostTensor sa = scalar(2), sb = scalar(0.25);
  const HostTensor bias = filled(DType::bf16, {1}, {1});
  const HostTensor out(DType::bf16, {1, 1});
  const Reference r =
      scaled_mm({a.view(), b.view(), sa.view(), sb.view(), out.view(), bias.view()});
  CHECK(r.value.at(0, 0) == -0.25);
}

TEST_CASE("oracle scaled_mm: rowwise scales") {
  // a = [[1], [2]], b = [[3, 5]] -> ab = [[3, 5], [6, 10]]
  // scale_a = [2, 0.5] (rows), scale_b = [1, 10] (columns)
  // out = [[3*2*1, 5*2*10], [6*0.5*1, 10*0.5*10]] = [[6, 100], [3, 50]]
  const HostTensor a = filled(DType::e4m3, {2, 1}, {1, 2});
  const HostTensor b = filled(DType::e4m3, {1, 2}, {3, 5}, col_major({1, 2}));
  const HostTensor sa = filled(DType::f32, {2, 1}, {2, 0.5});
  const HostTensor sb = filled(DType::f32, {1, 2}, {1, 10});
  const HostTensor out(DType::f32, {2, 2});
  const Reference r = scaled_mm({a.view(), b.view(), sa.view(), sb.view(), out.view()});
  CHECK(r.value.at(0, 0) == 6);
  CHECK(r.value.at(0, 1) == 100);
  CHECK(r.value.at(1, 0) == 3);
  CHECK(r.value.at(1, 1) == 50);
}

TEST_CASE("oracle scaled_mm: rowwise scales that are all equal give the tensorwise result") {
  const int64_t m = 6, n = 5, k = 19;
  const HostTensor a = random_tensor(DType::e5m2, {m, k}, 21);
  const HostTensor b = random_tensor(DType::e4m3, {k, n}, 22, std::nullopt, col_major({k, n}));
  HostTensor sa_row(DType::f32, {m}), sb_row(DType::f32, {n});
  for (int64_t i = 0; i < m; ++i)
    sa_row.set({i}, 0.375);
  for (int64_t j = 0; j < n; ++j)
    sb_row.set({j}, 3.0);
  const HostTensor sa = scalar(0.375), sb = scalar(3.0);
  const HostTensor out(DType::f16, {m, n});
  const Reference t = scaled_mm({a.view(), b.view(), sa.view(), sb.view(), out.view()});
  const Reference r = scaled_mm({a.view(), b.view(), sa_row.view(), sb_row.view(), out.view()});
  CHECK(t.value.v == r.value.v);
  // ... and the scale is a plain factor of the unscaled product: 0.375 * 3 = 1.125.
  const HostTensor one = scalar(1.0);
  const Reference u = scaled_mm({a.view(), b.view(), one.view(), one.view(), out.view()});
  for (size_t e = 0; e < u.value.v.size(); ++e)
    CHECK(t.value.v[e] == 1.125 * u.value.v[e]);
}

TEST_CASE("oracle scaled_mm_multi: each problem is its own scaled_mm") {
  // problem 0: [2] . [3] * 1 * 1 = 6; problem 1: [1, 1] . [0.5, 0.25] * 4 * 1 = 3
  const HostTensor a0 = filled(DType::e4m3, {1, 1}, {2}), b0 = filled(DType::e4m3, {1, 1}, {3});
  const HostTensor a1 = filled(DType::e4m3, {1, 2}, {1, 1});
  const HostTensor b1 = filled(DType::e4m3, {2, 1}, {0.5, 0.25}, col_major({2, 1}));
  const HostTensor one = scalar(1), four = scalar(4);
  const HostTensor o0(DType::f32, {1, 1}), o1(DType::f32, {1, 1});
  kernels::ScaledMmMultiArgs args;
  args.problems.push_back({a0.view(), b0.view(), one.view(), one.view(), o0.view()});
  args.problems.push_back({a1.view(), b1.view(), four.view(), one.view(), o1.view()});
  const std::vector<Reference> r = scaled_mm_multi(args);
  REQUIRE(r.size() == 2);
  CHECK(r[0].value.at(0, 0) == 6);
  CHECK(r[1].value.at(0, 0) == 3);
}

TEST_CASE("oracle activation quantization: dynamic rowwise e4m3") {
  // x = [1, -2, 0.5, 4]: amax 4, s = fl32(4 / 448), inv = fl32(1 / s) ~ 112, and
  // y = x * inv ~ [112, -224, 56, 448], all e4m3 values (step 8 in [64, 128), 16 in [128, 256),
  // 32 in [256, 448]), so the codes are:
  //   112 = 1.75 * 2^6: sign 0, exponent 6 + 7 = 1101, mantissa 110 -> 0x6E
  //  -224 = -1.75 * 2^7: 1 1110 110 -> 0xF6
  //    56 = 1.75 * 2^5: 0 1100 110 -> 0x66
  //   448 = 1.75 * 2^8: 0 1111 110 -> 0x7E (the largest finite e4m3)
  const HostTensor x = filled(DType::bf16, {1, 4}, {1, -2, 0.5, 4});
  kernels::ActivationQuant q;
  q.dtype = DType::e4m3;
  q.mode = kernels::ActQuantMode::dynamic_rowwise;
  const QuantizedActivation qa = quantize_activation(x.view(), q);
  REQUIRE(qa.codes.size() == 4);
  CHECK(qa.codes[0] == 0x6E);
  CHECK(qa.codes[1] == 0xF6);
  CHECK(qa.codes[2] == 0x66);
  CHECK(qa.codes[3] == 0x7E);
  CHECK(qa.q.at(0, 1) == -224);
  CHECK(qa.scale[0] == double(4.0f / 448.0f));
}

TEST_CASE("oracle activation quantization: all-zero rows use scale 1, e5m2 saturates") {
  // Row 0 is zero: s = 1 and every code 0. Row 1 = [60000, -1]: amax 60000 is past e5m2's
  // largest finite value 57344 only before scaling; with s = 60000 / 57344 the row maps to
  // [~57344, ~-0.956] -> 57344 (0x7B) and -0.956 -> e5m2 neighbours -0.875 / -1.0: it is
  // nearer -1.0 (0xBC: 1 01111 00).
  const HostTensor x = filled(DType::f16, {2, 2}, {0, 0, 60000, -1});
  kernels::ActivationQuant q;
  q.dtype = DType::e5m2;
  const QuantizedActivation qa = quantize_activation(x.view(), q);
  CHECK(qa.scale[0] == 1.0);
  CHECK(qa.codes[0] == 0x00);
  CHECK(qa.codes[1] == 0x00);
  CHECK(qa.codes[2] == 0x7B);
  CHECK(qa.codes[3] == 0xBC);
}

TEST_CASE("oracle activation quantization: given scale, int8 ties to even and clamps") {
  // s = 0.5 -> inv = 2: x = [1.25, -1.25, 0.75, 100, -100] -> y = [2.5, -2.5, 1.5, 200, -200]
  // round half to even: 2, -2, 2; clamp: 127, -128.
  const HostTensor x = filled(DType::f16, {1, 5}, {1.25, -1.25, 0.75, 100, -100});
  const HostTensor s = scalar(0.5);
  kernels::ActivationQuant q{DType::int8, kernels::ActQuantMode::given_scale, s.view(), {}};
  const QuantizedActivation qa = quantize_activation(x.view(), q);
  CHECK(qa.q.at(0, 0) == 2);
  CHECK(qa.q.at(0, 1) == -2);
  CHECK(qa.q.at(0, 2) == 2);
  CHECK(qa.q.at(0, 3) == 127);
  CHECK(qa.q.at(0, 4) == -128);
}

TEST_CASE("oracle activation quantization: e4m3 saturates instead of NaN") {
  // s = 1: 1000 is past 448; saturation stores 448 (0x7E), not NaN (0x7F).
  const HostTensor x = filled(DType::bf16, {1, 1}, {1000});
  const HostTensor s = scalar(1);
  kernels::ActivationQuant q{DType::e4m3, kernels::ActQuantMode::given_scale, s.view(), {}};
  CHECK(quantize_activation(x.view(), q).codes[0] == 0x7E);
}

TEST_CASE("oracle scaled_mm_fused_quant: dequantizes with the row scale") {
  // x = [1, -2] (bf16): amax 2, s = fl32(2 / 448) = fl32(1 / 224), q ~ [224, -448] (exact
  // e4m3 values), b = [1, 1]^T, scale_b 1: out = (224 - 448) * s = -224 * fl32(1/224) ~ -1
  // (fl32 is within 2^-24 relative).
  const HostTensor x = filled(DType::bf16, {1, 2}, {1, -2});
  const HostTensor b = filled(DType::e4m3, {2, 1}, {1, 1}, col_major({2, 1}));
  const HostTensor sb = scalar(1);
  const HostTensor out(DType::bf16, {1, 1});
  kernels::ScaledMmFusedQuantArgs args;
  args.x = x.view();
  args.quant.dtype = DType::e4m3;
  args.b = b.view();
  args.scale_b = sb.view();
  args.out = out.view();
  const Reference r = scaled_mm_fused_quant(args);
  CHECK(r.value.at(0, 0) == -224.0 * double(2.0f / 448.0f));
  CHECK(std::abs(r.value.at(0, 0) + 1.0) < 1e-6);
}

TEST_CASE("oracle w8a16: per-channel scale and bias") {
  // x = [1, 0.5, -2], weight = [[1, 2, 3], [-4, 0, 127]], scale = [0.5, fl32(0.01)],
  // bias = [1, 0]:  n=0: (1 + 1 - 6) * 0.5 + 1 = -1;  n=1: (-4 + 0 - 254) * fl32(0.01).
  const HostTensor x = filled(DType::f16, {1, 3}, {1, 0.5, -2});
  const HostTensor w = filled(DType::int8, {2, 3}, {1, 2, 3, -4, 0, 127});
  const HostTensor scale = filled(DType::f32, {2}, {0.5, double(0.01f)});
  const HostTensor bias = filled(DType::f16, {2}, {1, 0});
  const HostTensor out(DType::f16, {1, 2});
  const Reference r = w8a16({x.view(), w.view(), scale.view(), out.view(), bias.view()});
  CHECK(r.value.at(0, 0) == -1.0);
  CHECK(r.value.at(0, 1) == -258.0 * double(0.01f));
}

TEST_CASE("oracle int8_linear: exact integer accumulation, scales in the epilogue") {
  // x = [127, -128], weight = [[127, 127]]: 127*127 - 128*127 = -127; * 0.5 * 2 = -127
  const HostTensor x = filled(DType::int8, {1, 2}, {127, -128});
  const HostTensor w = filled(DType::int8, {1, 2}, {127, 127});
  const HostTensor xs = scalar(0.5), ws = scalar(2);
  const HostTensor out(DType::f32, {1, 1});
  CHECK(int8_linear({x.view(), w.view(), xs.view(), ws.view(), out.view()}).value.at(0, 0) == -127);

  // K = 1025: 1024 terms of (-128)(-128) = 2^14 give 2^24, one more term 1 * 1: the exact
  // sum is 2^24 + 1 = 16777217, which an f32 accumulator could not hold.
  const int64_t k = 1025;
  HostTensor xk(DType::int8, {1, k}), wk(DType::int8, {1, k});
  for (int64_t i = 0; i < k - 1; ++i) {
    xk.set({0, i}, -128);
    wk.set({0, i}, -128);
  }
  xk.set({0, k - 1}, 1);
  wk.set({0, k - 1}, 1);
  const HostTensor one = scalar(1);
  const Reference r = int8_linear({xk.view(), wk.view(), one.view(), one.view(), out.view()});
  CHECK(r.value.at(0, 0) == 16777217.0);
}

TEST_CASE("oracle int8_linear_fused: in-kernel quantization plus LoRA") {
  // x = [2, -1] (f16), given scale 0.5 -> codes [4, -2]; weight [[3, 5]]:
  // acc = 12 - 10 = 2; * s 0.5 * w_scale 1 = 1.
  // LoRA: down [[1, 1]] -> t = 2 - 1 = 1; up [[3]] -> 3; * lora.scale 0.5 = 1.5. out = 2.5.
  const HostTensor x = filled(DType::f16, {1, 2}, {2, -1});
  const HostTensor s = scalar(0.5), ws = scalar(1);
  const HostTensor w = filled(DType::int8, {1, 2}, {3, 5});
  const HostTensor down = filled(DType::f16, {1, 2}, {1, 1});
  const HostTensor up = filled(DType::f16, {1, 1}, {3});
  const HostTensor out(DType::f32, {1, 1});
  kernels::Int8LinearFusedArgs args;
  args.x = x.view();
  args.quant = {DType::int8, kernels::ActQuantMode::given_scale, s.view(), {}};
  args.weight = w.view();
  args.w_scale = ws.view();
  args.out = out.view();
  args.lora = kernels::LoraArgs{down.view(), up.view(), 0.5f};
  const Reference r = int8_linear_fused(args);
  CHECK(r.value.at(0, 0) == 2.5);
  // The LoRA part that flows through t: |0.5 * 1 * 3| = 1.5.
  CHECK(r.lora_magnitude.at(0, 0) == 1.5);
}

TEST_CASE("oracle iu4_gemm: signed x unsigned nibbles, exact") {
  // a = [-8, 7, -1, 2] (int4), b = [15, 1, 3, 0]^T (uint4):
  // -120 + 7 - 3 + 0 = -116
  const HostTensor a = filled(DType::int4, {1, 4}, {-8, 7, -1, 2});
  const HostTensor b = filled(DType::uint4, {4, 1}, {15, 1, 3, 0}, col_major({4, 1}));
  // Packing: element 2i in the low nibble: bytes (7 << 4 | 0x8) = 0x78, (2 << 4 | 0xF) = 0x2F.
  CHECK(a.bytes() == std::vector<uint8_t>{0x78, 0x2F});
  CHECK(b.bytes() == std::vector<uint8_t>{0x1F, 0x03});
  const HostTensor out(DType::i32, {1, 1});
  CHECK(iu4_gemm({a.view(), b.view(), out.view()}).value.at(0, 0) == -116);
  // Read as unsigned, a's nibbles are [8, 7, 15, 2]: 120 + 7 + 45 + 0 = 172.
  HostTensor au(DType::uint4, {1, 4});
  au.bytes() = a.bytes();
  CHECK(iu4_gemm({au.view(), b.view(), out.view()}).value.at(0, 0) == 172);
}

TEST_CASE("oracle mxfp8_gemm: one e8m0 scale per 32-element K block") {
  // a = ones [1, K], b = ones [K, 1]; scale_a codes [127, 128] = [1, 2],
  // scale_b codes [126, 130] = [0.5, 8].
  // K = 64: 32 * 1 * 0.5 + 32 * 2 * 8 = 16 + 512 = 528.
  // K = 40 (partial last block of 8): 32 * 0.5 + 8 * 16 = 144.
  for (const auto& [k, want] : {std::pair<int64_t, double>{64, 528}, {40, 144}}) {
    HostTensor a(DType::e4m3, {1, k}), b(DType::e4m3, {k, 1}, col_major({k, 1}));
    for (int64_t i = 0; i < k; ++i) {
      a.set({0, i}, 1);
      b.set({i, 0}, 1);
    }
    HostTensor sa(DType::e8m0, {1, 2}), sb(DType::e8m0, {1, 2});
    sa.set_code({0, 0}, 127);
    sa.set_code({0, 1}, 128);
    sb.set_code({0, 0}, 126);
    sb.set_code({0, 1}, 130);
    const HostTensor out(DType::f32, {1, 1});
    CHECK(mxfp8_gemm({a.view(), b.view(), sa.view(), sb.view(), out.view()}).value.at(0, 0) ==
          want);
  }
}

TEST_CASE("oracle mxfp8_gemm: a block scale of 2^k equals scaling that block's inputs") {
  // Multiplying a's block 1 by 4 (exact in e4m3 for |a| <= 2) and lowering its scale code
  // by 2 (a factor 1/4) leaves every output unchanged.
  const int64_t m = 3, n = 4, k = 70, blocks = 3;
  const HostTensor a = random_tensor(DType::e4m3, {m, k}, 31);
  const HostTensor b = random_tensor(DType::e5m2, {k, n}, 32, std::nullopt, col_major({k, n}));
  const HostTensor sa = random_tensor(DType::e8m0, {m, blocks}, 33);
  const HostTensor sb = random_tensor(DType::e8m0, {n, blocks}, 34);
  HostTensor a4 = a, sa4 = sa;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t kk = 32; kk < 64; ++kk)
      a4.set({i, kk}, 4 * a.at({i, kk}));
    sa4.set_code({i, 1}, sa.code({i, 1}) - 2);
  }
  const HostTensor out(DType::f32, {m, n});
  const Reference r = mxfp8_gemm({a.view(), b.view(), sa.view(), sb.view(), out.view()});
  const Reference r4 = mxfp8_gemm({a4.view(), b.view(), sa4.view(), sb.view(), out.view()});
  CHECK(a4.bytes() != a.bytes());
  CHECK(r.value.v == r4.value.v);
}

TEST_CASE("round_to: the stored value of the output format") {
  // f16 near 1 has step 2^-10: 1 + 2^-11 is a tie -> 1 (even); 1 + 3 * 2^-11 is a tie
  // between 1 + 2^-10 (odd mantissa) and 1 + 2^-9 (even) -> 1 + 2^-9.
  CHECK(round_to(DType::f16, 1 + 0x1p-11) == 1.0);
  CHECK(round_to(DType::f16, 1 + 3 * 0x1p-11) == 1 + 0x1p-9);
  CHECK(round_to(DType::f16, 70000) == INFINITY); // past 65504 + half a step
  // bf16 step near 1 is 2^-7: 1 + 2^-8 ties to 1; 1 + 2^-8 + 2^-20 rounds up (rounded once,
  // not through f32 first).
  CHECK(round_to(DType::bf16, 1 + 0x1p-8) == 1.0);
  CHECK(round_to(DType::bf16, 1 + 0x1p-8 + 0x1p-20) == 1 + 0x1p-7);
  CHECK(round_to(DType::f32, 1 + 0x1p-30) == 1.0);
  CHECK(round_to(DType::i32, 2.5) == 2.0);
}

TEST_CASE("accuracy contract: ulp at the output's magnitude") {
  CHECK(ulp(DType::f16, 1.0) == 0x1p-10);
  CHECK(ulp(DType::bf16, 1.0) == 0x1p-7);
  CHECK(ulp(DType::e4m3, 1.0) == 0x1p-3);
  CHECK(ulp(DType::e5m2, 1.0) == 0x1p-2);
  CHECK(ulp(DType::f32, 1.0) == 0x1p-23);
  // doubling with the value: [2, 4) has twice the step of [1, 2); [0.5, 1) half of it
  CHECK(ulp(DType::f16, 2.5) == 0x1p-9);
  CHECK(ulp(DType::f16, -3.99) == 0x1p-9);
  CHECK(ulp(DType::f16, 0.75) == 0x1p-11);
  CHECK(ulp(DType::bf16, 1000.0) == 0x1p2); // 2^9 <= 1000 < 2^10: 2^(9 - 7)
  // below the smallest normal the step stays the subnormal step: f16 2^-24, e4m3 2^-9
  CHECK(ulp(DType::f16, 0.0) == 0x1p-24);
  CHECK(ulp(DType::f16, 1e-7) == 0x1p-24);
  CHECK(ulp(DType::e4m3, 0.001) == 0x1p-9);
  CHECK(ulp(DType::i32, 123.0) == 1.0);
  // int8: half a code of max|x| = 127 is 0.5
  CHECK(int8_half_code(127.0) == 0.5);
}

TEST_CASE("compare: reports the worst element and counts mismatches") {
  Reference want{Matrix(2, 2), Matrix(2, 2), Matrix(2, 2)};
  want.value.v = {1.0, 2.0, 3.0, 4.0};
  Matrix got(2, 2);
  // tolerance for f16: 1 ulp = 2^-10 at 1, 2^-9 at 2 and 3, 2^-8 at 4
  got.v = {1.0 + 0x1p-10, // exactly at the limit: ok
           2.0 + 0x1p-10, // half the limit: ok
           3.0 + 0x1p-7,  // 4 ulps: bad, ratio 4
           4.0 - 0x1p-7}; // 2 ulps: bad, ratio 2
  const CompareResult r = compare(got, want, Tolerance::for_output(DType::f16, 0));
  CHECK_FALSE(r.ok);
  CHECK(r.mismatches == 2);
  CHECK(r.elements == 4);
  CHECK(r.worst_row == 1);
  CHECK(r.worst_col == 0);
  CHECK(r.worst_want == 3.0);
  CHECK(r.worst_got == 3.0 + 0x1p-7);
  CHECK(r.summary().find("worst at (1, 0)") != std::string::npos);
  // accumulation term: sum |terms| = 1000 with K = 100 allows (104 * 2^-24) * 1000 ~ 0.0062
  want.accum_magnitude.v = {0, 0, 1000, 1000};
  CHECK(compare(got, want, Tolerance::for_output(DType::f16, 100)).ok);
  // integers are exact: one off is a mismatch; NaN only matches NaN
  Reference ints{Matrix(1, 2), Matrix(1, 2), Matrix(1, 2)};
  ints.value.v = {5, NAN};
  Matrix gi(1, 2);
  gi.v = {5, NAN};
  CHECK(compare(gi, ints, Tolerance::exact()).ok);
  gi.v = {6, NAN};
  CHECK_FALSE(compare(gi, ints, Tolerance::exact()).ok);
  gi.v = {5, 0};
  CHECK_FALSE(compare(gi, ints, Tolerance::exact()).ok);
}

TEST_CASE("random_tensor: fixed seeds, exactly representable, in range") {
  const HostTensor a = random_tensor(DType::f16, {8, 9}, 7);
  const HostTensor b = random_tensor(DType::f16, {8, 9}, 7);
  const HostTensor c = random_tensor(DType::f16, {8, 9}, 8);
  CHECK(a.bytes() == b.bytes());
  CHECK(a.bytes() != c.bytes());
  for (DType t : {DType::f16, DType::bf16, DType::e4m3, DType::e5m2, DType::int8, DType::int4,
                  DType::uint4, DType::e8m0}) {
    CAPTURE(kernels::dtype_name(t));
    const HostTensor r = random_tensor(t, {5, 7}, 99);
    const ValueRange range = default_range(t);
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 7; ++j) {
        const double v = r.at({i, j});
        CHECK(v >= range.lo);
        CHECK(v <= range.hi);
        // stored exactly: encoding the decoded value again gives the same code
        CHECK(num::encode(*kernels::num_format(t), float(v)) == r.code({i, j}));
      }
  }
  // integer draws reach both ends of a small range
  const HostTensor s = random_tensor(DType::int4, {64}, 5);
  bool lo = false, hi = false;
  for (int64_t i = 0; i < 64; ++i) {
    lo = lo || s.at({i}) == -8;
    hi = hi || s.at({i}) == 7;
  }
  CHECK(lo);
  CHECK(hi);
}

// ---- attention (oracles/attention.hpp) ------------------------------------------------------

namespace {

// A host tensor of any rank holding `values` in row-major logical order.
HostTensor tensor_of(DType dtype, kernels::Extents shape, std::vector<double> values) {
  HostTensor t(dtype, shape);
  const kernels::TensorView v = t.view();
  REQUIRE(int64_t(values.size()) == v.numel());
  kernels::Extents idx(shape.size(), 0);
  for (double x : values) {
    kernels::store_element(v, idx, x);
    for (int d = v.rank() - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < shape[size_t(d)])
        break;
      idx[size_t(d)] = 0;
    }
  }
  return t;
}

// A dense single-batch problem: q [1, Sq, Hq, D] zero (every score 0 before bias / ALiBi)
// unless given, k [1, Sk, Hkv, D] zero, v [1, Sk, Hkv, Dv] given.
struct AttnCase {
  HostTensor q, k, v, out, lse;
  kernels::FlashAttnArgs args;
  AttnCase(int64_t sq, int64_t sk, int64_t hq, int64_t hkv, int64_t d, std::vector<double> v_vals,
           DType dtype = DType::f16)
      : q(dtype, {1, sq, hq, d}), k(dtype, {1, sk, hkv, d}),
        v(tensor_of(dtype, {1, sk, hkv, int64_t(v_vals.size()) / (sk * hkv)}, v_vals)),
        out(DType::f32, {1, sq, hq, int64_t(v_vals.size()) / (sk * hkv)}),
        lse(DType::f32, {1, hq, sq}) {
    bind();
  }
  void bind() {
    args.q = q.view();
    args.k = k.view();
    args.v = v.view();
    args.out = out.view();
    args.lse = lse.view();
  }
};

const double ninf = -std::numeric_limits<double>::infinity();

} // namespace

TEST_CASE("oracle philox4x32_10: Random123's published known-answer vectors") {
  // Random123 tests/kat_vectors, philox4x32 10 rounds: counter words then key words.
  using W4 = std::array<uint32_t, 4>;
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) == W4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        W4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        W4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("oracle attention: one key gives out = v and lse = its scaled score") {
  // q = [1, 2], k = [3, -1] -> q.k = 1; sm_scale 0 -> 1/sqrt(2); v = [0.5, -2, 4] (Dv 3 != D 2)
  AttnCase c(1, 1, 1, 1, 2, {0.5, -2, 4});
  c.q = tensor_of(DType::f16, {1, 1, 1, 2}, {1, 2});
  c.k = tensor_of(DType::f16, {1, 1, 1, 2}, {3, -1});
  c.bind();
  const AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.v == std::vector<double>{0.5, -2, 4});
  CHECK(r.lse.at(0, 0) == doctest::Approx(1.0 / std::sqrt(2.0)).epsilon(1e-15));
}

TEST_CASE("oracle attention: uniform scores average V and lse = log Sk") {
  // q = 0: every score is 0, P = 1/4 each. v rows [1, 0], [3, 2], [5, -2], [-1, 8] -> mean [2, 2]
  AttnCase c(2, 4, 1, 1, 8, {1, 0, 3, 2, 5, -2, -1, 8});
  const AttentionReference r = flash_attn(c.args);
  for (int64_t i = 0; i < 2; ++i) {
    CHECK(r.out.value.at(i, 0) == 2);
    CHECK(r.out.value.at(i, 1) == 2);
    CHECK(r.lse.at(0, i) == doctest::Approx(std::log(4.0)).epsilon(1e-15));
  }
  // |terms| of column 1: (0 + 2 + 2 + 8) / 4
  CHECK(r.out.accum_magnitude.at(0, 1) == 3);
}

TEST_CASE("oracle attention: two scores weight V by softmax") {
  // q = [1], k = [2], [0], sm_scale 0.5 -> s = [1, 0]: P = [e, 1] / (e + 1)
  AttnCase c(1, 2, 1, 1, 1, {1, 0});
  c.q = tensor_of(DType::f16, {1, 1, 1, 1}, {1});
  c.k = tensor_of(DType::f16, {1, 2, 1, 1}, {2, 0});
  c.bind();
  c.args.sm_scale = 0.5f;
  const AttentionReference r = flash_attn(c.args);
  const double e = std::exp(1.0);
  CHECK(r.out.value.at(0, 0) == doctest::Approx(e / (e + 1)).epsilon(1e-15));
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(e + 1)).epsilon(1e-15));
}

TEST_CASE("oracle attention: causal is bottom-right aligned and an unseen row is 0 / -inf") {
  // Sq = 3, Sk = 2: o = i - 1, row 0 sees no key, row 1 key 0, row 2 keys 0..1.
  AttnCase c(3, 2, 1, 1, 4, {2, 6});
  c.args.causal = true;
  const AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == 0);
  CHECK(r.lse.at(0, 0) == ninf);
  CHECK(r.out.value.at(1, 0) == 2);
  CHECK(r.lse.at(0, 1) == 0);
  CHECK(r.out.value.at(2, 0) == 4);
  CHECK(r.lse.at(0, 2) == doctest::Approx(std::log(2.0)));
}

TEST_CASE("oracle attention: sliding window (decode query, left = 4) and right bound") {
  // Sq = 1, Sk = 8: o = 7, left 4 -> keys 3..7 (shared/KERNELS.md's example), v_j = j.
  AttnCase c(1, 8, 1, 1, 2, {0, 1, 2, 3, 4, 5, 6, 7});
  c.args.window_left = 4;
  AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == doctest::Approx(5).epsilon(1e-15)); // (3 + ... + 7) / 5
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(5.0)));
  // left 1, right -1 (unbounded, but no key right of o = 7 exists): keys 6, 7
  c.args.window_left = 1;
  CHECK(flash_attn(c.args).out.value.at(0, 0) == 6.5);
  // Sq = Sk = 8 would put o = i; here Sq = 2, Sk = 8: o = i + 6. left -1, right 0 on row 0:
  // keys 0..6 -> mean 3; that is the causal mask.
  AttnCase w(2, 8, 1, 1, 2, {0, 1, 2, 3, 4, 5, 6, 7});
  w.args.window_right = 0;
  r = flash_attn(w.args);
  CHECK(r.out.value.at(0, 0) == doctest::Approx(3).epsilon(1e-15)); // sum of j / 7
  CHECK(r.out.value.at(1, 0) == 3.5);
  // left 0, right 0: the diagonal key only
  w.args.window_left = 0;
  r = flash_attn(w.args);
  CHECK(r.out.value.at(0, 0) == 6);
  CHECK(r.out.value.at(1, 0) == 7);
}

TEST_CASE("oracle attention: additive bias, shared and per head") {
  // q = 0; bias [0, log 3] -> P = [1/4, 3/4]; lse = log 4. v = [4, 8] -> 7.
  AttnCase c(1, 2, 2, 1, 2, {4, 8});
  const HostTensor shared = tensor_of(DType::f32, {1, 2}, {0, std::log(3.0)});
  c.args.bias = shared.view();
  c.args.bias_kind = kernels::AttnBiasKind::additive;
  AttentionReference r = flash_attn(c.args);
  for (int64_t h = 0; h < 2; ++h) {
    CHECK(r.out.value.at(h, 0) == doctest::Approx(7).epsilon(1e-7)); // f32 log 3
    CHECK(r.lse.at(h, 0) == doctest::Approx(std::log(4.0)).epsilon(1e-7));
  }
  // per head [Hq, Sq, Sk]: head 0 no bias (mean 6), head 1 as above
  const HostTensor per_head = tensor_of(DType::f32, {2, 1, 2}, {0, 0, 0, std::log(3.0)});
  c.args.bias = per_head.view();
  r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == 6);
  CHECK(r.out.value.at(1, 0) == doctest::Approx(7).epsilon(1e-7));
}

TEST_CASE("oracle attention: a bool mask hides keys and can hide a whole row") {
  // Sq = 2, Sk = 3, v = [1, 2, 6]; row 0 keeps keys 0 and 2, row 1 keeps none.
  AttnCase c(2, 3, 1, 1, 2, {1, 2, 6});
  const HostTensor mask = tensor_of(DType::uint8, {2, 3}, {1, 0, 7, 0, 0, 0});
  c.args.bias = mask.view();
  c.args.bias_kind = kernels::AttnBiasKind::bool_mask;
  const AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == 3.5);
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(2.0)));
  CHECK(r.out.value.at(1, 0) == 0);
  CHECK(r.lse.at(0, 1) == ninf);
}

TEST_CASE("oracle attention: ALiBi, scalar and per head, bottom-right") {
  // Sq = 1, Sk = 2: o = 1, distances [1, 0]; slope log 2 -> exp weights [1/2, 1]:
  // P = [1/3, 2/3], lse = log 1.5. v = [3, 6] -> 5.
  AttnCase c(1, 2, 2, 2, 2, {3, 30, 6, 60});
  c.args.alibi_slope = float(std::log(2.0));
  AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == doctest::Approx(5).epsilon(1e-7));
  CHECK(r.out.value.at(1, 0) == doctest::Approx(50).epsilon(1e-7)); // head 1 reads kv head 1
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(1.5)).epsilon(1e-7));
  // per head slopes [0, log 2]: head 0 is the plain mean
  const HostTensor slopes = tensor_of(DType::f32, {2}, {0, std::log(2.0)});
  c.args.alibi_slope.reset();
  c.args.alibi_slopes = slopes.view();
  r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == 4.5);
  CHECK(r.out.value.at(1, 0) == doctest::Approx(50).epsilon(1e-7));
}

TEST_CASE("oracle attention: softcap applies to the scaled score") {
  // q = [1], k = [4], [0], sm_scale 1, softcap 2: s = [2 tanh(2), 0]
  AttnCase c(1, 2, 1, 1, 1, {1, 0});
  c.q = tensor_of(DType::f16, {1, 1, 1, 1}, {1});
  c.k = tensor_of(DType::f16, {1, 2, 1, 1}, {4, 0});
  c.bind();
  c.args.sm_scale = 1.0f;
  c.args.softcap = 2.0f;
  const AttentionReference r = flash_attn(c.args);
  const double e = std::exp(2.0 * std::tanh(2.0));
  CHECK(r.out.value.at(0, 0) == doctest::Approx(e / (e + 1)).epsilon(1e-15));
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(e + 1)).epsilon(1e-15));
}

TEST_CASE("oracle attention: GQA maps query head h to kv head h / (Hq / Hkv)") {
  // Hq = 4, Hkv = 2, one key: out of head h is v of kv head h / 2.
  AttnCase c(1, 1, 4, 2, 2, {10, 20});
  const AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.v == std::vector<double>{10, 10, 20, 20});
}

TEST_CASE("oracle attention: fp8 descales scale the scores and V") {
  // e4m3 q = [2], k = [3], v = [1.5]: scores 2*0.5 * 3*0.25 * sm_scale 1 = 0.75 with one key
  // (lse) and out = 1.5 * v_descale 4 = 6.
  AttnCase c(1, 1, 1, 1, 1, {1.5}, DType::e4m3);
  c.q = tensor_of(DType::e4m3, {1, 1, 1, 1}, {2});
  c.k = tensor_of(DType::e4m3, {1, 1, 1, 1}, {3});
  c.bind();
  c.args.sm_scale = 1.0f;
  c.args.q_descale = 0.5f;
  c.args.k_descale = 0.25f;
  c.args.v_descale = 4.0f;
  const AttentionReference r = flash_attn(c.args);
  CHECK(r.out.value.at(0, 0) == 6);
  CHECK(r.lse.at(0, 0) == 0.75);
}

TEST_CASE("oracle attention: dropout follows the Philox mask and rescales by 1/(1-p)") {
  // Sq = 1, Sk = 4, q = 0 (P = 1/4 each), seed = offset = 0: indices 0..3 form group 0, whose
  // Philox block is the first known-answer vector [0x6627e8d5, 0xe169c58d, 0xbc57ac4c,
  // 0x9b00dbd8]. p = 0.5: threshold 0x80000000, so key 0 is dropped and keys 1..3 kept:
  // out = (v1 + v2 + v3) / 4 / 0.5. lse ignores dropout.
  AttnCase c(1, 4, 1, 1, 2, {100, 1, 2, 5});
  c.args.dropout_p = 0.5f;
  const AttentionReference r = flash_attn(c.args);
  CHECK(dropout_threshold(0.5f) == 0x80000000u);
  CHECK(r.out.value.at(0, 0) == 4);
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(4.0)));
  // Head 1 of two: its indices are ((0*2 + 1)*1 + 0)*4 + j = 4 + j, group 1.
  AttnCase g(1, 4, 2, 1, 2, {100, 1, 2, 5});
  g.args.dropout_p = 0.5f;
  g.args.dropout_seed = 0x0123456789abcdefull;
  g.args.dropout_offset = 0xfedcba9876543210ull;
  const std::array<uint32_t, 4> block =
      philox4x32_10({1, 0, 0x76543210, 0xfedcba98}, {0x89abcdef, 0x01234567});
  double want = 0;
  const double vals[4] = {100, 1, 2, 5};
  for (int j = 0; j < 4; ++j)
    want += block[size_t(j)] >= 0x80000000u ? vals[j] / 4 / 0.5 : 0.0;
  CHECK(flash_attn(g.args).out.value.at(1, 0) == want);
}

TEST_CASE("oracle attention: varlen sequences keep their own bottom-right origin") {
  // cu_seqlens_q [0, 1, 3], cu_seqlens_k [0, 2, 5]; q = 0, causal, v_t = t.
  // seq 0: Sq 1, Sk 2, o = 1: keys 0, 1 -> 0.5. seq 1: Sq 2, Sk 3: row 0 (token 1) o = 1 ->
  // tokens 2, 3 -> 2.5; row 1 (token 2) o = 2 -> tokens 2..4 -> 3. Token 3 is in no sequence.
  HostTensor q(DType::bf16, {4, 1, 2}), k(DType::bf16, {5, 1, 2});
  const HostTensor v = tensor_of(DType::bf16, {5, 1, 1}, {0, 1, 2, 3, 4});
  const HostTensor out(DType::bf16, {4, 1, 1}), lse(DType::f32, {1, 4});
  const HostTensor cq = tensor_of(DType::i32, {3}, {0, 1, 3});
  const HostTensor ck = tensor_of(DType::i32, {3}, {0, 2, 5});
  kernels::FlashAttnArgs args;
  args.q = q.view();
  args.k = k.view();
  args.v = v.view();
  args.out = out.view();
  args.lse = lse.view();
  args.cu_seqlens_q = cq.view();
  args.cu_seqlens_k = ck.view();
  args.max_seqlen_q = 2;
  args.max_seqlen_k = 3;
  args.causal = true;
  AttentionReference r = flash_attn(args);
  CHECK(r.out.value.v == std::vector<double>{0.5, 2.5, 3, 0});
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(2.0)));
  CHECK(r.lse.at(0, 2) == doctest::Approx(std::log(3.0)));
  // ALiBi per sequence, slope log 2: seq 0 distances [1, 0] -> P [1/3, 2/3] -> 2/3.
  args.causal = false;
  args.alibi_slope = float(std::log(2.0));
  r = flash_attn(args);
  CHECK(r.out.value.at(0, 0) == doctest::Approx(2.0 / 3).epsilon(1e-7));
  // seq 1 row 1 (o = 2): distances [2, 1, 0] -> weights [1/4, 1/2, 1] -> (2/4 + 3/2 + 4) / 1.75
  CHECK(r.out.value.at(2, 0) == doctest::Approx(6.0 / 1.75).epsilon(1e-7));
}

TEST_CASE("oracle attention: decode_attention_rows lays out out and lse like the reference") {
  const HostTensor t = tensor_of(DType::f32, {1, 2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Matrix m = decode_attention_rows(t.view());
  CHECK(m.rows == 4);
  CHECK(m.cols == 3);
  CHECK(m.at(3, 1) == 10);
}

TEST_CASE("oracle linear_attn: decay and the normalizer on a hand-computed case") {
  // D = Dv = 1, q = [1, 2], k = [3, 4], v = [5, 6], scale 1, lambda 0.5:
  // o0 = 1*3*5 = 15; o1 = 2*3*0.5*5 + 2*4*6 = 63; den = [3, 11].
  const HostTensor q = tensor_of(DType::f32, {1, 2, 1, 1}, {1, 2});
  const HostTensor k = tensor_of(DType::f32, {1, 2, 1, 1}, {3, 4});
  const HostTensor v = tensor_of(DType::f32, {1, 2, 1, 1}, {5, 6});
  const HostTensor decay = tensor_of(DType::f32, {1}, {0.5});
  kernels::LinearAttnArgs a{q.view(), k.view(), v.view(), v.view()};
  a.decay = decay.view();
  a.scale = 1.0f;
  Reference r = linear_attn(a);
  CHECK(r.value.v == std::vector<double>{15, 63});
  CHECK(r.accum_magnitude.v == std::vector<double>{15, 63});
  a.normalize = true;
  a.eps = 0.0f;
  r = linear_attn(a);
  CHECK(r.value.at(0, 0) == doctest::Approx(5.0).epsilon(1e-15));
  CHECK(r.value.at(1, 0) == doctest::Approx(63.0 / 11).epsilon(1e-15));
  a.decay.reset(); // lambda = 1: o1 = 2*3*5 + 2*4*6 = 78, den 14
  r = linear_attn(a);
  CHECK(r.value.at(1, 0) == doctest::Approx(78.0 / 14).epsilon(1e-15));
}

TEST_CASE("oracle qk_norm_quant: RMSNorm, a rotated tail, the scale and the codes by hand") {
  // One token, head_dim 4: [1, 1, 1, 1] (rms 1, eps 0). The tail pair (2, 3) turns by 90
  // degrees (cos 0, sin 1): y = [1, 1, -1, 1]; e4m3: s = 1 / 448, codes +-448.
  const HostTensor x = tensor_of(DType::f32, {1, 4}, {1, 1, 1, 1});
  const HostTensor w = tensor_of(DType::f32, {4}, {1, 1, 1, 1});
  const HostTensor c = tensor_of(DType::f32, {1, 1}, {0}), s = tensor_of(DType::f32, {1, 1}, {1});
  kernels::RopeParams rope;
  rope.head_dim = 2;
  rope.cos = c.view();
  rope.sin = s.view();
  QkNormQuantReference r = qk_norm_quant(x.view(), w.view(), 4, rope, 0.0, DType::e4m3);
  CHECK(r.y.v == std::vector<double>{1, 1, -1, 1});
  CHECK(r.scale == std::vector<double>{1.0 / 448});
  CHECK(r.codes == std::vector<std::vector<uint32_t>>{{0x7E}, {0x7E}, {0xFE}, {0x7E}});
  // An all-zero head (eps > 0): scale 1, codes 0.
  const HostTensor zero = tensor_of(DType::f32, {1, 4}, {0, 0, 0, 0});
  r = qk_norm_quant(zero.view(), w.view(), 4, rope, 1e-6, DType::e4m3);
  CHECK(r.scale == std::vector<double>{1.0});
  CHECK(r.codes == std::vector<std::vector<uint32_t>>{{0}, {0}, {0}, {0}});
  // int8, the whole head rotated at position 0 (no turn): [3, 4] -> y = [3, 4] / sqrt(12.5),
  // s = amax / 127, codes round(0.75 * 127) = 95 and 127.
  const HostTensor x2 = tensor_of(DType::f32, {1, 2}, {3, 4});
  const HostTensor w2 = tensor_of(DType::f32, {2}, {1, 1});
  r = qk_norm_quant(x2.view(), w2.view(), 2, kernels::RopeParams{}, 0.0, DType::int8);
  CHECK(r.scale[0] == doctest::Approx(4 / std::sqrt(12.5) / 127).epsilon(1e-15));
  CHECK(r.codes == std::vector<std::vector<uint32_t>>{{95}, {127}});
}

// ---- MLA decode (oracles/mla_decode.hpp) -----------------------------------------------------

TEST_CASE("oracle mla_decode: the pages are gathered through the table and V is the first 512 "
          "dims of K's rows") {
  // 17 keys: slots 0..15 of page 1, then slot 0 of page 0 (table {1, 0}); page 2 and the rest
  // of page 0 are never read. q = 0: every score is 0, P = 1 / 17 each. Dim 0 is 17 in key 16's
  // row only (out[0] = 1); dims 512..575 (K only) are 100 in every row and reach no output.
  HostTensor cache(DType::f16, {3, 16, kernels::mla_qk_dim});
  const kernels::TensorView c = cache.view();
  for (int64_t page = 0; page < 3; ++page)
    for (int64_t slot = 0; slot < 16; ++slot) {
      const bool key16 = page == 0 && slot == 0, used = page == 1 || key16;
      cache.set({page, slot, 0}, key16 ? 17.0 : used ? 0.0 : 1000.0);
      for (int64_t e = kernels::mla_v_dim; e < kernels::mla_qk_dim; ++e)
        cache.set({page, slot, e}, 100.0);
    }
  HostTensor q(DType::f16, {1, 1, 1, kernels::mla_qk_dim}), out(DType::f16, {1, 1, 1, 512});
  HostTensor table = tensor_of(DType::i32, {1, 2}, {1, 0});
  HostTensor lens = tensor_of(DType::i32, {1}, {17});
  kernels::MlaDecodeArgs a;
  a.q = q.view();
  a.kv_cache = c;
  a.out = out.view();
  a.paged.block_table = table.view();
  a.paged.seqlens_k = lens.view();
  const AttentionReference r = mla_decode(a);
  REQUIRE(r.out.value.cols == kernels::mla_v_dim);
  CHECK(r.out.value.at(0, 0) == doctest::Approx(1.0).epsilon(1e-15));
  for (int64_t e = 1; e < kernels::mla_v_dim; ++e)
    CHECK(r.out.value.at(0, e) == 0);
  CHECK(r.lse.at(0, 0) == doctest::Approx(std::log(17.0)).epsilon(1e-15));
}

TEST_CASE("oracle mla_decode: the scores use all 576 dims (the rope tail included)") {
  // One key: q = 1 at dims 0 and 575, the row 2 at dim 0 and 3 at dim 575 -> q.k = 5,
  // sm_scale 0 -> 1 / sqrt(576) = 1 / 24: lse = 5 / 24, out = the row's first 512 dims.
  HostTensor cache(DType::f16, {1, 16, kernels::mla_qk_dim});
  const kernels::TensorView c = cache.view();
  cache.set({0, 0, 0}, 2.0);
  cache.set({0, 0, 575}, 3.0);
  HostTensor q(DType::f16, {1, 1, 1, kernels::mla_qk_dim}), out(DType::f16, {1, 1, 1, 512});
  q.set({0, 0, 0, 0}, 1.0);
  q.set({0, 0, 0, 575}, 1.0);
  HostTensor table = tensor_of(DType::i32, {1, 1}, {0});
  HostTensor lens = tensor_of(DType::i32, {1}, {1});
  kernels::MlaDecodeArgs a;
  a.q = q.view();
  a.kv_cache = c;
  a.out = out.view();
  a.paged.block_table = table.view();
  a.paged.seqlens_k = lens.view();
  const AttentionReference r = mla_decode(a);
  CHECK(r.out.value.at(0, 0) == 2);
  CHECK(r.out.value.at(0, 1) == 0);
  CHECK(r.lse.at(0, 0) == doctest::Approx(5.0 / 24.0).epsilon(1e-15));
}
