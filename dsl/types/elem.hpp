#pragma once
// Element-type tags of the DSL: what a tensor holds and what a typed handle carries. They are
// empty tags (never instantiated as data on the device side); `bits` is the storage width.
#include <concepts>
#include <cstdint>
#include <string_view>

namespace tw::dsl {

enum class ElemKind : std::uint8_t { sint, uint, flt, boolean };

#define TW_DSL_ELEM(NAME, BITS, KIND)                                                              \
  struct NAME {                                                                                    \
    static constexpr int bits = BITS;                                                              \
    static constexpr ElemKind kind = ElemKind::KIND;                                               \
    static constexpr std::string_view name = #NAME;                                                \
  };
TW_DSL_ELEM(i1, 1, boolean)
TW_DSL_ELEM(i8, 8, sint)
TW_DSL_ELEM(i16, 16, sint)
TW_DSL_ELEM(i32, 32, sint)
TW_DSL_ELEM(i64, 64, sint)
TW_DSL_ELEM(u8, 8, uint)
TW_DSL_ELEM(u16, 16, uint)
TW_DSL_ELEM(u32, 32, uint)
TW_DSL_ELEM(u64, 64, uint)
TW_DSL_ELEM(f16, 16, flt)
TW_DSL_ELEM(bf16, 16, flt)
TW_DSL_ELEM(f32, 32, flt)
TW_DSL_ELEM(e4m3, 8, flt)
TW_DSL_ELEM(e5m2, 8, flt)
#undef TW_DSL_ELEM

template <class T>
concept ElemType = requires {
  { T::bits } -> std::convertible_to<int>;
  { T::kind } -> std::convertible_to<ElemKind>;
};

// Storage bytes of an element (sub-byte types round up; packed int4 is handled by the atoms).
template <class T>
constexpr int elem_bytes() {
  if constexpr (ElemType<T>)
    return T::bits < 8 ? 1 : T::bits / 8;
  else
    return static_cast<int>(sizeof(T));
}

template <class T>
concept FloatElem = ElemType<T> && T::kind == ElemKind::flt;
template <class T>
concept IntElem = ElemType<T> &&(T::kind == ElemKind::sint || T::kind == ElemKind::uint);

} // namespace tw::dsl
