#pragma once
// Operators and functions on scalar handles: arithmetic, bitwise, comparisons, select, min/max,
// math, conversions. Constants fold on the host; a few identities (x + 0, x * 1, x * 0 for
// integers) fold too, so static strides and offsets add no ops.
#include <cmath>
#include <type_traits>

#include <dsl/handles/scalar.hpp>

namespace tw::dsl {

namespace detail {

// The handle type an operator works in: Scalar op Scalar of one element type, or a Scalar and
// a host number (which becomes a constant of the Scalar's type).
template <class A, class B>
struct common_scalar {};
template <ElemType T>
struct common_scalar<Scalar<T>, Scalar<T>> {
  using type = Scalar<T>;
};
template <ElemType T, class L>
requires std::is_arithmetic_v<L>
struct common_scalar<Scalar<T>, L> {
  using type = Scalar<T>;
};
template <ElemType T, class L>
requires std::is_arithmetic_v<L>
struct common_scalar<L, Scalar<T>> {
  using type = Scalar<T>;
};

// Two handles of different element types: an error the operators report with a sentence;
// the first type is used so that no second, less readable error follows.
template <ElemType T, ElemType U>
struct common_scalar<Scalar<T>, Scalar<U>> {
  using type = Scalar<T>;
};
// Two integer literals (e.g. for_range(0, 4, ...)): Int32, or Int64 for 64-bit literals.
template <class L1, class L2>
requires(std::is_integral_v<L1>&& std::is_integral_v<L2>) struct common_scalar<L1, L2> {
  using type = std::conditional_t<(sizeof(L1) > 4 || sizeof(L2) > 4), Scalar<i64>, Scalar<i32>>;
};

template <class A, class B>
concept ScalarOperands = (ScalarHandle<A> || ScalarHandle<B>)&&(
    ScalarHandle<A> || std::is_arithmetic_v<A>)&&(ScalarHandle<B> || std::is_arithmetic_v<B>);

template <class A, class B>
constexpr bool same_elem() {
  if constexpr (ScalarHandle<A> && ScalarHandle<B>)
    return std::same_as<typename A::elem_type, typename B::elem_type>;
  else
    return true;
}

template <class A, class B>
using common_t = typename common_scalar<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;

template <class S>
using elem_of = typename S::elem_type;

template <ElemType T, class Fold>
Scalar<T> fold_or_emit(ir::Opcode op, const Scalar<T>& a, const Scalar<T>& b, Fold fold) {
  if (a.is_constant() && b.is_constant())
    return Scalar<T>::constant(fold(a.constant_value(), b.constant_value()));
  ir::OpBuilder& ob = KernelBuilder::current(ir::opcode_name(op).data()).ops();
  return Scalar<T>(ob.binary(op, a.ir(), b.ir()));
}

template <ElemType T>
bool is_const_equal(const Scalar<T>& s, typename Scalar<T>::host_type v) {
  return s.is_constant() && s.constant_value() == v;
}

} // namespace detail

#define TW_DSL_CHECK_OPERANDS(OPNAME)                                                              \
  static_assert(detail::same_elem<A, B>(),                                                         \
                "tw::dsl: the operands of " OPNAME " have different element types (e.g. "          \
                "Int32 and Int64); convert one with cast<T>(x) first")

// ----- arithmetic -----
template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator+(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS("+");
  using S = detail::common_t<A, B>;
  const S a = a_, b = b_;
  if constexpr (IntElem<detail::elem_of<S>>) {
    if (detail::is_const_equal(a, 0))
      return b;
    if (detail::is_const_equal(b, 0))
      return a;
  }
  return detail::fold_or_emit(ir::Opcode::add, a, b, [](auto x, auto y) { return x + y; });
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator-(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS("-");
  using S = detail::common_t<A, B>;
  const S a = a_, b = b_;
  if constexpr (IntElem<detail::elem_of<S>>)
    if (detail::is_const_equal(b, 0))
      return a;
  return detail::fold_or_emit(ir::Opcode::sub, a, b, [](auto x, auto y) { return x - y; });
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator*(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS("*");
  using S = detail::common_t<A, B>;
  const S a = a_, b = b_;
  if constexpr (IntElem<detail::elem_of<S>>) {
    if (detail::is_const_equal(a, 1))
      return b;
    if (detail::is_const_equal(b, 1))
      return a;
    if (detail::is_const_equal(a, 0) || detail::is_const_equal(b, 0))
      return S(0);
  }
  return detail::fold_or_emit(ir::Opcode::mul, a, b, [](auto x, auto y) { return x * y; });
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator/(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS("/");
  using S = detail::common_t<A, B>;
  using T = detail::elem_of<S>;
  const S a = a_, b = b_;
  if constexpr (FloatElem<T>) {
    return detail::fold_or_emit(ir::Opcode::div, a, b, [](double x, double y) { return x / y; });
  } else {
    if (detail::is_const_equal(b, 1))
      return a;
    if (detail::is_const_equal(b, 0))
      throw std::domain_error("tw::dsl: integer division by the constant 0");
    if constexpr (T::kind == ElemKind::uint)
      return detail::fold_or_emit(ir::Opcode::div_u, a, b, [](std::int64_t x, std::int64_t y) {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) /
                                         static_cast<std::uint64_t>(y));
      });
    else
      return detail::fold_or_emit(ir::Opcode::div_s, a, b,
                                  [](std::int64_t x, std::int64_t y) { return x / y; });
  }
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator%(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS("%");
  using S = detail::common_t<A, B>;
  using T = detail::elem_of<S>;
  static_assert(IntElem<T>, "tw::dsl: % is defined on integer handles only");
  const S a = a_, b = b_;
  if (detail::is_const_equal(b, 0))
    throw std::domain_error("tw::dsl: integer remainder by the constant 0");
  if (detail::is_const_equal(b, 1))
    return S(0);
  if constexpr (T::kind == ElemKind::uint)
    return detail::fold_or_emit(ir::Opcode::rem_u, a, b, [](std::int64_t x, std::int64_t y) {
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) %
                                       static_cast<std::uint64_t>(y));
    });
  else
    return detail::fold_or_emit(ir::Opcode::rem_s, a, b,
                                [](std::int64_t x, std::int64_t y) { return x % y; });
}

// ----- bitwise (integers and Bool) -----
#define TW_DSL_BITWISE(OP, OPCODE, NAME)                                                           \
  template <class A, class B>                                                                      \
  requires detail::ScalarOperands<A, B>                                                            \
  auto operator OP(const A& a_, const B& b_) {                                                     \
    TW_DSL_CHECK_OPERANDS(NAME);                                                                   \
    using S = detail::common_t<A, B>;                                                              \
    static_assert(IntElem<detail::elem_of<S>> || detail::elem_of<S>::kind == ElemKind::boolean,    \
                  "tw::dsl: " NAME " is defined on integer and Bool handles only");                \
    const S a = a_, b = b_;                                                                        \
    return detail::fold_or_emit(ir::Opcode::OPCODE, a, b,                                          \
                                [](std::int64_t x, std::int64_t y) { return x OP y; });            \
  }
TW_DSL_BITWISE(&, and_, "&")
TW_DSL_BITWISE(|, or_, "|")
TW_DSL_BITWISE(^, xor_, "^")
#undef TW_DSL_BITWISE

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator<<(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS("<<");
  using S = detail::common_t<A, B>;
  static_assert(IntElem<detail::elem_of<S>>, "tw::dsl: << is defined on integer handles only");
  const S a = a_, b = b_;
  return detail::fold_or_emit(ir::Opcode::shl, a, b, [](std::int64_t x, std::int64_t y) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x)
                                     << (y % detail::elem_of<S>::bits));
  });
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto operator>>(const A& a_, const B& b_) {
  TW_DSL_CHECK_OPERANDS(">>");
  using S = detail::common_t<A, B>;
  using T = detail::elem_of<S>;
  static_assert(IntElem<T>, "tw::dsl: >> is defined on integer handles only");
  const S a = a_, b = b_;
  if constexpr (T::kind == ElemKind::uint)
    return detail::fold_or_emit(ir::Opcode::shr_u, a, b, [](std::int64_t x, std::int64_t y) {
      const std::uint64_t mask =
          T::bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << T::bits) - 1;
      return static_cast<std::int64_t>((static_cast<std::uint64_t>(x) & mask) >> (y % T::bits));
    });
  else
    return detail::fold_or_emit(ir::Opcode::shr_s, a, b,
                                [](std::int64_t x, std::int64_t y) { return x >> (y % T::bits); });
}

