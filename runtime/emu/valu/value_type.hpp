#pragma once
// Value type of one VALU operand as an instruction interprets it (runtime/emu/valu/vop.hpp).
#include <cstdint>

namespace tw::emu::valu {

enum class VT : uint8_t {
  none,
  b32, // 32-bit integer / raw bits
  f32,
  b16, // 16-bit integer (fake16: low half of the VGPR unless op_sel selects the high half)
  f16,
  b64,
  f64,
};

constexpr bool is_float(VT t) {
  return t == VT::f32 || t == VT::f16 || t == VT::f64;
}
constexpr bool is_64(VT t) {
  return t == VT::b64 || t == VT::f64;
}
constexpr bool is_16(VT t) {
  return t == VT::b16 || t == VT::f16;
}

} // namespace tw::emu::valu
