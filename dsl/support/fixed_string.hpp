#pragma once
// A string literal usable as a template argument (MmaAtom<"v_wmma_f32_16x16x16_f16">).
#include <cstddef>
#include <string_view>

namespace tw::dsl {

template <std::size_t N>
struct FixedString {
  char text[N]{};
  constexpr FixedString(const char (&s)[N]) { // NOLINT: implicit from a literal on purpose
    for (std::size_t i = 0; i < N; ++i)
      text[i] = s[i];
  }
  constexpr std::string_view view() const { return std::string_view(text, N - 1); }
};

} // namespace tw::dsl
