// The WMMA engine's element conversions (runtime/emu/valu/mma_convert.hpp) against tw::num's
// generic minifloat codec: every f16 / bf16 bit pattern decoded, and the encoders on every f32
// near an f16 / bf16 rounding boundary (each representable value and each midpoint between
// neighbours, +-2 ulp of f32) plus a sweep over the whole f32 range.
#include <runtime/emu/valu/mma_convert.hpp>

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <ios>
#include <vector>

using namespace tw;
namespace mc = tw::emu::valu::mma_convert;

namespace {

// Same bits, or both NaN (a NaN's payload does not reach the engine's results: every NaN result
// is written as the type's default NaN).
bool same_value(float a, float b) {
  return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

// f32 values around every boundary where rounding to a 16-bit format decides: the format's
// values and the midpoints between neighbours (given as f32 bit patterns), +-2 f32 ulp, both signs.
std::vector<float> boundary_inputs(float (*decode)(uint16_t)) {
  std::vector<float> out;
  for (uint32_t h = 0; h < 0x8000; ++h) {
    const float v = decode(uint16_t(h)), next = decode(uint16_t(h + 1));
    if (std::isnan(v))
      continue;
    std::vector<uint32_t> centres{std::bit_cast<uint32_t>(v)};
    if (!std::isnan(next) && !std::isinf(v))
      centres.push_back(std::bit_cast<uint32_t>(float((double(v) + double(next)) / 2)));
    for (uint32_t c : centres)
      for (int d = -2; d <= 2; ++d) {
        const uint32_t bits = c + uint32_t(d);
        for (uint32_t sign : {0u, 0x80000000u}) {
          const float x = std::bit_cast<float>((bits & 0x7fffffffu) | sign);
          if (!std::isnan(x))
            out.push_back(x);
        }
      }
  }
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 4093) { // a sweep of the whole range
    const float x = std::bit_cast<float>(uint32_t(bits));
    if (!std::isnan(x))
      out.push_back(x);
  }
  return out;
}

float f16_decode(uint16_t h) {
  return num::f16_to_f32(h);
}
float bf16_decode(uint16_t h) {
  return num::bf16_to_f32(h);
}

} // namespace

TEST_CASE("mma_convert: every f16 and bf16 bit pattern decodes to the generic codec's value") {
  int checked = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    INFO("bits 0x", std::hex, h);
    CHECK(same_value(mc::f16_to_f32(h), num::f16_to_f32(uint16_t(h))));
    CHECK(same_value(mc::bf16_to_f32(h), num::bf16_to_f32(uint16_t(h))));
    ++checked;
  }
  CHECK(checked == 65536);
  CHECK(std::bit_cast<uint32_t>(mc::f16_to_f32(0x0001)) == 0x33800000u); // 2^-24
  CHECK(std::bit_cast<uint32_t>(mc::f16_to_f32(0xfc00)) == 0xff800000u); // -inf
}

TEST_CASE("mma_convert: f32 -> f16 rounds to nearest even exactly as the generic codec") {
  size_t bad = 0;
  const auto inputs = boundary_inputs(f16_decode);
  for (float x : inputs)
    if (mc::f32_to_f16_rne(x) != num::f32_to_f16(x) && bad++ < 5)
      FAIL_CHECK("f32 0x", std::hex, std::bit_cast<uint32_t>(x), ": fast 0x", mc::f32_to_f16_rne(x),
                 " generic 0x", num::f32_to_f16(x));
  CHECK(bad == 0);
  CHECK(inputs.size() > 1000000);
  CHECK(mc::f32_to_f16_rne(65520.0f) == 0x7c00u);      // the midpoint above 65504 rounds to inf
  CHECK(mc::f32_to_f16_rne(0x1p-25f) == 0x0000u);      // half the smallest denormal: to even (0)
  CHECK(mc::f32_to_f16_rne(0x1.8p-24f) == 0x0002u);    // 1.5 denormal steps: to even (2)
  CHECK(mc::f32_to_f16_rne(-0x1.ffcp-15f) == 0x8400u); // rounds up into the normal range
}

TEST_CASE("mma_convert: f32 -> bf16 rounds to nearest even exactly as the generic codec") {
  size_t bad = 0;
  const auto inputs = boundary_inputs(bf16_decode);
  for (float x : inputs)
    if (mc::f32_to_bf16_rne(x) != num::f32_to_bf16(x) && bad++ < 5)
      FAIL_CHECK("f32 0x", std::hex, std::bit_cast<uint32_t>(x), ": fast 0x",
                 mc::f32_to_bf16_rne(x), " generic 0x", num::f32_to_bf16(x));
  CHECK(bad == 0);
  CHECK(inputs.size() > 1000000);
  CHECK(mc::f32_to_bf16_rne(std::bit_cast<float>(0x7f7fffffu)) == 0x7f80u); // max f32 -> inf
}
