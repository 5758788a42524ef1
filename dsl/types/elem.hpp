#pragma once
// Element-type tags of the DSL: what a tensor holds and what a typed handle carries. They are
// empty tags (never instantiated as data on the device side); `bits` is the storage width.
#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tw::dsl {

enum class ElemKind : std::uint8_t { sint, uint, flt, boolean };

// `id` numbers the tags (elem_type_of<id> maps back) so structural values such as an LDS plan
// can remember an element type.
template <int Id, int Bits, ElemKind Kind>
struct ElemTag {
  static constexpr int id = Id;
  static constexpr int bits = Bits;
  static constexpr ElemKind kind = Kind;
};
#define TW_DSL_ELEM(NAME, ID, BITS, KIND)                                                          \
  struct NAME : ElemTag<ID, BITS, ElemKind::KIND> {                                                \
    static constexpr std::string_view name = #NAME;                                                \
  };
TW_DSL_ELEM(i1, 1, 1, boolean)
TW_DSL_ELEM(i8, 2, 8, sint)
TW_DSL_ELEM(i16, 3, 16, sint)
TW_DSL_ELEM(i32, 4, 32, sint)
TW_DSL_ELEM(i64, 5, 64, sint)
TW_DSL_ELEM(u8, 6, 8, uint)
TW_DSL_ELEM(u16, 7, 16, uint)
TW_DSL_ELEM(u32, 8, 32, uint)
TW_DSL_ELEM(u64, 9, 64, uint)
TW_DSL_ELEM(f16, 10, 16, flt)
TW_DSL_ELEM(bf16, 11, 16, flt)
TW_DSL_ELEM(f32, 12, 32, flt)
TW_DSL_ELEM(e4m3, 13, 8, flt)
TW_DSL_ELEM(e5m2, 14, 8, flt)
#undef TW_DSL_ELEM

namespace detail {
template <int Id, class... T>
struct elem_by_id {
  using type = void;
};
template <int Id, class H, class... T>
struct elem_by_id<Id, H, T...> {
  using type = std::conditional_t<H::id == Id, H, typename elem_by_id<Id, T...>::type>;
};
} // namespace detail
// The tag whose id is Id (void when none).
template <int Id>
using elem_type_of = typename detail::elem_by_id<Id, i1, i8, i16, i32, i64, u8, u16, u32, u64, f16,
                                                 bf16, f32, e4m3, e5m2>::type;

template <class T>
concept ElemType = requires {
  { T::id } -> std::convertible_to<int>;
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
