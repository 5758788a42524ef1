#pragma once
// A run-time handle on every storage format: its name, width and range, and one
// encode / decode pair that dispatches to the exact conversions. `tilewave convert`, the
// oracles and the .npy tooling go through this instead of switching on formats themselves.
#include <atoms/formats/bf16.hpp>
#include <atoms/formats/e8m0.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>
#include <atoms/formats/int4.hpp>
#include <atoms/formats/int8.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tw::num {

enum class Format { f16, bf16, e4m3, e5m2, e8m0, int4, uint4, int8, uint8 };

struct FormatInfo {
  Format format;
  std::string_view name;
  int bits;         // storage bits of one element
  float max_finite; // largest finite value
  float min_finite; // most negative finite value (0 or a positive scale for unsigned ones)
  bool has_inf;
  bool has_nan;
  bool is_integer;
};

inline constexpr std::array<FormatInfo, 9> all_formats{{
    {Format::f16, "f16", 16, 65504.0f, -65504.0f, true, true, false},
    {Format::bf16, "bf16", 16, 0x1.fep127f, -0x1.fep127f, true, true, false},
    {Format::e4m3, "e4m3", 8, 448.0f, -448.0f, false, true, false},
    {Format::e5m2, "e5m2", 8, 57344.0f, -57344.0f, true, true, false},
    {Format::e8m0, "e8m0", 8, 0x1p127f, 0x1p-127f, false, true, false},
    {Format::int4, "int4", 4, 7.0f, -8.0f, false, false, true},
    {Format::uint4, "uint4", 4, 15.0f, 0.0f, false, false, true},
    {Format::int8, "int8", 8, 127.0f, -128.0f, false, false, true},
    {Format::uint8, "uint8", 8, 255.0f, 0.0f, false, false, true},
}};

constexpr const FormatInfo& format_info(Format f) {
  return all_formats[size_t(f)];
}

constexpr std::optional<Format> try_parse_format(std::string_view name) {
  for (const FormatInfo& info : all_formats)
    if (info.name == name)
      return info.format;
  return std::nullopt;
}

inline Format parse_format(std::string_view name) {
  if (auto f = try_parse_format(name))
    return *f;
  std::string known;
  for (const FormatInfo& info : all_formats)
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  throw std::invalid_argument("unknown number format '" + std::string(name) +
                              "': expected one of " + known);
}

// f32 -> stored bits (in the low format_info(f).bits bits), rounding to nearest even.
// `sat` picks clamping over inf / NaN for the float formats; the integer formats always
// clamp and e8m0 always rounds down to a power of two (see e8m0.hpp).
constexpr uint32_t encode(Format f, float x, Saturate sat = Saturate::no) {
  switch (f) {
  case Format::f16:
    return f32_to_f16(x, sat);
  case Format::bf16:
    return f32_to_bf16(x, sat);
  case Format::e4m3:
    return f32_to_e4m3(x, sat);
  case Format::e5m2:
    return f32_to_e5m2(x, sat);
  case Format::e8m0:
    return f32_to_e8m0(x);
  case Format::int4:
    return f32_to_int4(x, true);
  case Format::uint4:
    return f32_to_int4(x, false);
  case Format::int8:
    return uint8_t(f32_to_int8(x));
  case Format::uint8:
    return f32_to_uint8(x);
  }
  return 0;
}

// Stored bits -> the value they denote (exact). Bits above the format's width are ignored.
constexpr float decode(Format f, uint32_t bits) {
  switch (f) {
  case Format::f16:
    return f16_to_f32(uint16_t(bits));
  case Format::bf16:
    return bf16_to_f32(uint16_t(bits));
  case Format::e4m3:
    return e4m3_to_f32(uint8_t(bits));
  case Format::e5m2:
    return e5m2_to_f32(uint8_t(bits));
  case Format::e8m0:
    return e8m0_to_f32(uint8_t(bits));
  case Format::int4:
    return float(int4_get(uint8_t(bits & 0xF), 0, true));
  case Format::uint4:
    return float(int4_get(uint8_t(bits & 0xF), 0, false));
  case Format::int8:
    return float(int8_t(uint8_t(bits)));
  case Format::uint8:
    return float(uint8_t(bits));
  }
  return 0.0f;
}

} // namespace tw::num
