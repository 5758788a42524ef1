#pragma once
// CarriedBundle<T>: any nesting of std::tuple, std::pair and std::array around Carried handles
// (e.g. what a pipeline's fetch returns: the copy fragments of two operands and the tile index)
// as one Carried value, so a loop can carry it without the caller writing flatten / rebuild.
#include <dsl/builder/control.hpp>

#include <array>
#include <tuple>
#include <utility>

namespace tw::dsl {

namespace detail {
template <class T>
struct bundle_io;
template <Carried H>
struct bundle_io<H> {
  static void flatten(const H& h, std::vector<ir::Value>& out) { h.flatten_into(out); }
  static H rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    return H::rebuild(vals, pos);
  }
  static void types(std::vector<ir::Type>& out) { H::append_types(out); }
};
template <class... T>
struct bundle_io<std::tuple<T...>> {
  static void flatten(const std::tuple<T...>& t, std::vector<ir::Value>& out) {
    std::apply([&](const auto&... x) { (bundle_io<T>::flatten(x, out), ...); }, t);
  }
  static std::tuple<T...> rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    return std::tuple<T...>{bundle_io<T>::rebuild(vals, pos)...}; // braced: left to right
  }
  static void types(std::vector<ir::Type>& out) { (bundle_io<T>::types(out), ...); }
};
template <class A, class B>
struct bundle_io<std::pair<A, B>> {
  static void flatten(const std::pair<A, B>& p, std::vector<ir::Value>& out) {
    bundle_io<A>::flatten(p.first, out);
    bundle_io<B>::flatten(p.second, out);
  }
  static std::pair<A, B> rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    A a = bundle_io<A>::rebuild(vals, pos);
    return std::pair<A, B>{std::move(a), bundle_io<B>::rebuild(vals, pos)};
  }
  static void types(std::vector<ir::Type>& out) {
    bundle_io<A>::types(out);
    bundle_io<B>::types(out);
  }
};
template <class T, std::size_t N>
struct bundle_io<std::array<T, N>> {
  static void flatten(const std::array<T, N>& a, std::vector<ir::Value>& out) {
    for (const T& x : a)
      bundle_io<T>::flatten(x, out);
  }
  static std::array<T, N> rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    std::array<T, N> a;
    for (T& x : a)
      x = bundle_io<T>::rebuild(vals, pos);
    return a;
  }
  static void types(std::vector<ir::Type>& out) {
    for (std::size_t i = 0; i < N; ++i)
      bundle_io<T>::types(out);
  }
};
} // namespace detail

template <class T>
struct CarriedBundle {
  T value;

  void flatten_into(std::vector<ir::Value>& out) const {
    detail::bundle_io<T>::flatten(value, out);
  }
  static void append_types(std::vector<ir::Type>& out) { detail::bundle_io<T>::types(out); }
  static CarriedBundle rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    return CarriedBundle{detail::bundle_io<T>::rebuild(vals, pos)};
  }
};

} // namespace tw::dsl