// mul_hi(a, b): the high 32 bits of the 64-bit product a * b of two UInt32 (one v_mul_hi_u32;
// a * b gives the low 32 bits). Counter-based RNGs (Philox) and fast division need both halves.
inline UInt32 mul_hi(const UInt32& a, const UInt32& b) {
  return detail::fold_or_emit(ir::Opcode::mul_hi_u, a, b, [](std::int64_t x, std::int64_t y) {
    const auto wide =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) * static_cast<std::uint32_t>(y);
    return static_cast<std::int64_t>(wide >> 32);
  });
}

// ----- comparisons -> Bool -----
namespace detail {
template <ElemType T>
Bool compare(ir::CmpPred signed_pred, ir::CmpPred unsigned_pred, const Scalar<T>& a,
             const Scalar<T>& b) {
  const ir::CmpPred p = T::kind == ElemKind::uint ? unsigned_pred : signed_pred;
  if (a.is_constant() && b.is_constant()) {
    const auto x = a.constant_value(), y = b.constant_value();
    // Unsigned predicates only occur for unsigned integer handles (never for floats).
    std::uint64_t ux = 0, uy = 0;
    if constexpr (!FloatElem<T>) {
      ux = static_cast<std::uint64_t>(x);
      uy = static_cast<std::uint64_t>(y);
    }
    switch (p) {
    case ir::CmpPred::eq:
      return x == y;
    case ir::CmpPred::ne:
      return x != y;
    case ir::CmpPred::lt:
      return x < y;
    case ir::CmpPred::le:
      return x <= y;
    case ir::CmpPred::gt:
      return x > y;
    case ir::CmpPred::ge:
      return x >= y;
    case ir::CmpPred::ult:
      return ux < uy;
    case ir::CmpPred::ule:
      return ux <= uy;
    case ir::CmpPred::ugt:
      return ux > uy;
    case ir::CmpPred::uge:
      return ux >= uy;
    }
  }
  return Bool(KernelBuilder::current("cmp").ops().cmp(p, a.ir(), b.ir()));
}
} // namespace detail

