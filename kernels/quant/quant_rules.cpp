// The shared quantization rules (see quant_rules.hpp).
#include <kernels/quant/quant_rules.hpp>

#include <stdexcept>
#include <string>

namespace tw::kernels::quant_rules {

using namespace tw::dsl;

float code_max(DType codes) {
  switch (codes) {
  case DType::int8:
    return 127.0f;
  case DType::e4m3:
    return 448.0f;
  case DType::e5m2:
    return 57344.0f;
  default:
    throw std::invalid_argument("quant_rules::code_max: " + std::string(dtype_name(codes)) +
                                " is not a code dtype (int8, e4m3, e5m2)");
  }
}

Float32 absmax_scale(const Float32& amax, float code_max) {
  return select(amax == Float32(0.0), Float32(1.0), amax / Float32(code_max));
}

Float32 int8_code(const Float32& y) {
  return min(max(round_half_even(y), Float32(-128.0)), Float32(127.0));
}

Float32 code_of(DType codes, const Float32& y) {
  code_max(codes); // rejects a dtype that is not a code dtype
  return codes == DType::int8 ? int8_code(y) : y;
}

} // namespace tw::kernels::quant_rules
