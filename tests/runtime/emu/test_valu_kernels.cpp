// HIP kernels (kernels/valu_arith.hip, valu_shuffle.hip, valu_fp8.hip) on the emulator, every
// compiled variant (gfx1200 / gfx1201, -O0 / -O3, code object v6 and v5), each result
// checked against host arithmetic written from the C semantics of the kernel source and
// the ISA's definition of the cross-lane operations.
#include "emu_test_util.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace tw;

namespace {

constexpr int kThreads = 128; // 2 workgroups of 64 threads (2 waves each)

std::vector<float> random_floats(unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(kThreads);
  for (float& x : v)
    x = d(rng);
  return v;
}

float f16v(uint16_t h) {
  return num::f16_to_f32(h);
}

} // namespace

TEST_CASE("valu kernels: f32 arithmetic, division, sqrt, transcendentals, conversions") {
  std::vector<float> a = random_floats(1, -100.0f, 100.0f), b = random_floats(2, -100.0f, 100.0f);
  a[0] = 0.0f, b[0] = 1.0f;
  a[1] = 1e-39f, b[1] = 3.0f; // denormal input (kept: the descriptor's MODE keeps f32 denormals)
  a[2] = 7.0f, b[2] = -0.0f;  // division by -0
  a[3] = 1e9f, b[3] = 1e-30f; // quotient overflows to inf
  for (const test::KernelVariant& var : test::kernel_variants("valu_arith")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a), db = run.upload(b);
    auto dout = run.alloc<float>(kThreads * 10);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dout);
    run.launch("valu_f32", {2, 1, 1}, {64, 1, 1}, args);
    const auto o = run.download<float>(dout, kThreads * 10);
    for (int t = 0; t < kThreads; ++t) {
      CAPTURE(t);
      const float x = a[t], y = b[t];
      const float* r = &o[size_t(t) * 10];
      CHECK(r[0] == x + y);
      CHECK(r[1] == x * y);
      CHECK(r[2] == std::fma(x, y, 0.75f));
      if (std::isinf(x / y))
        CHECK(r[3] == x / y);
      else
        CHECK(std::bit_cast<uint32_t>(r[3]) == std::bit_cast<uint32_t>(x / y)); // correctly rounded
      CHECK(r[4] == std::sqrt(std::fabs(x)));
      CHECK(r[5] == std::fmin(x, y) - std::fmax(x, -y));
      CHECK(r[6] == doctest::Approx(std::exp(double(y * 0.01f))).epsilon(4e-7));
      CHECK(r[7] == doctest::Approx(std::log(double(std::fabs(x)) + 1.0)).epsilon(4e-7));
      CHECK(r[8] == float(int(x)) + float(unsigned(y > 0 ? y : 0)));
      CHECK(r[9] == std::floor(x) * std::trunc(y) + std::ceil(x * 0.3f));
    }
  }
}

TEST_CASE("valu kernels: f64 arithmetic, division and sqrt are correctly rounded") {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> d(-1e3, 1e3);
  std::vector<double> a(kThreads), b(kThreads);
  for (int t = 0; t < kThreads; ++t)
    a[t] = d(rng), b[t] = d(rng);
  a[0] = 1.0, b[0] = 3.0;
  a[1] = 1e-310, b[1] = 7.0;     // denormal (f64 denormals are kept)
  a[2] = -1e-300, b[2] = -1e300; // quotient underflows
  for (const test::KernelVariant& var : test::kernel_variants("valu_arith")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a), db = run.upload(b);
    auto dout = run.alloc<double>(kThreads * 8);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dout);
    run.launch("valu_f64", {2, 1, 1}, {64, 1, 1}, args);
    const auto o = run.download<double>(dout, kThreads * 8);
    for (int t = 0; t < kThreads; ++t) {
      CAPTURE(t);
      const double x = a[t], y = b[t];
      const double* r = &o[size_t(t) * 8];
      CHECK(r[0] == x + y);
      CHECK(r[1] == x * y);
      CHECK(r[2] == std::fma(x, y, -x));
      CHECK(r[3] == x / y);
      CHECK(r[4] == std::sqrt(std::fabs(x)));
      CHECK(r[5] == std::fmin(x, y) + std::floor(y));
      CHECK(r[6] == double(int(x)) + double(unsigned(y > 0 ? y : 0)) + double(float(y)));
      CHECK(r[7] == std::ldexp(x, t - 64) - std::trunc(x));
    }
  }
}

