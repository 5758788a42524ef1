#include <dsl/ir/type.hpp>

#include <atoms/formats/fp8.hpp>

#include <cmath>

namespace tw::ir {

const char* to_string(AddrSpace s) {
  switch (s) {
  case AddrSpace::global:
    return "global";
  case AddrSpace::lds:
    return "lds";
  case AddrSpace::constant:
    return "constant";
  }
  return "?";
}

static std::string scalar_name(Type t) {
  switch (t.kind()) {
  case TypeKind::int_:
    return std::string("i").append(std::to_string(t.elem_bits()));
  case TypeKind::f16:
    return "f16";
  case TypeKind::bf16:
    return "bf16";
  case TypeKind::f32:
    return "f32";
  case TypeKind::e4m3:
    return "e4m3";
  case TypeKind::e5m2:
    return "e5m2";
  case TypeKind::ptr:
    return std::string("ptr<") + to_string(t.addr_space()) + ">";
  case TypeKind::buffer_rsrc:
    return "buffer_rsrc";
  case TypeKind::none:
    break;
  }
  return "<invalid>";
}

std::string to_string(Type t) {
  if (t.is_vector())
    return std::string("<")
        .append(std::to_string(t.lanes()))
        .append(" x ")
        .append(scalar_name(t))
        .append(">");
  return scalar_name(t);
}

Fp8Constant fp8_constant(Type t, double value) {
  const bool e4m3 = t.kind() == TypeKind::e4m3;
  const std::uint8_t code = e4m3 ? num::f64_to_e4m3(value, num::Saturate::no)
                                 : num::f64_to_e5m2(value, num::Saturate::no);
  const double back = e4m3 ? num::e4m3_to_f32(code) : num::e5m2_to_f32(code);
  return {code, std::isnan(value) ? std::isnan(back) : back == value};
}

std::string type_error(Type t) {
  if (!t.valid())
    return "the type is invalid (default-constructed)";
  if (t.is_int() && (t.elem_bits() < 1 || t.elem_bits() > 64))
    return "integer width " + std::to_string(t.elem_bits()) + " is outside 1..64";
  if (t.lanes() < 1 || t.lanes() > 64)
    return "vector lane count " + std::to_string(t.lanes()) + " is outside 2..64";
  if (t.is_vector()) {
    if (t.is_ptr() || t.is_buffer_rsrc())
      return "vectors of " + scalar_name(t) +
             " are not supported (elements must be ints, "
             "floats or fp8)";
    if (t.is_int(1))
      return "vectors of i1 are not supported (i1 is a scalar boolean)";
    if (t.is_int(4) && t.lanes() % 8 != 0)
      return "packed int4 vector " + to_string(t) +
             " must hold a multiple of 8 elements (whole 32-bit registers)";
    if (t.is_int() && t.elem_bits() != 4 && t.elem_bits() % 8 != 0)
      return "vector elements of " + scalar_name(t) +
             " are not supported (use i4, i8, "
             "i16, i32 or i64)";
  }
  return "";
}

} // namespace tw::ir
