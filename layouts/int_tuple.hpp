#pragma once
// Typed int tuples: static integers are Boost.Hana integral constants (tw::Int<N>, zero cost),
// dynamic ones are int64_t, and hana::tuple nests them, e.g. (Int<2>, (int64_t, Int<4>)).
// They convert to the run-time tree (to_tree) on which all algebra runs, and a static tree
// converts back into types (reify_tuple), so static results stay static.
#include <layouts/dyn_layout.hpp>
#include <layouts/tree.hpp>

#include <boost/hana/at.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tw {

namespace hana = boost::hana;

// A static integer: a Boost.Hana integral constant with an int64_t value.
template <int64_t N>
using Int = hana::integral_constant<int64_t, N>;

namespace detail {
template <class T>
struct is_static_int : std::false_type {};
template <int64_t N>
struct is_static_int<hana::integral_constant<int64_t, N>> : std::true_type {};

template <class T>
struct is_hana_tuple : std::false_type {};
template <class... T>
struct is_hana_tuple<hana::tuple<T...>> : std::true_type {};

// Any integral constant type (Hana's or the standard one) of an integral value.
template <class T>
concept IntegralConstantLike = requires {
  T::value;
  typename T::value_type;
}
&&std::is_integral_v<typename T::value_type>&& std::is_empty_v<T>;
} // namespace detail

template <class T>
concept StaticInt = detail::is_static_int<std::remove_cvref_t<T>>::value;
template <class T>
concept DynamicInt = std::same_as<std::remove_cvref_t<T>, int64_t>;
template <class T>
concept HanaTuple = detail::is_hana_tuple<std::remove_cvref_t<T>>::value;

namespace detail {
template <class T>
constexpr bool is_int_tuple() {
  if constexpr (StaticInt<T> || DynamicInt<T>)
    return true;
  else if constexpr (HanaTuple<T>)
    return []<class... E>(std::type_identity<hana::tuple<E...>>) {
      return (is_int_tuple<E>() && ...);
    }(std::type_identity<std::remove_cvref_t<T>>{});
  else
    return false;
}
template <class T>
constexpr bool is_static_tuple() {
  if constexpr (StaticInt<T>)
    return true;
  else if constexpr (HanaTuple<T>)
    return []<class... E>(std::type_identity<hana::tuple<E...>>) {
      return (is_static_tuple<E>() && ...);
    }(std::type_identity<std::remove_cvref_t<T>>{});
  else
    return false;
}
} // namespace detail

// A (possibly nested) tuple of normalized integers.
template <class T>
concept IntTuple = detail::is_int_tuple<T>();
// An int tuple whose every leaf is static.
template <class T>
concept StaticIntTuple = IntTuple<T> && detail::is_static_tuple<T>();

// Brings any integer, integral constant or tuple of them to the normalized form.
template <class T>
constexpr auto to_int_tuple(const T& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (StaticInt<U> || DynamicInt<U>)
    return x;
  else if constexpr (detail::IntegralConstantLike<U>)
    return Int<int64_t(U::value)>{};
  else if constexpr (std::is_integral_v<U>)
    return int64_t(x);
  else if constexpr (HanaTuple<U>)
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return hana::make_tuple(to_int_tuple(hana::at_c<I>(x))...);
    }
  (std::make_index_sequence<decltype(hana::size(x))::value>{});
  else static_assert(std::is_integral_v<U>,
                     "tw: an int tuple holds only integers, integral constants and tuples of them");
}

template <class... T>
constexpr auto make_shape(const T&... x) {
  return hana::make_tuple(to_int_tuple(x)...);
}
template <class... T>
constexpr auto make_stride(const T&... x) {
  return hana::make_tuple(to_int_tuple(x)...);
}
template <class... T>
constexpr auto make_coord(const T&... x) {
  return hana::make_tuple(to_int_tuple(x)...);
}

// Compile-time value of a leaf, either kind.
template <class T>
constexpr int64_t int_value(const T& x) {
  if constexpr (StaticInt<T>)
    return T::value;
  else
    return x;
}

namespace detail {
// Appends the int tuple `x` (and, if given, the congruent tuple `y` as the b values).
template <class X, class Y>
constexpr void push_tuples(Tree& t, const X& x, const Y& y) {
  if constexpr (HanaTuple<X>) {
    open(t);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (HanaTuple<Y>)
        (push_tuples(t, hana::at_c<I>(x), hana::at_c<I>(y)), ...);
      else
        (push_tuples(t, hana::at_c<I>(x), int64_t(0)), ...);
    }
    (std::make_index_sequence<decltype(hana::size(x))::value>{});
    close(t);
  } else if constexpr (HanaTuple<Y>) {
    leaf(t, int_value(x), 0); // not congruent: callers check structure first
  } else {
    leaf(t, int_value(x), int_value(y));
  }
}
} // namespace detail

template <IntTuple X>
constexpr DynTuple to_dyn_tuple(const X& x) {
  DynTuple r;
  detail::push_tuples(r.t, x, int64_t(0));
  return r;
}
constexpr DynTuple to_dyn_tuple(const DynTuple& x) {
  return x;
}

// The nesting of an int tuple type as a tree (values are zero for dynamic leaves).
template <IntTuple X>
constexpr detail::Tree structure_of() {
  return to_dyn_tuple(X{}).t;
}

namespace detail {
// The node at token `Pos` of the static tree T as types: Int<...> leaves, hana::tuple nodes.
template <Tree T, bool UseB, int Pos = 0>
consteval auto reify_at() {
  if constexpr (T.tok[Pos] == kLeaf) {
    constexpr int k = leaf_index(T, Pos);
    return Int<(UseB ? T.b[k] : T.a[k])>{};
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return hana::make_tuple(reify_at<T, UseB, children_of(T, Pos).pos[I]>()...);
    }
    (std::make_index_sequence<children_of(T, Pos).n>{});
  }
}

// A value shaped like the int tuple type P with int64_t leaves, read from the tree.
template <class P>
constexpr auto fill_dynamic(const Tree& t, bool use_b, int& k) {
  if constexpr (HanaTuple<P>) {
    return [&]<class... E>(std::type_identity<hana::tuple<E...>>) {
      // Braced init keeps left-to-right order of the k increments.
      return hana::tuple<decltype(fill_dynamic<E>(t, use_b, k))...>{
          fill_dynamic<E>(t, use_b, k)...};
    }(std::type_identity<P>{});
  } else {
    int64_t v = use_b ? t.b[k] : t.a[k];
    ++k;
    return v;
  }
}
} // namespace detail

// Static tree -> int tuple type.
template <detail::Tree T>
consteval auto reify_tuple() {
  return detail::reify_at<T, false>();
}

template <std::size_t I, HanaTuple T>
constexpr decltype(auto) get(const T& t) {
  static_assert(I < decltype(hana::size(t))::value, "tw: get<I>: I is not below the rank");
  return hana::at_c<I>(t);
}

template <IntTuple T>
constexpr auto rank(const T&) {
  if constexpr (HanaTuple<T>)
    return Int<int64_t(decltype(hana::size(std::declval<T>()))::value)>{};
  else
    return Int<1>{};
}
template <IntTuple T>
constexpr auto depth(const T&) {
  return Int<detail::depth_at(structure_of<T>(), 0)>{};
}
template <IntTuple T>
constexpr auto size(const T& t) {
  if constexpr (StaticIntTuple<T>)
    return Int<to_dyn_tuple(T{}).product()>{};
  else
    return to_dyn_tuple(t).product();
}

} // namespace tw
