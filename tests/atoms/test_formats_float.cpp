// f16, bf16 and OCP fp8 conversions against hand-derived constants and against the
// independent reference model in format_reference.hpp.
#include "atoms/format_reference.hpp"

#include <atoms/formats.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

using namespace tw::num;
using tw::test::RefFormat;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float qnan = std::numeric_limits<float>::quiet_NaN();

std::string hex(uint32_t v) {
  const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0xF]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

bool same_bits_or_both_nan(float a, double b) {
  if (std::isnan(b))
    return std::isnan(a);
  return double(a) == b && std::signbit(a) == std::signbit(b);
}

// Every code decodes like the reference formula, and every non-NaN code survives
// decode -> encode; NaN codes decode to NaN and encode back to a NaN code of the same sign.
// A saturating encoder maps the inf codes to the largest finite value of that sign.
template <class Decode, class Encode>
void check_all_codes(RefFormat ref, const MinifloatSpec& spec, Decode decode, Encode encode,
                     bool saturating = false) {
  const uint32_t n = 1u << tw::test::ref_bits(ref);
  int nan_codes = 0;
  for (uint32_t c = 0; c < n; ++c) {
    const float v = decode(c);
    INFO("code " << hex(c));
    REQUIRE(same_bits_or_both_nan(v, tw::test::ref_decode(ref, c)));
    if (tw::test::ref_is_nan(ref, c)) {
      ++nan_codes;
      const uint32_t back = encode(v);
      CHECK(tw::test::ref_is_nan(ref, back));
      CHECK((back & spec.sign_mask()) == (c & spec.sign_mask()));
    } else if (std::isinf(v) && saturating) {
      CHECK(encode(v) == c - 1); // the code below an inf code is the largest finite one
    } else {
      REQUIRE(encode(v) == c);
    }
  }
  const int expected_nans = ref.has_inf ? 2 * ((1 << ref.mantissa_bits) - 1) : 2;
  CHECK(nan_codes == expected_nans);
}

// Inputs that stress rounding: every representable value, every midpoint between
// neighbours and the f32 just below and above each, plus random f32 bit patterns.
template <class Encode>
void check_rounding_against_reference(RefFormat ref, Encode encode, bool saturate,
                                      tw::test::RefRounding mode, int random_count) {
  const auto table = tw::test::ref_positive_table(ref);
  auto check = [&](float x) {
    for (float v : {x, -x}) {
      INFO("x = " << v << " (f32 " << hex(std::bit_cast<uint32_t>(v)) << ")");
      REQUIRE(encode(v) == tw::test::ref_encode(ref, table, v, saturate, mode));
    }
  };
  for (size_t i = 0; i + 1 < table.size(); ++i) {
    const double mid = (table[i].value + table[i + 1].value) / 2;
    const float midf = float(mid);
    REQUIRE(double(midf) == mid); // midpoints of these formats are exact f32 values
    for (float x :
         {float(table[i].value), midf, std::nextafter(midf, 0.0f), std::nextafter(midf, inf)})
      check(x);
  }
  const double top_mid =
      table.back().value + (table.back().value - table[table.size() - 2].value) / 2;
  for (float x : {float(top_mid), std::nextafter(float(top_mid), 0.0f),
                  std::nextafter(float(top_mid), inf), float(table.back().value) * 4, inf,
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()})
    check(x);
  tw::test::SplitMix rng{0x5eed};
  for (int i = 0; i < random_count; ++i) {
    const float x = std::bit_cast<float>(rng.next32() & 0x7FFFFFFFu);
    if (!std::isnan(x))
      check(x);
  }
}

} // namespace

TEST_CASE("f16: all 65536 codes decode by the formula and round-trip") {
  check_all_codes(
      tw::test::ref_f16, f16_spec, [](uint32_t c) { return f16_to_f32(uint16_t(c)); },
      [](float v) { return uint32_t(f32_to_f16(v)); });
}

TEST_CASE("bf16: all 65536 codes decode by the formula and round-trip") {
  check_all_codes(
      tw::test::ref_bf16, bf16_spec, [](uint32_t c) { return bf16_to_f32(uint16_t(c)); },
      [](float v) { return uint32_t(f32_to_bf16(v)); });
}