TEST_CASE("valu kernels: an instruction the emulator does not implement fails the launch, named") {
  for (const test::KernelVariant& var : test::kernel_variants("valu_unimplemented")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto din = run.upload(std::vector<double>(32, 1.0));
    auto dout = run.alloc<double>(32);
    runtime::KernelArgs args;
    args.ptr(din).ptr(dout);
    std::string msg;
    try {
      run.launch("valu_unimplemented", {1, 1, 1}, {32, 1, 1}, args);
    } catch (const std::exception& e) {
      msg = e.what();
    }
    CHECK(msg.find("unimplemented instruction") != std::string::npos);
    CHECK(msg.find("v_trig_preop_f64") != std::string::npos);
    CHECK(msg.find("pc 0x") != std::string::npos);
    CHECK(msg.find("valu_unimplemented") != std::string::npos);
  }
}

TEST_CASE("valu kernels: f16 scalar and packed, bf16 through integer ops") {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> d(-32, 32);
  std::vector<uint16_t> a(kThreads), b(kThreads), bfa(kThreads), bfb(kThreads);
  std::vector<uint32_t> p(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    a[t] = num::f32_to_f16(float(d(rng)) * 0.25f);
    b[t] = num::f32_to_f16(float(d(rng)) * 0.25f);
    p[t] = num::f32_to_f16(float(d(rng)) * 0.5f) |
           (uint32_t(num::f32_to_f16(float(d(rng)) * 0.5f)) << 16);
    bfa[t] = num::f32_to_bf16(float(d(rng)) * 1.37f);
    bfb[t] = num::f32_to_bf16(float(d(rng)) * 0.71f);
  }
  for (const test::KernelVariant& var : test::kernel_variants("valu_arith")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a), db = run.upload(b), dp = run.upload(p);
    auto dout = run.alloc<uint16_t>(kThreads * 6), dpout = run.alloc<uint32_t>(kThreads * 2);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dp).ptr(dout).ptr(dpout);
    run.launch("valu_f16", {2, 1, 1}, {64, 1, 1}, args);
    const auto o = run.download<uint16_t>(dout, kThreads * 6);
    const auto po = run.download<uint32_t>(dpout, kThreads * 2);
    for (int t = 0; t < kThreads; ++t) {
      CAPTURE(t);
      const float x = f16v(a[t]), y = f16v(b[t]); // quarter-integers: every result is exact
      CHECK(f16v(o[6 * t + 0]) == x + y);
      CHECK(f16v(o[6 * t + 1]) == num::round_to_f16(x * y));
      CHECK(f16v(o[6 * t + 2]) == num::round_to_f16(x * y + x));
      CHECK(f16v(o[6 * t + 3]) == (x > y ? x : -y));
      CHECK(f16v(o[6 * t + 4]) == x * 0.5f + y);
      CHECK(f16v(o[6 * t + 5]) == float(int(x)));
      const float lo = f16v(uint16_t(p[t])), hi = f16v(uint16_t(p[t] >> 16));
      CHECK(f16v(uint16_t(po[2 * t])) == lo * lo + lo);
      CHECK(f16v(uint16_t(po[2 * t] >> 16)) == hi * hi + hi);
      CHECK(f16v(uint16_t(po[2 * t + 1])) == hi - lo);
      CHECK(f16v(uint16_t(po[2 * t + 1] >> 16)) == lo - hi);
    }

    auto dba = run.upload(bfa), dbb = run.upload(bfb);
    auto dbo = run.alloc<uint16_t>(kThreads * 3);
    runtime::KernelArgs bargs;
    bargs.ptr(dba).ptr(dbb).ptr(dbo);
    run.launch("valu_bf16", {2, 1, 1}, {64, 1, 1}, bargs);
    const auto bo = run.download<uint16_t>(dbo, kThreads * 3);
    for (int t = 0; t < kThreads; ++t) {
      const float x = num::bf16_to_f32(bfa[t]), y = num::bf16_to_f32(bfb[t]);
      CHECK(bo[3 * t + 0] == num::f32_to_bf16(x + y));
      CHECK(bo[3 * t + 1] == num::f32_to_bf16(x * y));
      CHECK(bo[3 * t + 2] == num::f32_to_bf16(std::fma(x, y, 1.0f)));
    }
  }
}

