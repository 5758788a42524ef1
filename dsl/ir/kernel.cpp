#include <dsl/ir/kernel.hpp>
#include <stdexcept>

namespace tw::ir {

static bool is_kernarg_type(Type t) {
  if (!t.is_scalar())
    return false;
  if (t.is_int())
    return t.elem_bits() == 8 || t.elem_bits() == 16 || t.elem_bits() == 32 || t.elem_bits() == 64;
  return t.is_float() || t.is_ptr(AddrSpace::global) || t.is_ptr(AddrSpace::constant);
}

KernargLayout kernarg_layout(const Kernel& k) {
  KernargLayout layout;
  std::uint32_t offset = 0;
  for (const KernelArg& a : k.args) {
    if (!is_kernarg_type(a.type))
      throw std::invalid_argument(
          "kernarg_layout: kernel '" + k.name + "' argument '" + a.name + "' has type " +
          to_string(a.type) +
          ": kernel arguments must be i8, i16, i32, i64, f16, bf16, f32, ptr<global> or "
          "ptr<constant>");
    const auto size = static_cast<std::uint32_t>(a.type.bytes());
    const std::uint32_t align = size; // natural alignment: every allowed type is 1, 2, 4 or 8
    offset = (offset + align - 1) / align * align;
    layout.slots.push_back({a.name, a.type, offset, size, align});
    offset += size;
  }
  layout.size = offset;
  layout.align = 8;
  return layout;
}

} // namespace tw::ir