TEST_CASE("e4m3: all 256 codes decode by the formula and round-trip") {
  for (Saturate sat : {Saturate::no, Saturate::yes})
    check_all_codes(
        tw::test::ref_e4m3, e4m3_spec, [](uint32_t c) { return e4m3_to_f32(uint8_t(c)); },
        [sat](float v) { return uint32_t(f32_to_e4m3(v, sat)); }, sat == Saturate::yes);
}

TEST_CASE("e5m2: all 256 codes decode by the formula and round-trip") {
  for (Saturate sat : {Saturate::no, Saturate::yes})
    check_all_codes(
        tw::test::ref_e5m2, e5m2_spec, [](uint32_t c) { return e5m2_to_f32(uint8_t(c)); },
        [sat](float v) { return uint32_t(f32_to_e5m2(v, sat)); }, sat == Saturate::yes);
}

TEST_CASE("round to nearest even matches the nearest-value search") {
  using tw::test::RefRounding;
  check_rounding_against_reference(
      tw::test::ref_f16, [](float v) { return uint32_t(f32_to_f16(v)); }, false,
      RefRounding::nearest_even, 20000);
  check_rounding_against_reference(
      tw::test::ref_f16, [](float v) { return uint32_t(f32_to_f16(v, Saturate::yes)); }, true,
      RefRounding::nearest_even, 2000);
  check_rounding_against_reference(
      tw::test::ref_bf16, [](float v) { return uint32_t(f32_to_bf16(v)); }, false,
      RefRounding::nearest_even, 20000);
  for (bool sat : {false, true}) {
    const Saturate s = sat ? Saturate::yes : Saturate::no;
    check_rounding_against_reference(
        tw::test::ref_e4m3, [s](float v) { return uint32_t(f32_to_e4m3(v, s)); }, sat,
        RefRounding::nearest_even, 20000);
    check_rounding_against_reference(
        tw::test::ref_e5m2, [s](float v) { return uint32_t(f32_to_e5m2(v, s)); }, sat,
        RefRounding::nearest_even, 20000);
  }
}

TEST_CASE("directed roundings match the neighbour search") {
  using tw::test::RefRounding;
  check_rounding_against_reference(
      tw::test::ref_f16, [](float v) { return uint32_t(f32_to_f16_rtz(v)); }, false,
      RefRounding::toward_zero, 20000);
  check_rounding_against_reference(
      tw::test::ref_bf16, [](float v) { return uint32_t(f32_to_bf16_rtz(v)); }, false,
      RefRounding::toward_zero, 20000);
  const std::pair<Rounding, RefRounding> modes[] = {
      {Rounding::toward_zero, RefRounding::toward_zero},
      {Rounding::toward_positive, RefRounding::toward_positive},
      {Rounding::toward_negative, RefRounding::toward_negative}};
  for (auto [mode, ref_mode] : modes) {
    check_rounding_against_reference(
        tw::test::ref_f16, [mode](float v) { return uint32_t(f32_to_f16(v, mode)); }, false,
        ref_mode, 5000);
    check_rounding_against_reference(
        tw::test::ref_bf16, [mode](float v) { return uint32_t(f32_to_bf16(v, mode)); }, false,
        ref_mode, 5000);
  }
  // Hand cases: 1 + 2^-12 lies between 1 (0x3c00) and 1 + 2^-10 (0x3c01).
  CHECK(f32_to_f16(1.0f + 0x1p-12f, Rounding::toward_positive) == 0x3C01);
  CHECK(f32_to_f16(1.0f + 0x1p-12f, Rounding::toward_negative) == 0x3C00);
  CHECK(f32_to_f16(-1.0f - 0x1p-12f, Rounding::toward_positive) == 0xBC00);
  CHECK(f32_to_f16(-1.0f - 0x1p-12f, Rounding::toward_negative) == 0xBC01);
  CHECK(f32_to_f16(1e6f, Rounding::toward_positive) == 0x7C00);
  CHECK(f32_to_f16(1e6f, Rounding::toward_negative) == 0x7BFF);
  CHECK(f32_to_f16(-1e6f, Rounding::toward_positive) == 0xFBFF);
  CHECK(f32_to_f16(-1e6f, Rounding::toward_negative) == 0xFC00);
  CHECK(f32_to_f16(0x1p-30f, Rounding::toward_positive) == 0x0001); // smallest denormal
  CHECK(f32_to_f16(-0x1p-30f, Rounding::toward_positive) == 0x8000);
}

