#pragma once
// Swizzle<B, M, S>: the XOR swizzle CuTe uses against LDS bank conflicts. For S > 0 the B bits
// at bit M + S are XORed into the B bits at bit M; for S < 0 the B bits at M are XORed into
// the bits at M + |S|:  x ^ ((x & (mask_B << (M + max(S, 0)))) >> S)  (>> -S meaning << S).
// A ComposedLayout Sw<B,M,S> o L applies L, then the swizzle; composition and the divides
// act on L (they compose on the right), so they keep the swizzle outside.
#include <layouts/composition.hpp>
#include <layouts/divide.hpp>
#include <layouts/front_end.hpp>
#include <layouts/layout.hpp>

#include <ostream>
#include <string>

namespace tw {

struct DynSwizzle {
  int b = 0, m = 0, s = 0;

  constexpr int64_t operator()(int64_t x) const {
    const int64_t bits = (int64_t(1) << b) - 1;
    const int64_t from = bits << (m + (s > 0 ? s : 0));
    const int64_t moved = s >= 0 ? (x & from) >> s : (x & from) << -s;
    return x ^ moved;
  }
  constexpr bool operator==(const DynSwizzle&) const = default;
};

constexpr Status check_swizzle(int b, int m, int s) {
  const int abs_s = s < 0 ? -s : s;
  return b >= 0 && m >= 0 && abs_s >= b && b + m + abs_s < 63 ? Status::ok : Status::bad_swizzle;
}

inline std::string to_string(const DynSwizzle& sw) {
  return "Sw<" + std::to_string(sw.b) + "," + std::to_string(sw.m) + "," + std::to_string(sw.s) +
         ">";
}

template <int B, int M, int S = B>
struct Swizzle {
  static_assert(B >= 0 && M >= 0 && (S < 0 ? -S : S) >= B,
                "tw: Swizzle<B, M, S> needs B >= 0, M >= 0 and |S| >= B");
  static constexpr bool is_static_swizzle = true;
  static constexpr DynSwizzle dyn{B, M, S};
  constexpr int64_t operator()(int64_t x) const { return dyn(x); }
};

template <class T>
concept SwizzleLike = std::same_as<std::remove_cvref_t<T>, DynSwizzle> || requires {
  T::is_static_swizzle;
};

template <class T>
constexpr DynSwizzle to_dyn_swizzle(const T& sw) {
  if constexpr (std::same_as<std::remove_cvref_t<T>, DynSwizzle>)
    return sw;
  else
    return T::dyn;
}

// Sw o L: evaluate L, then swizzle the index.
template <SwizzleLike Sw, AnyLayout L>
struct ComposedLayout {
  using swizzle_type = Sw;
  using layout_type = L;
  Sw swizzle{};
  L layout{};

  template <class... C>
  constexpr int64_t operator()(const C&... crd) const {
    return to_dyn_swizzle(swizzle)(layout(crd...));
  }
};

template <class T>
concept ComposedLayoutLike = requires {
  typename std::remove_cvref_t<T>::swizzle_type;
};

template <SwizzleLike Sw, AnyLayout L>
constexpr auto make_composed_layout(const Sw& sw, const L& l) {
  if constexpr (std::same_as<Sw, DynSwizzle>)
    if (Status st = check_swizzle(sw.b, sw.m, sw.s); st != Status::ok)
      throw LayoutError(st, ": " + to_string(sw));
  return ComposedLayout<Sw, L>{sw, l};
}

// Swizzle o layout.
template <SwizzleLike Sw, AnyLayout L>
constexpr auto composition(const Sw& sw, const L& l) {
  return make_composed_layout(sw, l);
}

template <ComposedLayoutLike C>
std::string to_string(const C& c) {
  return to_string(to_dyn_swizzle(c.swizzle)) + " o " + to_string(c.layout);
}
template <SwizzleLike Sw, AnyLayout L>
std::ostream& operator<<(std::ostream& os, const ComposedLayout<Sw, L>& c) {
  return os << to_string(c);
}

template <ComposedLayoutLike C>
constexpr auto size(const C& c) {
  return size(c.layout);
}
template <ComposedLayoutLike C>
constexpr auto rank(const C& c) {
  return rank(c.layout);
}

// The right operand of the algebra applies to the inner layout.
template <ComposedLayoutLike C, class B>
constexpr auto composition(const C& c, const B& b) {
  return make_composed_layout(c.swizzle, composition(c.layout, b));
}
template <ComposedLayoutLike C, class T>
constexpr auto logical_divide(const C& c, const T& t) {
  return make_composed_layout(c.swizzle, logical_divide(c.layout, t));
}
template <ComposedLayoutLike C, class T>
constexpr auto zipped_divide(const C& c, const T& t) {
  return make_composed_layout(c.swizzle, zipped_divide(c.layout, t));
}
template <ComposedLayoutLike C, class T>
constexpr auto tiled_divide(const C& c, const T& t) {
  return make_composed_layout(c.swizzle, tiled_divide(c.layout, t));
}
template <ComposedLayoutLike C, class T>
constexpr auto flat_divide(const C& c, const T& t) {
  return make_composed_layout(c.swizzle, flat_divide(c.layout, t));
}

} // namespace tw