TEST_CASE("valu kernels: i32 / u32 / i64 / u64 arithmetic and divergent control flow") {
  std::mt19937 rng(9);
  std::vector<int32_t> a(kThreads), b(kThreads);
  std::vector<int64_t> la(kThreads), lb(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    a[t] = int32_t(rng());
    b[t] = t % 5 == 0 ? int32_t(rng() % 100) - 50 : int32_t(rng());
    la[t] = int64_t((uint64_t(rng()) << 32) | rng());
    lb[t] = t % 3 == 0 ? int64_t(rng() % 1000) - 500 : int64_t((uint64_t(rng()) << 32) | rng());
  }
  b[7] = 0;
  lb[8] = 0;
  a[9] = INT32_MIN, b[9] = -1 + 2; // no INT_MIN / -1 (undefined in C)
  std::vector<int32_t> div_in(kThreads);
  for (int t = 0; t < kThreads; ++t)
    div_in[t] = int32_t(rng() % 200) + 1;
  for (const test::KernelVariant& var : test::kernel_variants("valu_arith")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a), db = run.upload(b), dla = run.upload(la), dlb = run.upload(lb);
    auto dout = run.alloc<int32_t>(kThreads * 12), dlout = run.alloc<int64_t>(kThreads * 6);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dout).ptr(dla).ptr(dlb).ptr(dlout);
    run.launch("valu_int", {2, 1, 1}, {64, 1, 1}, args);
    const auto o = run.download<int32_t>(dout, kThreads * 12);
    const auto lo = run.download<int64_t>(dlout, kThreads * 6);
    for (int t = 0; t < kThreads; ++t) {
      CAPTURE(t);
      const int32_t p = a[t], q = b[t];
      const uint32_t up = uint32_t(p), uq = uint32_t(q);
      const int32_t* r = &o[size_t(t) * 12];
      CHECK(r[0] == int32_t(up * uq));
      CHECK(r[1] == (q != 0 ? p / q : -1));
      CHECK(r[2] == (q != 0 ? p % q : -1));
      CHECK(r[3] == (uq != 0 ? int32_t(up / uq) : -1));
      CHECK(r[4] == (int32_t(up >> (uq & 31)) ^ int32_t(up << (q & 31)) ^ (p >> (q & 7))));
      CHECK(r[5] == std::min(p, q));
      CHECK(r[6] == std::popcount(up) + std::countl_zero(up | 1) * 64 +
                        std::countr_zero(up | 0x80000000u) * 4096);
      CHECK(r[7] == int32_t((uint64_t(up) * uq) >> 32));
      CHECK(r[8] == int32_t(uint32_t((p & 0xff) * (q & 0xfff)) + uint32_t(p | q)));
      CHECK(r[9] == int32_t(int16_t(p)) * int32_t(int16_t(q)) + int32_t(uint8_t(q)));
      CHECK(r[10] == (p > 0 ? (p & q) : (p ^ q)));
      CHECK(r[11] == int32_t((int64_t(p) * q) >> 32));
      const int64_t L = la[t], M = lb[t];
      const int64_t* s = &lo[size_t(t) * 6];
      CHECK(s[0] == int64_t(uint64_t(L) * uint64_t(M)));
      CHECK(s[1] == int64_t(uint64_t(L) + uint64_t(M)));
      CHECK(s[2] == (M != 0 ? L / M : -1));
      CHECK(s[3] == int64_t((uint64_t(L) >> (q & 63)) + (uint64_t(L) << (p & 63))));
      CHECK(s[4] == (M != 0 ? int64_t(uint64_t(L) % uint64_t(M)) : -1));
      CHECK(s[5] == std::min(L, M));
    }

    auto ddi = run.upload(div_in);
    auto ddo = run.alloc<int32_t>(kThreads);
    runtime::KernelArgs dargs;
    dargs.ptr(ddi).ptr(ddo);
    run.launch("valu_divergence", {2, 1, 1}, {64, 1, 1}, dargs);
    const auto dv = run.download<int32_t>(ddo, kThreads);
    for (int t = 0; t < kThreads; ++t) {
      int x = div_in[t], acc = 0;
      for (int i = 0; i < (x & 15); ++i) {
        if ((i ^ x) & 1)
          acc += i * x;
        else
          acc -= i;
        if (acc > 1000)
          break;
      }
      if (t & 1) {
        acc = acc * 3 + 1;
      } else if (t & 2) {
        acc ^= 0x55;
      } else {
        while (x > 1)
          x = (x & 1) ? 3 * x + 1 : x / 2;
        acc += x;
      }
      CHECK(dv[t] == acc);
    }
  }
}