TEST_CASE("f64 sources round once") {
  using tw::test::RefRounding;
  // Doubles just off the f16 / bf16 / fp8 midpoints: an f64 -> f32 step would land them on
  // the midpoint and the tie would then go to even, the wrong way half of the time.
  struct Case {
    RefFormat ref;
    uint32_t (*encode)(double);
  };
  const Case cases[] = {
      {tw::test::ref_f16, [](double v) { return uint32_t(f64_to_f16(v)); }},
      {tw::test::ref_bf16, [](double v) { return uint32_t(f64_to_bf16(v)); }},
      {tw::test::ref_e4m3, [](double v) { return uint32_t(f64_to_e4m3(v, Saturate::no)); }},
      {tw::test::ref_e5m2, [](double v) { return uint32_t(f64_to_e5m2(v, Saturate::no)); }},
  };
  int double_rounding_cases = 0;
  for (const Case& c : cases) {
    const auto table = tw::test::ref_positive_table(c.ref);
    for (size_t i = 0; i + 1 < table.size(); i += (table.size() > 4096 ? 7 : 1)) {
      const double mid = (table[i].value + table[i + 1].value) / 2;
      for (double x :
           {mid * (1 + 0x1p-40), mid * (1 - 0x1p-40), mid, table[i].value, -mid * (1 + 0x1p-40)}) {
        INFO("x = " << x);
        REQUIRE(c.encode(x) == tw::test::ref_encode(c.ref, table, x, false));
        if (c.encode(x) != tw::test::ref_encode(c.ref, table, double(float(x)), false))
          ++double_rounding_cases;
      }
    }
    CHECK(std::isnan(tw::test::ref_decode(c.ref, c.encode(std::nan("")))));
    CHECK(c.encode(1e300) == tw::test::ref_encode(c.ref, table, 1e300, false));
    CHECK(c.encode(1e-300) == 0);
  }
  CHECK(double_rounding_cases > 0); // the inputs really do separate the two paths
  CHECK(f64_to_f16(1.0 + 0x1p-11 + 0x1p-40) == 0x3C01);        // just above the tie: up
  CHECK(f32_to_f16(float(1.0 + 0x1p-11 + 0x1p-40)) == 0x3C00); // via f32: tie, even
  CHECK(f64_to_f16(1.0 + 0x1p-12, Rounding::toward_positive) == 0x3C01);
  CHECK_THROWS_AS(minifloat_encode(f16_spec, 1.0, Rounding::stochastic, Saturate::no),
                  std::invalid_argument);
}