#define TW_DSL_COMPARE(OP, SPRED, UPRED)                                                           \
  template <class A, class B>                                                                      \
  requires detail::ScalarOperands<A, B> Bool operator OP(const A& a, const B& b) {                 \
    TW_DSL_CHECK_OPERANDS(#OP);                                                                    \
    using S = detail::common_t<A, B>;                                                              \
    return detail::compare(ir::CmpPred::SPRED, ir::CmpPred::UPRED, S(a), S(b));                    \
  }
TW_DSL_COMPARE(==, eq, eq)
TW_DSL_COMPARE(!=, ne, ne)
TW_DSL_COMPARE(<, lt, ult)
TW_DSL_COMPARE(<=, le, ule)
TW_DSL_COMPARE(>, gt, ugt)
TW_DSL_COMPARE(>=, ge, uge)
#undef TW_DSL_COMPARE
#undef TW_DSL_CHECK_OPERANDS

// Bool logic (both sides are always evaluated: this is tracing, not short-circuit control).
inline Bool operator&&(const Bool& a, const Bool& b) {
  return a & b;
}
inline Bool operator||(const Bool& a, const Bool& b) {
  return a | b;
}
inline Bool operator!(const Bool& a) {
  return a ^ Bool(1);
}

// ----- unary -----
template <ElemType T>
Scalar<T> operator-(const Scalar<T>& a) {
  if (a.is_constant())
    return Scalar<T>::constant(-a.constant_value());
  return Scalar<T>(KernelBuilder::current("neg").ops().neg(a.ir()));
}

template <ElemType T>
Scalar<T> abs(const Scalar<T>& a) {
  if (a.is_constant())
    return Scalar<T>::constant(a.constant_value() < 0 ? -a.constant_value() : a.constant_value());
  return Scalar<T>(KernelBuilder::current("abs").ops().abs(a.ir()));
}

// ----- select, min, max -----
template <class A, class B>
requires detail::ScalarOperands<A, B>
auto select(const Bool& cond, const A& a_, const B& b_) {
  static_assert(detail::same_elem<A, B>(),
                "tw::dsl: select needs both alternatives of one element type");
  using S = detail::common_t<A, B>;
  const S a = a_, b = b_;
  if (cond.is_constant())
    return cond.constant_value() ? a : b;
  return S(KernelBuilder::current("select").ops().select(cond.ir(), a.ir(), b.ir()));
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto min(const A& a_, const B& b_) {
  static_assert(detail::same_elem<A, B>(), "tw::dsl: min needs operands of one element type");
  using S = detail::common_t<A, B>;
  using T = detail::elem_of<S>;
  const S a = a_, b = b_;
  constexpr ir::Opcode op = T::kind == ElemKind::uint ? ir::Opcode::min_u : ir::Opcode::min;
  return detail::fold_or_emit(op, a, b, [](auto x, auto y) {
    if constexpr (T::kind == ElemKind::uint)
      return static_cast<std::uint64_t>(x) < static_cast<std::uint64_t>(y) ? x : y;
    else
      return x < y ? x : y;
  });
}

template <class A, class B>
requires detail::ScalarOperands<A, B>
auto max(const A& a_, const B& b_) {
  static_assert(detail::same_elem<A, B>(), "tw::dsl: max needs operands of one element type");
  using S = detail::common_t<A, B>;
  using T = detail::elem_of<S>;
  const S a = a_, b = b_;
  constexpr ir::Opcode op = T::kind == ElemKind::uint ? ir::Opcode::max_u : ir::Opcode::max;
  return detail::fold_or_emit(op, a, b, [](auto x, auto y) {
    if constexpr (T::kind == ElemKind::uint)
      return static_cast<std::uint64_t>(x) > static_cast<std::uint64_t>(y) ? x : y;
    else
      return x > y ? x : y;
  });
}

// ceil_div(a, b) = (a + b - 1) / b for non-negative integers.
template <class A, class B>
requires detail::ScalarOperands<A, B>
auto ceil_div(const A& a, const B& b) {
  using S = detail::common_t<A, B>;
  return (S(a) + S(b) - 1) / S(b);
}

// ----- math (f32; the gfx12 hardware forms, see dsl/ir/README.md) -----
#define TW_DSL_MATH(NAME, HOST)                                                                    \
  inline Float32 NAME(const Float32& a) {                                                          \
    if (a.is_constant())                                                                           \
      return Float32::constant(HOST);                                                              \
    return Float32(KernelBuilder::current(#NAME).ops().NAME(a.ir()));                              \
  }
TW_DSL_MATH(exp2, std::exp2(a.constant_value()))
TW_DSL_MATH(log2, std::log2(a.constant_value()))
TW_DSL_MATH(rcp, 1.0 / a.constant_value())
TW_DSL_MATH(rsqrt, 1.0 / std::sqrt(a.constant_value()))
TW_DSL_MATH(sqrt, std::sqrt(a.constant_value()))
TW_DSL_MATH(tanh, std::tanh(a.constant_value()))
#undef TW_DSL_MATH

template <FloatElem T>
Scalar<T> fma(const Scalar<T>& a, const Scalar<T>& b, const Scalar<T>& c) {
  if (a.is_constant() && b.is_constant() && c.is_constant())
    return Scalar<T>::constant(
        std::fma(a.constant_value(), b.constant_value(), c.constant_value()));
  return Scalar<T>(KernelBuilder::current("fma").ops().fma(a.ir(), b.ir(), c.ir()));
}

// ----- conversions -----
// cast<U>(x): integer widening sign-extends signed types and zero-extends unsigned / Bool,
// narrowing keeps the low bits; float <-> float rounds to nearest even; float -> int rounds
// toward zero; int -> float rounds to nearest even.
template <ElemType U, ElemType T>
Scalar<U> cast(const Scalar<T>& x) {
  if constexpr (std::same_as<T, U>) {
    return x;
  } else {
    if (x.is_constant()) {
      if constexpr (FloatElem<U>)
        return Scalar<U>::constant(static_cast<double>(x.constant_value()));
      else if constexpr (FloatElem<T>)
        return Scalar<U>::constant(static_cast<std::int64_t>(std::trunc(x.constant_value())));
      else if constexpr (T::kind == ElemKind::uint && T::bits < 64)
        return Scalar<U>::constant(x.constant_value() & ((std::int64_t{1} << T::bits) - 1));
      else
        return Scalar<U>::constant(x.constant_value());
    }
    ir::OpBuilder& ob = KernelBuilder::current("cast").ops();
    const ir::Type to = ir_type<U>();
    if constexpr (!FloatElem<T> && !FloatElem<U>) {
      if constexpr (U::bits == T::bits)
        return Scalar<U>(x.ir()); // signedness is a property of the handle, not of the IR
      else if constexpr (U::bits < T::bits)
        return Scalar<U>(ob.trunc(to, x.ir()));
      else if constexpr (T::kind == ElemKind::sint)
        return Scalar<U>(ob.sext(to, x.ir()));
      else
        return Scalar<U>(ob.zext(to, x.ir()));
    } else {
      const ir::Rounding r = FloatElem<T> && !FloatElem<U> ? ir::Rounding::rtz : ir::Rounding::rne;
      if constexpr (T::kind == ElemKind::uint || U::kind == ElemKind::uint)
        return Scalar<U>(ob.cvt_unsigned(to, x.ir(), r));
      else
        return Scalar<U>(ob.cvt(to, x.ir(), r));
    }
  }
}

// exp2 / rcp on 16-bit floats: f16 on the f16 hardware forms (v_exp_f16, v_rcp_f16); bf16 has
// none on gfx12, so it goes through f32 (exact widening, the f32 form, RNE back).
inline Float16 exp2(const Float16& a) {
  if (a.is_constant())
    return Float16::constant(std::exp2(a.constant_value()));
  return Float16(KernelBuilder::current("exp2").ops().exp2(a.ir()));
}
inline Float16 rcp(const Float16& a) {
  if (a.is_constant())
    return Float16::constant(1.0 / a.constant_value());
  return Float16(KernelBuilder::current("rcp").ops().rcp(a.ir()));
}
inline BFloat16 exp2(const BFloat16& a) {
  return cast<bf16>(exp2(cast<f32>(a)));
}
inline BFloat16 rcp(const BFloat16& a) {
  return cast<bf16>(rcp(cast<f32>(a)));
}

} // namespace tw::dsl
