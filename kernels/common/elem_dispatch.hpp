#pragma once
// From a run-time dtype to the DSL element type a kernel body is built with: each kernel names
// the element types its composition can hold, and other dtypes get the kernel's own sentence.
//   with_elem_among<f16, bf16>(spec.out, [&]<class O>(Tag<O>) { ... },
//                              [](DType t) { return "... " + std::string(dtype_name(t)); });
#include <dsl/types/elem.hpp>
#include <kernels/common/dtype.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tw::kernels {

// A DSL element type passed as a value (a template lambda's argument).
template <class T>
struct Tag {
  using type = T;
};

// The dtype whose elements a DSL element type holds.
template <class E>
constexpr DType dtype_of_elem() {
  using namespace tw::dsl;
  if constexpr (std::is_same_v<E, f32>)
    return DType::f32;
  else if constexpr (std::is_same_v<E, f16>)
    return DType::f16;
  else if constexpr (std::is_same_v<E, bf16>)
    return DType::bf16;
  else if constexpr (std::is_same_v<E, e4m3>)
    return DType::e4m3;
  else if constexpr (std::is_same_v<E, e5m2>)
    return DType::e5m2;
  else if constexpr (std::is_same_v<E, i8>)
    return DType::int8;
  else if constexpr (std::is_same_v<E, u8>)
    return DType::uint8;
  else if constexpr (std::is_same_v<E, i32>)
    return DType::i32;
  else
    static_assert(std::is_same_v<E, f32>,
                  "dtype_of_elem: this DSL element type is no kernel dtype");
}

// fn(Tag<E>{}) for the E among Es whose dtype is t; otherwise throws std::invalid_argument with
// refusal(t), before anything is built.
template <class E, class... Es, class F, class Refusal>
decltype(auto) with_elem_among(DType t, F&& fn, Refusal&& refusal) {
  if constexpr (sizeof...(Es) == 0) {
    if (t != dtype_of_elem<E>())
      throw std::invalid_argument(std::string(refusal(t)));
    return fn(Tag<E>{});
  } else {
    if (t == dtype_of_elem<E>())
      return fn(Tag<E>{});
    return with_elem_among<Es...>(t, std::forward<F>(fn), std::forward<Refusal>(refusal));
  }
}

} // namespace tw::kernels