// Constants derived by hand from the format definitions (IEEE 754 binary16, bfloat16,
// OCP OFP8 v1.0 tables for E4M3 and E5M2).
TEST_CASE("hand-derived constants: f16 and bf16") {
  static_assert(f32_to_f16(1.0f) == 0x3C00 && f32_to_f16(-2.0f) == 0xC000);
  static_assert(f32_to_f16(65504.0f) == 0x7BFF);
  static_assert(f16_to_f32(0x0001) == 0x1p-24f);     // smallest denormal
  static_assert(f16_to_f32(0x03FF) == 0x1.ff8p-15f); // largest denormal
  static_assert(f16_to_f32(0x0400) == 0x1p-14f);     // smallest normal
  CHECK(f32_to_f16(65519.0f) == 0x7BFF);             // below max + half ulp (65520)
  CHECK(f32_to_f16(65520.0f) == 0x7C00);             // the tie goes to the even "next" code: inf
  CHECK(f32_to_f16(65520.0f, Saturate::yes) == 0x7BFF);
  CHECK(f32_to_f16(inf) == 0x7C00);
  CHECK(f32_to_f16(-inf) == 0xFC00);
  CHECK(f32_to_f16(0x1p-25f) == 0x0000);        // tie between 0 and 2^-24: even is 0
  CHECK(f32_to_f16(0x1.000002p-25f) == 0x0001); // just above the tie
  CHECK(f32_to_f16(0x1.8p-24f) == 0x0002);      // 1.5 denormal ulps: tie to even 2
  CHECK(f32_to_f16(1.0f + 0x1p-11f) == 0x3C00); // tie, 0x3C00 even
  CHECK(f32_to_f16(1.0f + 0x3p-11f) == 0x3C02); // tie, 0x3C01 odd -> 0x3C02
  CHECK(f32_to_f16(-0.0f) == 0x8000);
  CHECK(f32_to_f16(qnan) == 0x7E00);
  CHECK(std::isnan(f16_to_f32(0x7C01))); // signalling NaN code decodes to NaN
  CHECK(f32_to_f16(std::bit_cast<float>(0x7F800001u)) == 0x7E00); // sNaN is made quiet
  // Round toward zero: truncation, no overflow to inf from finite values.
  CHECK(f32_to_f16_rtz(1.0f + 0x1.fp-11f) == 0x3C00);
  CHECK(f32_to_f16_rtz(-1.0f - 0x1.fp-11f) == 0xBC00);
  CHECK(f32_to_f16_rtz(1e6f) == 0x7BFF);
  CHECK(f32_to_f16_rtz(inf) == 0x7C00);

  static_assert(f32_to_bf16(1.0f) == 0x3F80);
  CHECK(f32_to_bf16(1.0f + 0x1p-8f) == 0x3F80);                    // tie, even
  CHECK(f32_to_bf16(1.0f + 0x3p-8f) == 0x3F82);                    // tie, odd -> up
  CHECK(f32_to_bf16(std::numeric_limits<float>::max()) == 0x7F80); // rounds past max: inf
  CHECK(f32_to_bf16(std::numeric_limits<float>::max(), Saturate::yes) == 0x7F7F);
  CHECK(bf16_to_f32(0x0001) == 0x1p-133f); // denormal kept
  CHECK(f32_to_bf16(0x1p-133f) == 0x0001);
  CHECK(f32_to_bf16_rtz(std::bit_cast<float>(0x3F80FFFFu)) == 0x3F80);
  CHECK(f32_to_bf16(qnan) == 0x7FC0);
}

TEST_CASE("hand-derived constants: e4m3 (OCP E4M3FN)") {
  static_assert(f32_to_e4m3(448.0f, Saturate::no) == 0x7E); // S.1111.110 = 1.75 * 2^8
  static_assert(e4m3_to_f32(0x7E) == 448.0f && e4m3_to_f32(0xFE) == -448.0f);
  static_assert(e4m3_to_f32(0x38) == 1.0f);      // 0.0111.000: exponent 7 - bias 7
  static_assert(e4m3_to_f32(0x01) == 0x1p-9f);   // smallest denormal: 2^-6 * 1/8
  static_assert(e4m3_to_f32(0x07) == 0x1.cp-7f); // largest denormal: 7/8 * 2^-6
  static_assert(e4m3_to_f32(0x08) == 0x1p-6f);   // smallest normal
  static_assert(e4m3_to_f32(0x78) == 256.0f);    // 0.1111.000 is finite in E4M3FN
  CHECK(std::isnan(e4m3_to_f32(0x7F)));
  CHECK(std::isnan(e4m3_to_f32(0xFF)));
  CHECK(std::signbit(e4m3_to_f32(0xFF)));
  CHECK(e4m3_to_f32(0x80) == 0.0f);
  CHECK(std::signbit(e4m3_to_f32(0x80)));
  // Overflow: spacing in the top binade is 32, so 464 is the tie between 448 (0x7E, even)
  // and the would-be 480 (0x7F, NaN): it rounds to 448; anything above overflows.
  CHECK(f32_to_e4m3(464.0f, Saturate::no) == 0x7E);
  CHECK(f32_to_e4m3(464.00003f, Saturate::no) == 0x7F);
  CHECK(f32_to_e4m3(-500.0f, Saturate::no) == 0xFF);
  CHECK(f32_to_e4m3(500.0f, Saturate::yes) == 0x7E);
  CHECK(f32_to_e4m3(-1e30f, Saturate::yes) == 0xFE);
  CHECK(f32_to_e4m3(inf, Saturate::no) == 0x7F); // no inf in the format
  CHECK(f32_to_e4m3(-inf, Saturate::yes) == 0xFE);
  CHECK(f32_to_e4m3(qnan, Saturate::yes) == 0x7F); // NaN stays NaN even when saturating
  CHECK(f32_to_e4m3(-qnan, Saturate::no) == 0xFF);
  // Ties and denormals.
  CHECK(f32_to_e4m3(0x1p-10f, Saturate::no) == 0x00);  // half the smallest denormal: even 0
  CHECK(f32_to_e4m3(0x1.8p-9f, Saturate::no) == 0x02); // 1.5 ulps -> 2
  CHECK(f32_to_e4m3(0x1.4p-9f, Saturate::no) == 0x01);
  CHECK(f32_to_e4m3(1.0625f, Saturate::no) == 0x38); // 1 + 1/16: tie, even 1.0
  CHECK(f32_to_e4m3(1.1875f, Saturate::no) == 0x3A); // 1 + 3/16: tie, odd 1.125 -> 1.25
  CHECK(f32_to_e4m3(std::numeric_limits<float>::denorm_min(), Saturate::no) == 0x00);
  CHECK(f32_to_e4m3(-std::numeric_limits<float>::denorm_min(), Saturate::no) == 0x80);
}

