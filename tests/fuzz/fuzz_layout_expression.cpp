// libFuzzer target: the layout expression parser and evaluator. Any input must evaluate or
// throw ExpressionError / LayoutError; a crash, hang, sanitizer report or other exception is
// a finding. Built by scripts/fuzz.sh (clang-22 -fsanitize=fuzzer,address,undefined).
#include <layouts/expression.hpp>
#include <layouts/layouts.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096)
    return 0;
  try {
    (void)tw::evaluate_layout_expression(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const tw::ExpressionError&) {
  } catch (const tw::LayoutError&) {
  }
  return 0;
}
