// e8m0 scales, packed int4, int8 and the format descriptors, against hand-derived values.
#include <atoms/formats.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

using namespace tw::num;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float qnan = std::numeric_limits<float>::quiet_NaN();
} // namespace

TEST_CASE("e8m0: every code is 2^(e-127), 0xFF is NaN, encoding rounds down") {
  static_assert(e8m0_to_f32(127) == 1.0f);
  static_assert(e8m0_to_f32(0) == 0x1p-127f); // an f32 denormal
  static_assert(e8m0_to_f32(254) == 0x1p127f);
  CHECK(std::isnan(e8m0_to_f32(0xFF)));
  for (int e = 0; e < 255; ++e) {
    const float v = std::ldexp(1.0f, e - 127);
    INFO("e = " << e);
    REQUIRE(e8m0_to_f32(uint8_t(e)) == v);
    REQUIRE(f32_to_e8m0(v) == e);
    // Floor: anything in [2^k, 2^(k+1)) has the code of 2^k.
    REQUIRE(f32_to_e8m0(std::nextafter(2.0f * v, 0.0f)) == e);
    if (e > 0)
      REQUIRE(f32_to_e8m0(std::nextafter(v, 0.0f)) == e - 1);
  }
  CHECK(f32_to_e8m0(3.0f) == 0x80);
  CHECK(f32_to_e8m0(0.75f) == 0x7E);
  CHECK(f32_to_e8m0(std::numeric_limits<float>::max()) == 0xFE);
  CHECK(f32_to_e8m0(0x1p-140f) == 0x00); // below the smallest scale: clamps
  CHECK(f32_to_e8m0(0.0f) == 0x00);
  CHECK(f32_to_e8m0(-0.0f) == 0x00);
  CHECK(f32_to_e8m0(-1.0f) == 0xFF); // no sign bit: NaN
  CHECK(f32_to_e8m0(inf) == 0xFF);
  CHECK(f32_to_e8m0(qnan) == 0xFF);
}

TEST_CASE("int4: nibble order, sign extension, packing") {
  static_assert(int4_pack(1, 2) == 0x21); // element 0 in the low nibble
  static_assert(int4_pack(-1, -8) == 0x8F);
  static_assert(int4_get(0x8F, 0, true) == -1 && int4_get(0x8F, 1, true) == -8);
  static_assert(int4_get(0x8F, 0, false) == 15 && int4_get(0x8F, 1, false) == 8);
  for (int byte = 0; byte < 256; ++byte) {
    const int lo = byte & 0xF, hi = byte >> 4;
    CHECK(int4_get(uint8_t(byte), 0, false) == lo);
    CHECK(int4_get(uint8_t(byte), 1, false) == hi);
    CHECK(int4_get(uint8_t(byte), 0, true) == (lo < 8 ? lo : lo - 16));
    CHECK(int4_get(uint8_t(byte), 1, true) == (hi < 8 ? hi : hi - 16));
    CHECK(int4_pack(int4_get(uint8_t(byte), 0, true), int4_get(uint8_t(byte), 1, true)) == byte);
    CHECK(int4_pack(lo, hi) == byte);
  }
  CHECK_THROWS_AS(int4_pack(16, 0), std::out_of_range);
  CHECK_THROWS_AS(int4_pack(0, -9), std::out_of_range);
  CHECK_THROWS_AS(int4_get(0, 2, true), std::out_of_range);
}