TEST_CASE("hand-derived constants: e5m2 (OCP E5M2)") {
  static_assert(f32_to_e5m2(57344.0f, Saturate::no) == 0x7B); // 0.11110.11 = 1.75 * 2^15
  static_assert(e5m2_to_f32(0x3C) == 1.0f);
  static_assert(e5m2_to_f32(0x01) == 0x1p-16f); // smallest denormal: 2^-14 * 1/4
  static_assert(e5m2_to_f32(0x04) == 0x1p-14f); // smallest normal
  CHECK(e5m2_to_f32(0x7C) == inf);
  CHECK(e5m2_to_f32(0xFC) == -inf);
  for (uint8_t c : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF})
    CHECK(std::isnan(e5m2_to_f32(c)));
  // Top spacing 8192: 61440 is the tie between 57344 (0x7B, odd) and 65536 (inf, even).
  CHECK(f32_to_e5m2(61439.996f, Saturate::no) == 0x7B);
  CHECK(f32_to_e5m2(61440.0f, Saturate::no) == 0x7C);
  CHECK(f32_to_e5m2(61440.0f, Saturate::yes) == 0x7B);
  CHECK(f32_to_e5m2(-1e9f, Saturate::no) == 0xFC);
  CHECK(f32_to_e5m2(-1e9f, Saturate::yes) == 0xFB);
  CHECK(f32_to_e5m2(inf, Saturate::no) == 0x7C);
  CHECK(f32_to_e5m2(inf, Saturate::yes) == 0x7B);
  CHECK(std::isnan(e5m2_to_f32(f32_to_e5m2(qnan, Saturate::yes))));
  CHECK(f32_to_e5m2(0x1p-17f, Saturate::no) == 0x00); // tie to even 0
  CHECK(f32_to_e5m2(0x1.8p-16f, Saturate::no) == 0x02);
  CHECK(f32_to_e5m2(1.125f, Saturate::no) == 0x3C); // 1 + 1/8: tie, even 1.0
  CHECK(f32_to_e5m2(1.375f, Saturate::no) == 0x3E); // 1 + 3/8: tie, odd 1.25 -> 1.5
}