TEST_CASE("valu kernels: DPP, DPP8, permlane16/x16/_var, ds_bpermute, readlane, mbcnt, reduction") {
  constexpr int kSlots = 18, kLanes = 64; // one workgroup, two waves
  std::vector<int32_t> a(kLanes);
  for (int t = 0; t < kLanes; ++t)
    a[t] = 1000 + t * 17 - (t % 3) * 5;
  for (const test::KernelVariant& var : test::kernel_variants("valu_shuffle")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a);
    auto dout = run.alloc<int32_t>(kLanes * kSlots);
    runtime::KernelArgs args;
    args.ptr(da).ptr(dout);
    run.launch("valu_shuffle", {1, 1, 1}, {64, 1, 1}, args);
    const auto o = run.download<int32_t>(dout, kLanes * kSlots);
    for (int t = 0; t < kLanes; ++t) {
      CAPTURE(t);
      const int base = t & ~31, l = t & 31, row = l & ~15, r = l & 15;
      auto x = [&](int lane) { return a[size_t(base + lane)]; };
      const int32_t* s = &o[size_t(t) * kSlots];
      CHECK(s[0] == x((l & ~3) | (3 - (l & 3))));
      CHECK(s[1] == (r < 15 ? x(l + 1) : -1));
      CHECK(s[2] == (r >= 2 ? x(l - 2) : 0));
      const bool on = (l >= 16) && ((((l >> 2) & 3) == 0) || (((l >> 2) & 3) == 2));
      CHECK(s[3] == (on ? x(row | ((r - 3) & 15)) : -1));
      CHECK(s[4] == x(row | (15 - r)));
      CHECK(s[5] == x((l & ~7) | (7 - (l & 7))));
      CHECK(s[6] == x(row | 5));
      CHECK(s[7] == x(row | (r ^ 6)));
      CHECK(s[8] == x((l & ~7) | int((0x00fac688u >> (3 * (l & 7))) & 7)));
      const uint64_t sel16 = (uint64_t(0x89abcdefu) << 32) | 0x01234567u;
      CHECK(s[9] == x(row | int((sel16 >> (4 * r)) & 15)));
      CHECK(s[10] == x((row ^ 16) | r));
      CHECK(s[11] == x(row | ((t * 5) & 15)));
      CHECK(s[12] == x((row ^ 16) | ((t * 3) & 15)));
      CHECK(s[13] == x((t * 7 + 3) & 31));
      CHECK(s[14] == x(0) + x(9));
      CHECK(s[15] == std::popcount(0x5555aaaau & ((1u << l) - 1u)) + 100);
      int wave_sum = 0;
      for (int i = 0; i < 32; ++i)
        wave_sum += x(i);
      CHECK(s[16] == wave_sum);
      CHECK(s[17] == ((t & 4) ? x(4) : -1));
    }
  }
}

