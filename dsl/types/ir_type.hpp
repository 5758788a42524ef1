#pragma once
// The IR type of a DSL element tag.
#include <dsl/ir/type.hpp>
#include <dsl/types/elem.hpp>

namespace tw::dsl {

template <ElemType T>
constexpr ir::Type ir_type() {
  if constexpr (std::same_as<T, f16>)
    return ir::Type::f16();
  else if constexpr (std::same_as<T, bf16>)
    return ir::Type::bf16();
  else if constexpr (std::same_as<T, f32>)
    return ir::Type::f32();
  else if constexpr (std::same_as<T, e4m3>)
    return ir::Type::e4m3();
  else if constexpr (std::same_as<T, e5m2>)
    return ir::Type::e5m2();
  else
    return ir::Type::i(T::bits); // ints are signless in the IR; the op picks the meaning
}

template <ElemType T>
constexpr ir::Type ir_vec_type(int lanes) {
  return ir::Type::vec(ir_type<T>(), lanes);
}

} // namespace tw::dsl
