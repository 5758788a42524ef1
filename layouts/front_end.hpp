#pragma once
// The bridge between typed arguments and the one core implementation (tw::core). With all
// arguments static, the core runs in constant evaluation, a failure is a static_assert
// sentence and the result is reified into a static Layout type. Otherwise it runs at run
// time, a failure throws LayoutError naming the operation and printing its operands, and
// the result is a DynLayout.
#include <layouts/layout.hpp>
#include <layouts/outcome.hpp>
#include <layouts/tiler.hpp>

#include <string>

namespace tw::detail {

template <class T>
constexpr bool is_static_arg() {
  using U = std::remove_cvref_t<T>;
  if constexpr (TypedLayout<U>)
    return StaticLayout<U>;
  else if constexpr (StaticIntTuple<U>)
    return true;
  else if constexpr (HanaTuple<U>)
    return []<class... E>(std::type_identity<hana::tuple<E...>>) {
      return (is_static_arg<E>() && ...);
    }(std::type_identity<U>{});
  else if constexpr (requires { U::is_static_swizzle; })
    return true;
  else if constexpr (requires { typename U::swizzle_type; })
    return is_static_arg<typename U::layout_type>();
  else
    return false;
}

template <class T>
std::string describe(const T& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (AnyLayout<U> || std::same_as<U, DynTuple> || std::same_as<U, DynTiler>)
    return to_string(x);
  else if constexpr (std::is_integral_v<U>)
    return std::to_string(x);
  else if constexpr (IntTuple<U>)
    return to_string(x);
  else if constexpr (HanaTuple<U>)
    return to_string(to_tiler(x));
  else
    return to_string(x); // swizzles and composed layouts
}

template <class Op, class... A>
constexpr auto run(const char* name, Op op, const A&... args) {
  if constexpr ((is_static_arg<A>() && ...)) {
    (void)op;
    ((void)args, ...);
    constexpr core::Outcome r = Op{}(A{}...);
    static_check<r.status>();
    if constexpr (r.status == Status::ok)
      return reify_layout<r.layout.t>();
    else
      return DynLayout{};
  } else {
    core::Outcome r = op(args...);
    if (!r.ok()) {
      std::string ctx = std::string(": ") + name + "(";
      int i = 0;
      ((ctx.append(i++ ? ", " : "").append(describe(args))), ...);
      throw LayoutError(r.status, ctx + ")");
    }
    return r.layout;
  }
}

} // namespace tw::detail