TEST_CASE("valu kernels: fp8 / bf8 pack, unpack and stochastic rounding") {
  constexpr int kSlots = 12, kLanes = 64;
  std::vector<float> a = random_floats(11, -300.0f, 300.0f), b = random_floats(12, -2.0f, 2.0f);
  a.resize(kLanes), b.resize(kLanes);
  b[0] = 0.001f, b[1] = -0.0f, a[2] = 448.0f, a[3] = -240.5f;
  std::vector<uint32_t> rnd(kLanes);
  std::mt19937 rng(13);
  for (uint32_t& r : rnd)
    r = uint32_t(rng());
  using num::Saturate;
  for (const test::KernelVariant& var : test::kernel_variants("valu_fp8")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a), db = run.upload(b), dr = run.upload(rnd);
    auto dout = run.alloc<uint32_t>(kLanes * kSlots);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dr).ptr(dout);
    run.launch("valu_fp8", {1, 1, 1}, {64, 1, 1}, args);
    const auto o = run.download<uint32_t>(dout, kLanes * kSlots);
    for (int t = 0; t < kLanes; ++t) {
      CAPTURE(t);
      const float x = a[t], y = b[t];
      const uint32_t r = rnd[t];
      const uint32_t* s = &o[size_t(t) * kSlots];
      auto e4 = [](float v) { return uint32_t(num::f32_to_e4m3(v, Saturate::no)); };
      auto e5 = [](float v) { return uint32_t(num::f32_to_e5m2(v, Saturate::no)); };
      CHECK(s[0] == (e4(x) | (e4(y) << 8) | (e4(y) << 16) | (e4(x) << 24)));
      CHECK(s[1] == (0x7788u | (e5(x) << 16) | (e5(y) << 24)));
      const uint32_t sr0 = num::f32_to_e4m3_stochastic(x, r, Saturate::no);
      const uint32_t sr3 = num::f32_to_e4m3_stochastic(y, r ^ 0x9e3779b9u, Saturate::no);
      CHECK(s[2] == ((0xa0b0c0d0u & 0x00ffff00u) | sr0 | (sr3 << 24)));
      const uint32_t sb1 = num::f32_to_e5m2_stochastic(x, r, Saturate::no);
      const uint32_t sb2 = num::f32_to_e5m2_stochastic(y, ~r, Saturate::no);
      CHECK(s[3] == ((sb1 << 8) | (sb2 << 16)));
      const uint32_t w = uint32_t(t * 0x01030507u) ^ 0x3c38b8c0u;
      auto f = [](float v) { return std::bit_cast<uint32_t>(v); };
      CHECK(s[4] == f(num::e4m3_to_f32(uint8_t(w))));
      CHECK(s[5] == f(num::e4m3_to_f32(uint8_t(w >> 24))));
      CHECK(s[6] == f(num::e5m2_to_f32(uint8_t(w >> 8))));
      CHECK(s[7] == f(num::e5m2_to_f32(uint8_t(w >> 16))));
      CHECK(s[8] == f(num::e4m3_to_f32(uint8_t(w))));
      CHECK(s[9] == f(num::e4m3_to_f32(uint8_t(w >> 8))));
      CHECK(s[10] == f(num::e5m2_to_f32(uint8_t(w >> 16))));
      CHECK(s[11] == f(num::e5m2_to_f32(uint8_t(w >> 24))));
    }
  }
}

namespace {

// A float result of a dot product: NaN where the reference is NaN, else within f32 rounding of
// the sum of the terms' magnitudes (the hardware's summation order is not documented).
void check_float_dot(uint32_t got_bits, double ref, double magnitude) {
  const float got = std::bit_cast<float>(got_bits);
  if (std::isnan(ref)) {
    CHECK(std::isnan(got));
  } else if (std::isinf(ref) || std::fabs(ref) > double(FLT_MAX)) {
    CHECK(got == float(ref)); // beyond the f32 range: inf of the sign
  } else {
    CHECK(std::fabs(double(got) - ref) <= magnitude * 1.2e-7 + 1e-30);
  }
}

} // namespace

