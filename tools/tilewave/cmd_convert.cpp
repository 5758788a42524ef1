// `tilewave convert --to FORMAT [--saturate] [--] VALUES...`: the stored bits of each value
// in a tilewave number format and the value those bits decode to, one line per value.
#include "tilewave/command.hpp"

#include <atoms/formats/format_info.hpp>

#include <charconv>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace tw::tool {
namespace {

// Reads one f32 (decimal or hex float, inf, nan; an optional leading '+'). Values too large
// or too small for f32 become inf or zero with the sign kept, as an f32 store would.
float parse_value(const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+')
    ++first;
  const bool hex = (last - first > 2 && first[0] == '0' && (first[1] == 'x' || first[1] == 'X')) ||
                   (last - first > 3 && first[0] == '-' && first[1] == '0' &&
                    (first[2] == 'x' || first[2] == 'X'));
  std::string hex_body; // from_chars(hex) takes no "0x" prefix
  if (hex) {
    const bool negative = *first == '-';
    hex_body = (negative ? "-" : "") + std::string(first + (negative ? 3 : 2), last);
    first = hex_body.data();
    last = hex_body.data() + hex_body.size();
  }
  const auto fmt = hex ? std::chars_format::hex : std::chars_format::general;
  float value = 0.0f;
  std::from_chars_result r = std::from_chars(first, last, value, fmt);
  if (r.ec == std::errc::result_out_of_range) {
    double wide = 0.0;
    r = std::from_chars(first, last, wide, fmt);
    value = float(wide);
  }
  if (r.ec != std::errc{} || r.ptr != last || first == last)
    throw std::invalid_argument("convert: value '" + text +
                                "' is not a number (expected e.g. 1.5, -2e-3, 0x1p-9, inf, nan)");
  return value;
}

std::string hex_bits(uint32_t bits, int width_bits) {
  const char* digits = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = ((width_bits + 3) / 4 - 1) * 4; shift >= 0; shift -= 4)
    out += digits[(bits >> shift) & 0xF];
  return out;
}

// Shortest text that reads back as the same f32.
std::string shortest(float v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, ptr) : std::string("?");
}

Command convert_command{
    "convert", "Show the stored bits of values in a number format and what they decode to",
    [](CLI::App& sub) -> Command::Action {
      struct Options {
        std::string to;
        bool saturate = false;
        std::vector<std::string> values;
      };
      auto opts = std::make_shared<Options>();
      sub.add_option("--to", opts->to,
                     "target format: f16, bf16, e4m3, e5m2, e8m0, int4, uint4, int8, uint8")
          ->required();
      sub.add_flag("--saturate", opts->saturate,
                   "clamp overflow to the largest finite value instead of inf / NaN");
      sub.add_option("values", opts->values, "f32 values (put negative ones after --)")->required();
      sub.footer("Rounding is to nearest even from f32 (e8m0: down to a power of two; integer "
                 "formats clamp). Each line: stored bits in hex, then their value.");
      return [opts]() {
        const num::Format format = num::parse_format(opts->to);
        const num::FormatInfo& info = num::format_info(format);
        const num::Saturate sat = opts->saturate ? num::Saturate::yes : num::Saturate::no;
        std::vector<float> inputs;
        for (const std::string& text : opts->values)
          inputs.push_back(parse_value(text)); // all checked before any output
        for (float x : inputs) {
          const uint32_t bits = num::encode(format, x, sat);
          std::cout << hex_bits(bits, info.bits) << ' ' << shortest(num::decode(format, bits))
                    << '\n';
        }
        return 0;
      };
    }};

} // namespace
} // namespace tw::tool
