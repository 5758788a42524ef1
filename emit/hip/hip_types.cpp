#include <emit/hip/hip_types.hpp>

namespace tw::emit::hip {

using ir::Type;
using ir::TypeKind;

static std::string unsigned_int_name(int bits) {
  switch (bits) {
  case 8:
    return "unsigned char";
  case 16:
    return "unsigned short";
  case 32:
    return "unsigned int";
  case 64:
    return "unsigned long long";
  default:
    return "unsigned _BitInt(" + std::to_string(bits) + ")";
  }
}

static std::string signed_int_name(int bits) {
  switch (bits) {
  case 8:
    return "signed char";
  case 16:
    return "short";
  case 32:
    return "int";
  case 64:
    return "long long";
  default:
    return "_BitInt(" + std::to_string(bits) + ")";
  }
}

static std::string short_int_name(bool is_signed, int bits) {
  return std::string(is_signed ? "s" : "u").append(std::to_string(bits));
}

std::string HipTypes::scalar_storage(Type t) const {
  switch (t.kind()) {
  case TypeKind::int_:
    return t.is_bool() ? "bool" : unsigned_int_name(t.elem_bits());
  case TypeKind::f16:
    return "_Float16";
  case TypeKind::bf16:
    return "__bf16";
  case TypeKind::f32:
    return "float";
  case TypeKind::e4m3:
  case TypeKind::e5m2:
    return "unsigned char";
  case TypeKind::ptr:
    return pointer(t.addr_space());
  case TypeKind::buffer_rsrc:
    return "__amdgpu_buffer_rsrc_t";
  case TypeKind::none:
    break;
  }
  return "void";
}

std::string HipTypes::vector_typedef(const std::string& elem, const std::string& short_name,
                                     int lanes, int align) {
  std::string name = "tw_" + short_name + "x" + std::to_string(lanes);
  std::string attrs = "ext_vector_type(" + std::to_string(lanes) + ")";
  if (align) {
    name += "_a" + std::to_string(align);
    attrs += ", aligned(" + std::to_string(align) + ")";
  }
  typedefs_.emplace(name, "typedef " + elem + " " + name + " __attribute__((" + attrs + "));");
  return name;
}

static std::string short_elem_name(Type e) {
  switch (e.kind()) {
  case TypeKind::int_:
    return short_int_name(false, e.elem_bits());
  case TypeKind::f16:
    return "f16";
  case TypeKind::bf16:
    return "bf16";
  case TypeKind::f32:
    return "f32";
  default:
    return "u8"; // fp8 bit patterns
  }
}

std::string HipTypes::storage(Type t) {
  if (!t.is_vector())
    return scalar_storage(t);
  if (t.is_int(4)) // packed int4: whole 32-bit words
    return t.lanes() == 8 ? "unsigned int" : vector_typedef("unsigned int", "u32", t.lanes() / 8);
  return vector_typedef(scalar_storage(t.element()), short_elem_name(t.element()), t.lanes());
}

std::string HipTypes::storage_aligned(Type t, int align) {
  if (t.is_vector() && !t.is_int(4))
    return vector_typedef(scalar_storage(t.element()), short_elem_name(t.element()), t.lanes(),
                          align);
  if (t.is_int(4) && t.lanes() > 8)
    return vector_typedef("unsigned int", "u32", t.lanes() / 8, align);
  const std::string base = storage(t);
  std::string name = "tw_";
  for (char c : base)
    name += c == ' ' ? '_' : c;
  name += "_a" + std::to_string(align);
  typedefs_.emplace(name, "typedef " + base + " " + name + " __attribute__((aligned(" +
                              std::to_string(align) + ")));");
  return name;
}

std::string HipTypes::signed_of(Type t) {
  if (!t.is_vector())
    return signed_int_name(t.elem_bits());
  return vector_typedef(signed_int_name(t.elem_bits()), short_int_name(true, t.elem_bits()),
                        t.lanes());
}

std::string HipTypes::arith_unsigned(Type t) {
  if (t.is_vector())
    return storage(t);
  const int b = t.elem_bits();
  if (b == 8 || b == 16 || b == 32)
    return "unsigned int";
  if (b == 64)
    return "unsigned long long";
  return storage(t);
}

std::string HipTypes::pointer(ir::AddrSpace s) {
  return "__attribute__((address_space(" + std::to_string(static_cast<int>(s)) +
         "))) unsigned char*";
}

std::string HipTypes::pointer_to(const std::string& elem, ir::AddrSpace s) {
  return "__attribute__((address_space(" + std::to_string(static_cast<int>(s)) + "))) " + elem +
         "*";
}

std::string HipTypes::typedefs() const {
  std::string out;
  for (const auto& [name, line] : typedefs_)
    out += line + "\n";
  return out;
}

} // namespace tw::emit::hip
