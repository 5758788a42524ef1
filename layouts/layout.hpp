#pragma once
// Layout<Shape, Stride>: the typed layout (CuTe's cute::Layout). Shape and stride are
// congruent int tuples mixing static tw::Int<N> and dynamic int64_t. With static inputs
// every query below is a constant expression; all of them defer to the one run-time tree
// implementation (dyn_layout.hpp) through to_dyn.
#include <layouts/dyn_layout.hpp>
#include <layouts/int_tuple.hpp>

#include <ostream>
#include <string>

namespace tw {

template <IntTuple Shape, IntTuple Stride>
struct Layout;

namespace detail {
template <class T>
struct is_typed_layout : std::false_type {};
template <class S, class D>
struct is_typed_layout<Layout<S, D>> : std::true_type {};
} // namespace detail

template <class T>
concept TypedLayout = detail::is_typed_layout<std::remove_cvref_t<T>>::value;
template <class T>
concept StaticLayout =
    TypedLayout<T> && StaticIntTuple<typename std::remove_cvref_t<T>::shape_type> &&
    StaticIntTuple<typename std::remove_cvref_t<T>::stride_type>;
// Anything the algebra accepts as a layout.
template <class T>
concept AnyLayout = TypedLayout<T> || std::same_as<std::remove_cvref_t<T>, DynLayout>;

template <TypedLayout L>
constexpr DynLayout to_dyn(const L& l);
constexpr DynLayout to_dyn(const DynLayout& l) {
  return l;
}

template <IntTuple Shape, IntTuple Stride>
struct Layout {
  using shape_type = Shape;
  using stride_type = Stride;
  Shape shape_{};
  Stride stride_{};

