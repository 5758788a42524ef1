#pragma once
// The gfx12 targets tilewave compiles for. gfx1200 (Navi 44) and gfx1201 (Navi 48)
// share the ISA; every shipped kernel builds for both.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tw {

enum class Arch { gfx1200, gfx1201 };

constexpr std::string_view arch_name(Arch a) {
  return a == Arch::gfx1200 ? "gfx1200" : "gfx1201";
}

constexpr std::optional<Arch> try_parse_arch(std::string_view s) {
  if (s == "gfx1200")
    return Arch::gfx1200;
  if (s == "gfx1201")
    return Arch::gfx1201;
  return std::nullopt;
}

// Throws with the rule when `s` names an arch tilewave does not target.
inline Arch parse_arch(std::string_view s) {
  if (auto a = try_parse_arch(s))
    return *a;
  throw std::invalid_argument("unsupported arch '" + std::string(s) +
                              "': tilewave targets RDNA4 only (gfx1200, gfx1201)");
}

} // namespace tw