TEST_CASE("stochastic rounding to fp8") {
  using Fn = uint8_t (*)(float, uint32_t, Saturate);
  struct Case {
    const char* name;
    RefFormat ref;
    Fn sr;
    float (*decode)(uint8_t);
  };
  const Case cases[] = {
      {"e4m3", tw::test::ref_e4m3, f32_to_e4m3_stochastic, e4m3_to_f32},
      {"e5m2", tw::test::ref_e5m2, f32_to_e5m2_stochastic, e5m2_to_f32},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const auto table = tw::test::ref_positive_table(c.ref);
    tw::test::SplitMix rng{42};
    // Inputs strictly inside the finite range, across all binades and the denormals.
    for (int i = 0; i < 2000; ++i) {
      const double top = table.back().value;
      const double lo_exp = std::log2(table[1].value) - 2;
      const double e = lo_exp + (std::log2(top) - lo_exp) * double(rng.next32()) / 4294967296.0;
      float x = float(std::exp2(e));
      if (x >= top)
        continue;
      if (rng.next32() & 1)
        x = -x;
      const auto [below, above] = tw::test::ref_bracket(table, std::fabs(double(x)));
      const uint32_t sign = std::signbit(x) ? 0x80 : 0;
      INFO("x = " << x);
      CHECK(c.sr(x, 0, Saturate::no) == (sign | below.code));           // toward zero
      CHECK(c.sr(x, 0xFFFFFFFFu, Saturate::no) == (sign | above.code)); // away when inexact
      for (int k = 0; k < 4; ++k) {
        const uint8_t r = c.sr(x, rng.next32(), Saturate::no);
        CHECK((r == (sign | below.code) || r == (sign | above.code)));
      }
    }
    // Unbiased: the mean over many draws approaches x (4.5 sigma of a Bernoulli mean).
    const float probes[] = {1.1f, 3.3f, -0.7f, 100.7f, 0.001f, 0.0123f, 5e-6f};
    for (float x : probes) {
      const auto [below, above] = tw::test::ref_bracket(table, std::fabs(double(x)));
      const int draws = 40000;
      double sum = 0;
      for (int i = 0; i < draws; ++i)
        sum += c.decode(c.sr(x, rng.next32(), Saturate::no));
      const double mean = sum / draws;
      const double gap = above.value - below.value;
      const double p = (std::fabs(double(x)) - below.value) / gap;
      const double sigma = gap * std::sqrt(p * (1 - p) / draws);
      INFO("x = " << x << " mean = " << mean);
      CHECK(std::fabs(mean - double(x)) <= 4.5 * sigma + 1e-12 * gap);
    }
    // Exact values never move; zero stays signed zero; NaN stays NaN.
    for (const auto& entry : table)
      CHECK(c.sr(float(entry.value), 0xFFFFFFFFu, Saturate::no) == entry.code);
    CHECK(c.sr(-0.0f, 0xFFFFFFFFu, Saturate::no) == 0x80);
    CHECK(std::isnan(c.decode(c.sr(qnan, 123, Saturate::yes))));
  }
  // Overflow: rounding up past the largest finite value follows the saturate flag.
  CHECK(f32_to_e4m3_stochastic(450.0f, 0, Saturate::no) == 0x7E);
  CHECK(f32_to_e4m3_stochastic(450.0f, 0xFFFFFFFFu, Saturate::no) == 0x7F);
  CHECK(f32_to_e4m3_stochastic(450.0f, 0xFFFFFFFFu, Saturate::yes) == 0x7E);
  CHECK(f32_to_e5m2_stochastic(60000.0f, 0xFFFFFFFFu, Saturate::no) == 0x7C);
  CHECK(f32_to_e5m2_stochastic(60000.0f, 0xFFFFFFFFu, Saturate::yes) == 0x7B);
  CHECK(f32_to_e5m2_stochastic(-inf, 7, Saturate::no) == 0xFC);
  // Straight from f32, no intermediate f16: 1 + 2^-20 is 1.0 in f16 but must still be able
  // to round up to the next e4m3 value (1.125) with all-ones random bits.
  CHECK(f32_to_e4m3_stochastic(1.0f + 0x1p-20f, 0xFFFFFFFFu, Saturate::no) == 0x39);
  // The random bits sit under the dropped bits of the f32 significand: 1 + 1/32 drops 20
  // bits holding 0x40000 (a quarter of an e4m3 ulp), so the carry needs the low 20 random bits
  // >= 0xC0000; the bits above them do not matter.
  CHECK(f32_to_e4m3_stochastic(1.03125f, 0x000BFFFFu, Saturate::no) == 0x38);
  CHECK(f32_to_e4m3_stochastic(1.03125f, 0x000C0000u, Saturate::no) == 0x39);
  CHECK(f32_to_e4m3_stochastic(1.03125f, 0xFFFBFFFFu, Saturate::no) == 0x38);
  CHECK(f32_to_e4m3_stochastic(1.03125f, 0x123C0000u, Saturate::no) == 0x39);
  // e5m2 drops 21 bits: 1 + 1/16 holds 0x80000 there (a quarter of an ulp).
  CHECK(f32_to_e5m2_stochastic(1.0625f, 0x0017FFFFu, Saturate::no) == 0x3C);
  CHECK(f32_to_e5m2_stochastic(1.0625f, 0x00180000u, Saturate::no) == 0x3D);
}