  // l(i): linear index; l(c0, c1, ...): one coordinate per mode; l(crd): hierarchical.
  template <class... C>
  constexpr int64_t operator()(const C&... crd) const {
    static_assert(sizeof...(C) >= 1, "tw: evaluating a layout needs a coordinate");
    if constexpr (sizeof...(C) == 1) {
      auto c = to_int_tuple(crd...);
      using CT = decltype(c);
      static_assert(detail::weakly_congruent_at(structure_of<CT>(), 0, structure_of<Shape>(), 0),
                    "tw: the coordinate does not match the rank of the layout");
      return detail::eval_coord(to_dyn(*this).t, 0, to_dyn_tuple(c).t, 0);
    } else {
      return (*this)(make_coord(crd...));
    }
  }
};

// The Layout made from a shape and a congruent stride.
template <class S, class D>
requires(!AnyLayout<S> && !AnyLayout<D>) constexpr auto make_layout(const S& shape,
                                                                    const D& stride) {
  auto s = to_int_tuple(shape);
  auto d = to_int_tuple(stride);
  using ST = decltype(s);
  using DT = decltype(d);
  static_assert(detail::congruent(structure_of<ST>(), structure_of<DT>()),
                "tw: shape and stride are not congruent (they must nest the same way)");
  if constexpr (StaticIntTuple<ST>)
    static_assert(check_layout(to_dyn_tuple(ST{}), to_dyn_tuple(ST{})) == Status::ok,
                  "tw: every shape entry must be positive");
  else if (Status st = check_layout(to_dyn_tuple(s), to_dyn_tuple(s)); st != Status::ok)
    throw LayoutError(st, ": shape " + to_string(to_dyn_tuple(s).t, false));
  return Layout<ST, DT>{s, d};
}

// Static tree -> Layout type (Int<...> everywhere).
template <detail::Tree T>
consteval auto reify_layout() {
  return Layout<decltype(detail::reify_at<T, false>()), decltype(detail::reify_at<T, true>())>{};
}

// The typed layout shaped like Pattern's types with dynamic values from `l` (same nesting).
template <class ShapePattern>
constexpr auto dynamic_layout_like(const DynLayout& l) {
  int k = 0;
  auto s = detail::fill_dynamic<ShapePattern>(l.t, false, k);
  k = 0;
  auto d = detail::fill_dynamic<ShapePattern>(l.t, true, k);
  return Layout<decltype(s), decltype(d)>{s, d};
}

// Column-major (first mode fastest) compact layout of a shape.
template <class S>
requires(!AnyLayout<S>) constexpr auto make_layout(const S& shape) {
  auto s = to_int_tuple(shape);
  using ST = decltype(s);
  if constexpr (StaticIntTuple<ST>) {
    constexpr DynLayout r = make_layout(to_dyn_tuple(ST{}));
    return reify_layout<r.t>();
  } else {
    return dynamic_layout_like<ST>(make_layout(to_dyn_tuple(s)));
  }
}

// Compact layout whose strides follow `order` (smallest order value = stride 1).
template <class S, class O>
constexpr auto make_ordered_layout(const S& shape, const O& order) {
  auto s = to_int_tuple(shape);
  auto o = to_int_tuple(order);
  using ST = decltype(s);
  using OT = decltype(o);
  static_assert(structure_of<ST>().nleaf == structure_of<OT>().nleaf,
                "tw: make_ordered_layout needs one order entry per shape entry");
  if constexpr (StaticIntTuple<ST> && StaticIntTuple<OT>) {
    constexpr DynLayout r = make_ordered_layout(to_dyn_tuple(ST{}), to_dyn_tuple(OT{}));
    return reify_layout<r.t>();
  } else {
    return dynamic_layout_like<ST>(make_ordered_layout(to_dyn_tuple(s), to_dyn_tuple(o)));
  }
}

template <TypedLayout L>
constexpr DynLayout to_dyn(const L& l) {
  DynLayout r;
  detail::push_tuples(r.t, l.shape_, l.stride_);
  return r;
}

// (L0, L1, ...): the layout whose modes are the given layouts (CuTe's make_layout of layouts).
template <TypedLayout... L>
requires(sizeof...(L) >= 1) constexpr auto make_layout(const L&... modes) {
  return Layout<hana::tuple<typename L::shape_type...>, hana::tuple<typename L::stride_type...>>{
      hana::make_tuple(modes.shape_...), hana::make_tuple(modes.stride_...)};
}
template <class... L>
requires(sizeof...(L) >= 2 && (std::same_as<L, DynLayout> && ...)) constexpr DynLayout
    make_layout(const L&... modes) {
  DynLayout r;
  detail::open(r.t);
  (detail::append(r.t, modes.t), ...);
  detail::close(r.t);
  if (r.t.overflow)
    throw LayoutError(Status::too_large, ": make_layout");
  return r;
}

// A DynLayout whose values are static, as a typed Layout.
template <DynLayout L>
consteval auto reify() {
  return reify_layout<L.t>();
}

template <TypedLayout L>
constexpr const auto& shape(const L& l) {
  return l.shape_;
}
template <TypedLayout L>
constexpr const auto& stride(const L& l) {
  return l.stride_;
}

template <TypedLayout L>
constexpr auto size(const L& l) {
  if constexpr (StaticLayout<L>)
    return Int<to_dyn(L{}).size()>{};
  else
    return to_dyn(l).size();
}
template <TypedLayout L>
constexpr auto cosize(const L& l) {
  if constexpr (StaticLayout<L>)
    return Int<to_dyn(L{}).cosize()>{};
  else
    return to_dyn(l).cosize();
}
template <TypedLayout L>
constexpr auto rank(const L& l) {
  return rank(l.shape_);
}
template <TypedLayout L>
constexpr auto depth(const L& l) {
  return depth(l.shape_);
}

// Mode I of a layout (a rank-1 layout with a bare shape is its own mode 0).
template <std::size_t I, TypedLayout L>
constexpr auto get(const L& l) {
  using S = typename L::shape_type;
  if constexpr (HanaTuple<S>) {
    static_assert(I < decltype(hana::size(l.shape_))::value,
                  "tw: get<I>: I is not below the rank of the layout");
    return Layout<std::remove_cvref_t<decltype(hana::at_c<I>(l.shape_))>,
                  std::remove_cvref_t<decltype(hana::at_c<I>(l.stride_))>>{
        hana::at_c<I>(l.shape_), hana::at_c<I>(l.stride_)};
  } else {
    static_assert(I == 0, "tw: get<I>: I is not below the rank of the layout");
    return l;
  }
}
template <std::size_t I>
constexpr DynLayout get(const DynLayout& l) {
  return l.mode(int(I));
}

// Index of a coordinate in a (shape, stride) pair, and the coordinate of an index.
template <class C, class S, class D>
constexpr int64_t crd2idx(const C& crd, const S& shape, const D& stride) {
  return make_layout(shape, stride)(crd);
}
template <class S>
constexpr auto idx2crd(int64_t idx, const S& shape) {
  auto s = to_int_tuple(shape);
  DynTuple c = idx2crd(idx, to_dyn_tuple(s));
  int k = 0;
  return detail::fill_dynamic<decltype(s)>(c.t, false, k);
}

template <AnyLayout L>
std::string to_string(const L& l) {
  return to_string(to_dyn(l).t, true);
}
inline std::string to_string(const DynTuple& t) {
  return to_string(t.t, false);
}
// Int tuples are hana::tuple (no operator<< of ours applies by ADL): print with to_string.
template <IntTuple T>
std::string to_string(const T& t) {
  return to_string(to_dyn_tuple(t).t, false);
}

template <class S, class D>
std::ostream& operator<<(std::ostream& os, const Layout<S, D>& l) {
  return os << to_string(l);
}
inline std::ostream& operator<<(std::ostream& os, const DynLayout& l) {
  return os << to_string(l);
}
inline std::ostream& operator<<(std::ostream& os, const DynTuple& t) {
  return os << to_string(t);
}

} // namespace tw