TEST_CASE("valu kernels: dot products, fma_mix, sin / cos / exp / log") {
  constexpr int kSlots = 14, kLanes = 32;
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> small(-24, 24);
  std::vector<uint32_t> a(kLanes), b(kLanes);
  std::vector<float> c(kLanes);
  for (int t = 0; t < kLanes; ++t) {
    auto h2 = [&] {
      return uint32_t(num::f32_to_f16(float(small(rng)) * 0.125f)) |
             (uint32_t(num::f32_to_f16(float(small(rng)) * 0.25f)) << 16);
    };
    a[t] = t < 16 ? h2() : uint32_t(rng());
    b[t] = t < 16 ? h2() : uint32_t(rng());
    c[t] = float(small(rng)) * 0.5f;
  }
  for (const test::KernelVariant& var : test::kernel_variants("valu_dot")) {
    CAPTURE(var.label);
    test::EmuRun run(var.path);
    auto da = run.upload(a), db = run.upload(b), dc = run.upload(c);
    auto dout = run.alloc<uint32_t>(kLanes * kSlots);
    runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).ptr(dout);
    run.launch("valu_dot", {1, 1, 1}, {32, 1, 1}, args);
    const auto o = run.download<uint32_t>(dout, kLanes * kSlots);
    for (int t = 0; t < kLanes; ++t) {
      CAPTURE(t);
      const uint32_t x = a[t], y = b[t];
      const double z = c[t];
      const uint32_t* s = &o[size_t(t) * kSlots];
      auto h = [](uint32_t w, int i) { return double(num::f16_to_f32(uint16_t(w >> (16 * i)))); };
      auto bf = [](uint32_t w, int i) { return double(num::bf16_to_f32(uint16_t(w >> (16 * i)))); };
      check_float_dot(s[0], h(x, 0) * h(y, 0) + h(x, 1) * h(y, 1) + z,
                      std::fabs(h(x, 0) * h(y, 0)) + std::fabs(h(x, 1) * h(y, 1)) + std::fabs(z));
      check_float_dot(s[1], bf(x, 0) * bf(y, 0) + bf(x, 1) * bf(y, 1) + z,
                      std::fabs(bf(x, 0) * bf(y, 0)) + std::fabs(bf(x, 1) * bf(y, 1)) +
                          std::fabs(z));
      auto u8 = [](uint32_t w, int i) { return int64_t((w >> (8 * i)) & 0xff); };
      auto s8 = [](uint32_t w, int i) { return int64_t(int8_t(uint8_t(w >> (8 * i)))); };
      auto u4 = [](uint32_t w, int i) { return int64_t((w >> (4 * i)) & 0xf); };
      auto s4 = [](uint32_t w, int i) { return int64_t(int32_t(w << (28 - 4 * i)) >> 28); };
      int64_t d2 = t, d3 = t - 16, d4 = 7, d5 = 1, d6 = 0xfffffff0ll;
      for (int i = 0; i < 4; ++i) {
        d2 += u8(x, i) * u8(y, i);
        d3 += s8(x, i) * u8(y, i);
        d6 += u8(x, i) * u8(y, i);
      }
      for (int i = 0; i < 8; ++i) {
        d4 += s4(x, i) * s4(y, i);
        d5 += u4(x, i) * u4(y, i);
      }
      CHECK(s[2] == uint32_t(d2));
      CHECK(int32_t(s[3]) == int32_t(d3));
      CHECK(int32_t(s[4]) == int32_t(d4));
      CHECK(s[5] == uint32_t(d5));
      CHECK(s[6] == uint32_t(std::min<int64_t>(d6, 0xffffffffll)));
      double f8 = z, f8m = std::fabs(z), b8 = z, b8m = std::fabs(z);
      for (int i = 0; i < 4; ++i) {
        const double p = double(num::e4m3_to_f32(uint8_t(x >> (8 * i)))) *
                         num::e5m2_to_f32(uint8_t(y >> (8 * i)));
        const double q = double(num::e5m2_to_f32(uint8_t(x >> (8 * i)))) *
                         num::e5m2_to_f32(uint8_t(y >> (8 * i)));
        f8 += p, f8m += std::fabs(p), b8 += q, b8m += std::fabs(q);
      }
      check_float_dot(s[7], f8, f8m);
      check_float_dot(s[8], b8, b8m);
      CHECK(std::bit_cast<float>(s[9]) == std::fma(float(h(x, 0)), float(h(y, 1)), float(z)));
      const double r = double(c[t] * 0.001f);
      CHECK(std::bit_cast<float>(s[10]) == doctest::Approx(std::sin(2 * M_PI * r)).epsilon(2e-6));
      CHECK(std::bit_cast<float>(s[11]) == doctest::Approx(std::cos(2 * M_PI * r)).epsilon(2e-6));
      CHECK(std::bit_cast<float>(s[12]) == doctest::Approx(std::exp2(r)).epsilon(2e-7));
      CHECK(std::bit_cast<float>(s[13]) ==
            doctest::Approx(std::log2(std::fabs(z) + 1.0)).epsilon(2e-7));
    }
  }
}
