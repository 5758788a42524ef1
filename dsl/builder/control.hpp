#pragma once
// Control flow of a traced kernel:
//   for_range(lo, hi, [&](Int32 i) { ... });                       // a run-time loop
//   auto [s] = for_range(lo, hi, step, carry(s0), [&](Int32 i, Float32 s) { return carry(s + x);
//   }); if_(cond, [&] { ... });                                        // run-time branch auto v =
//   if_(cond, [&] { return a; }, [&] { return b; });       // with a result static_for<4>([&](auto
//   i) { ... });                            // unrolled on the host
// A constant condition runs only the taken branch on the host (nothing is traced for the
// other one). Loop-carried values may be scalar handles or anything that models Carried
// (fragments): the handle is flattened into its SSA values and rebuilt inside the body.
#include <cstddef>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

// ----- how a handle is carried through a loop / yielded by an if -----
// A Carried handle turns into SSA values (flatten_into), says their types without an instance
// (append_types), and is rebuilt from values (rebuild). Scalars and fragments model it.
template <class H>
concept Carried = requires(const H& h, std::vector<ir::Value>& out, std::vector<ir::Type>& types,
                           std::span<const ir::Value> vals, std::size_t& pos) {
  h.flatten_into(out);
  H::append_types(types);
  { H::rebuild(vals, pos) } -> std::same_as<H>;
};

// carry(a, b, ...): the loop-carried values of a for_range (a tuple of handles).
template <Carried... H>
std::tuple<H...> carry(const H&... h) {
  return std::tuple<H...>(h...);
}

namespace detail {
template <class... H>
std::vector<ir::Value> flatten_tuple(const std::tuple<H...>& t) {
  std::vector<ir::Value> out;
  std::apply([&](const auto&... h) { (h.flatten_into(out), ...); }, t);
  return out;
}
template <class... H>
std::tuple<H...> rebuild_tuple([[maybe_unused]] std::span<const ir::Value> vals) {
  [[maybe_unused]] std::size_t pos = 0;
  return std::tuple<H...>{H::rebuild(vals, pos)...}; // braced: left-to-right order
}
template <class... H>
std::vector<ir::Type> tuple_types(std::type_identity<std::tuple<H...>>) {
  std::vector<ir::Type> types;
  (H::append_types(types), ...);
  return types;
}
template <class R>
struct is_tuple : std::false_type {};
template <class... T>
struct is_tuple<std::tuple<T...>> : std::true_type {};
} // namespace detail

// for (i = lo; i < hi; i += step) with loop-carried values; returns their final values.
template <ElemType I, Carried... H, class Body>
std::tuple<H...> for_range(const Scalar<I>& lo, const Scalar<I>& hi, const Scalar<I>& step,
                           const std::tuple<H...>& inits, Body&& body) {
  static_assert(IntElem<I>, "for_range: the induction variable must be an integer handle");
  static_assert(std::is_invocable_v<Body&, Scalar<I>, H...>,
                "for_range: the body must take (induction variable, carried values...)");
  using R = std::invoke_result_t<Body&, Scalar<I>, H...>;
  static_assert(std::same_as<R, std::tuple<H...>>,
                "for_range: the body must return carry(...) of the same handle types it takes");
  KernelBuilder& kb = KernelBuilder::current("for_range");
  const std::vector<ir::Value> finals =
      kb.ops().for_(lo.ir(), hi.ir(), step.ir(), detail::flatten_tuple(inits),
                    [&](ir::Value iv, std::span<const ir::Value> carried) {
                      const std::tuple<H...> in = detail::rebuild_tuple<H...>(carried);
                      const std::tuple<H...> next = std::apply(
                          [&](const auto&... h) { return body(Scalar<I>(iv), h...); }, in);
                      return detail::flatten_tuple(next);
                    });
  return detail::rebuild_tuple<H...>(finals);
}

// for (i = lo; i < hi; i += step) without carried values.
template <class L, class Hi, class St, class Body>
requires(!detail::is_tuple<std::remove_cvref_t<Body>>::value) void for_range(const L& lo,
                                                                             const Hi& hi,
                                                                             const St& step,
                                                                             Body&& body) {
  using S = detail::common_t<L, Hi>;
  for_range(S(lo), S(hi), S(step), std::tuple<>{}, [&](S i) {
    body(i);
    return std::tuple<>{};
  });
}
template <class L, class Hi, class Body>
requires(!detail::is_tuple<std::remove_cvref_t<Body>>::value) void for_range(const L& lo,
                                                                             const Hi& hi,
                                                                             Body&& body) {
  using S = detail::common_t<L, Hi>;
  for_range(S(lo), S(hi), S(1), std::forward<Body>(body));
}

// if (cond) { then } without results.
template <class Then>
requires std::is_void_v<std::invoke_result_t<Then&>>
void if_(const Bool& cond, Then&& then_body) {
  if (cond.is_constant()) {
    if (cond.constant_value())
      then_body();
    return;
  }
  KernelBuilder::current("if_").ops().if_(cond.ir(), {}, [&] {
    then_body();
    return std::vector<ir::Value>{};
  });
}

// if (cond) { then } else { else } without results.
template <class Then, class Else>
requires std::is_void_v<std::invoke_result_t<Then&>>
void if_(const Bool& cond, Then&& then_body, Else&& else_body) {
  static_assert(std::is_void_v<std::invoke_result_t<Else&>>,
                "if_: both branches must return nothing, or both the same handles");
  if (cond.is_constant()) {
    cond.constant_value() ? then_body() : else_body();
    return;
  }
  KernelBuilder::current("if_").ops().if_(
      cond.ir(), {},
      [&] {
        then_body();
        return std::vector<ir::Value>{};
      },
      [&] {
        else_body();
        return std::vector<ir::Value>{};
      });
}

// v = cond ? then() : else(), each branch traced in its own region; returns the handle (or
// tuple of handles) the branches return.
template <class Then, class Else>
requires(!std::is_void_v<std::invoke_result_t<Then&>>) auto if_(const Bool& cond, Then&& then_body,
                                                                Else&& else_body) {
  using R = std::invoke_result_t<Then&>;
  static_assert(std::same_as<R, std::invoke_result_t<Else&>>,
                "if_: both branches must return the same handle types");
  if (cond.is_constant())
    return cond.constant_value() ? then_body() : else_body();
  constexpr bool tuple = detail::is_tuple<R>::value;
  using Tup = std::conditional_t<tuple, R, std::tuple<R>>;
  const auto as_tuple = [](const R& r) {
    if constexpr (tuple)
      return r;
    else
      return std::tuple<R>(r);
  };
  KernelBuilder& kb = KernelBuilder::current("if_");
  const std::vector<ir::Value> results = kb.ops().if_(
      cond.ir(), detail::tuple_types(std::type_identity<Tup>{}),
      [&] { return detail::flatten_tuple(as_tuple(then_body())); },
      [&] { return detail::flatten_tuple(as_tuple(else_body())); });
  const Tup rebuilt = [&]<class... H>(std::type_identity<std::tuple<H...>>) {
    return detail::rebuild_tuple<H...>(results);
  }(std::type_identity<Tup>{});
  if constexpr (tuple)
    return rebuilt;
  else
    return std::get<0>(rebuilt);
}

// static_for<N>(f): calls f(std::integral_constant<int, 0>) ... f(<N-1>) on the host: an
// unrolled loop whose index is a compile-time constant inside the body.
template <int N, class F>
void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (f(std::integral_constant<int, I>{}), ...);
  }
  (std::make_integer_sequence<int, N>{});
}

} // namespace tw::dsl