TEST_CASE("int4 and int8 quantization: round half to even, then clamp") {
  // Signed int4: -8 .. 7.
  CHECK(f32_to_int4(0.5f, true) == 0x0);
  CHECK(f32_to_int4(1.5f, true) == 0x2);
  CHECK(f32_to_int4(2.5f, true) == 0x2);
  CHECK(f32_to_int4(-0.5f, true) == 0x0);
  CHECK(f32_to_int4(-1.5f, true) == 0xE); // -2
  CHECK(f32_to_int4(-2.5f, true) == 0xE); // -2
  CHECK(f32_to_int4(2.51f, true) == 0x3);
  CHECK(f32_to_int4(6.5f, true) == 0x6);
  CHECK(f32_to_int4(7.5f, true) == 0x7);  // rounds to 8, clamps to 7
  CHECK(f32_to_int4(-8.5f, true) == 0x8); // -8
  CHECK(f32_to_int4(1e9f, true) == 0x7);
  CHECK(f32_to_int4(-inf, true) == 0x8);
  CHECK(f32_to_int4(qnan, true) == 0x0);
  // Unsigned int4: 0 .. 15.
  CHECK(f32_to_int4(-3.0f, false) == 0x0);
  CHECK(f32_to_int4(14.5f, false) == 0xE);
  CHECK(f32_to_int4(15.5f, false) == 0xF);
  CHECK(f32_to_int4(inf, false) == 0xF);
  // int8: -128 .. 127.
  static_assert(f32_to_int8(126.5f) == 126);
  CHECK(f32_to_int8(127.5f) == 127);
  CHECK(f32_to_int8(-127.5f) == -128);
  CHECK(f32_to_int8(-128.5f) == -128);
  CHECK(f32_to_int8(-300.0f) == -128);
  CHECK(f32_to_int8(0.49999997f) == 0);
  CHECK(f32_to_int8(-0.5f) == 0);
  CHECK(f32_to_int8(3.5f) == 4);
  CHECK(f32_to_int8(-3.5f) == -4);
  CHECK(f32_to_int8(qnan) == 0);
  CHECK(f32_to_int8(inf) == 127);
  CHECK(f32_to_uint8(254.5f) == 254);
  CHECK(f32_to_uint8(255.5f) == 255);
  CHECK(f32_to_uint8(-1.0f) == 0);
  // Sweep: quarter steps over the whole int8 range against a hand rule. k/4 has fraction
  // 0, .25, .5 or .75; only .5 is a tie, and it goes to the even neighbour.
  for (int k = -4 * 130; k <= 4 * 130; ++k) {
    const float x = float(k) / 4.0f;
    const int whole = int(std::floor(x));
    const int frac4 = k - 4 * whole; // 0..3
    int expected =
        frac4 < 2 ? whole : (frac4 > 2 ? whole + 1 : (whole % 2 == 0 ? whole : whole + 1));
    expected = expected < -128 ? -128 : (expected > 127 ? 127 : expected);
    INFO("x = " << x);
    REQUIRE(f32_to_int8(x) == expected);
  }
}

TEST_CASE("format descriptors and dynamic encode / decode") {
  CHECK(format_info(Format::e4m3).max_finite == 448.0f);
  CHECK(format_info(Format::e5m2).max_finite == 57344.0f);
  CHECK(format_info(Format::f16).max_finite == 65504.0f);
  CHECK(format_info(Format::bf16).max_finite == std::bit_cast<float>(0x7F7F0000u));
  CHECK_FALSE(format_info(Format::e4m3).has_inf);
  CHECK(format_info(Format::e5m2).has_inf);
  CHECK(format_info(Format::int4).bits == 4);
  for (const FormatInfo& info : all_formats) {
    INFO(info.name);
    CHECK(try_parse_format(info.name) == info.format);
    CHECK(format_info(info.format).name == info.name);
    // The largest finite value is a fixed point of the format's own conversion.
    CHECK(decode(info.format, encode(info.format, info.max_finite)) == info.max_finite);
    if (!info.is_integer && info.format != Format::e8m0)
      CHECK(decode(info.format, encode(info.format, 1e38f * 10.0f, Saturate::yes)) ==
            info.max_finite);
  }
  CHECK(encode(Format::e4m3, 1000.0f) == 0x7F);
  CHECK(encode(Format::e4m3, 1000.0f, Saturate::yes) == 0x7E);
  CHECK(decode(Format::int4, 0xF) == -1.0f);
  CHECK(decode(Format::uint4, 0xF) == 15.0f);
  CHECK(decode(Format::int8, 0x80) == -128.0f);
  CHECK_THROWS_WITH_AS(parse_format("fp8"),
                       "unknown number format 'fp8': expected one of f16, bf16, e4m3, e5m2, "
                       "e8m0, int4, uint4, int8, uint8",
                       std::invalid_argument);
}
