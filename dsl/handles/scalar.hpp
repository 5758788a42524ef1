#pragma once
// Typed scalar handles: Int32, Int64, UInt32, Float32, Float16, BFloat16, Bool.
// A handle is either a compile-time constant known on the host, or an SSA value of the traced
// kernel. Operators on two constants fold on the host (with the element type's wrapping or
// rounding), so index math written with constants costs nothing in the kernel; anything with
// a run-time operand becomes IR in the current KernelBuilder.
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>
#include <dsl/builder/kernel_builder.hpp>
#include <dsl/support/ops_namespace.hpp>
#include <dsl/types/ir_type.hpp>

namespace tw::dsl {

template <ElemType T>
class Scalar : ops::adl_anchor {
public:
  using elem_type = T;
  using host_type = std::conditional_t<FloatElem<T>, double, std::int64_t>;

  Scalar() = default; // an empty handle; using it is an error
  // A traced value; its IR type must be T's.
  explicit Scalar(ir::Value v) : value_(v) {}
  // A host constant. Integer handles take integer literals; float handles take any number.
  template <class L>
  requires std::is_arithmetic_v<L> Scalar(L literal)
      : constant_(true), host_(normalize(static_cast<host_type>(literal))) {
    static_assert(FloatElem<T> || std::is_integral_v<L>,
                  "tw::dsl: a floating-point literal cannot initialize an integer handle; "
                  "write an integer, or convert with cast<...>() explicitly");
  }

  // Handles never convert between element types implicitly (this overload exists to say so).
  template <ElemType U>
  requires(!std::same_as<U, T>) Scalar(const Scalar<U>&) {
    static_assert(std::same_as<U, T>,
                  "tw::dsl: a handle of one element type was used where another is expected "
                  "(e.g. Int32 for Int64); convert it with cast<T>(x)");
  }

  static Scalar constant(host_type v) {
    Scalar s;
    s.constant_ = true;
    s.host_ = normalize(v);
    return s;
  }

  bool is_constant() const { return constant_; }
  bool valid() const { return constant_ || value_.valid(); }
  // The host value of a constant handle (throws for a traced one).
  host_type constant_value() const {
    if (!constant_)
      throw std::logic_error("tw::dsl: constant_value() of a run-time value");
    return host_;
  }
  // The SSA value (a constant is materialized as a const op at the current insertion point).
  ir::Value ir() const {
    if (constant_) {
      ir::OpBuilder& b = KernelBuilder::current("constant").ops();
      if constexpr (FloatElem<T>)
        return b.const_float(ir_type<T>(), host_);
      else
        return b.const_int(ir_type<T>(), host_);
    }
    if (!value_.valid())
      throw std::logic_error(std::string("tw::dsl: an empty ") + std::string(T::name) +
                             " handle was used (default-constructed, never assigned)");
    return value_;
  }

  // Carried protocol (for_range / if_ results): the handle as SSA values and back.
  void flatten_into(std::vector<ir::Value>& out) const { out.push_back(ir()); }
  static Scalar rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    return Scalar(vals[pos++]);
  }
  static void append_types(std::vector<ir::Type>& out) { out.push_back(ir_type<T>()); }

  // Rounds / wraps a host value the way T stores it.
  static host_type normalize(host_type v) {
    if constexpr (std::same_as<T, f32>)
      return static_cast<double>(static_cast<float>(v));
    else if constexpr (std::same_as<T, f16>)
      return num::round_to_f16(static_cast<float>(v));
    else if constexpr (std::same_as<T, bf16>)
      return num::round_to_bf16(static_cast<float>(v));
    else if constexpr (std::same_as<T, e4m3>) // RNE; past 448 is NaN (OCP e4m3fn)
      return num::e4m3_to_f32(num::f64_to_e4m3(v, num::Saturate::no));
    else if constexpr (std::same_as<T, e5m2>)
      return num::e5m2_to_f32(num::f64_to_e5m2(v, num::Saturate::no));
    else if constexpr (FloatElem<T>)
      return v;
    else if constexpr (T::kind == ElemKind::boolean)
      return v != 0 ? 1 : 0;
    else if constexpr (T::bits == 64)
      return v;
    else {
      const std::uint64_t mask = (std::uint64_t{1} << T::bits) - 1;
      std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
      if constexpr (T::kind == ElemKind::sint)
        if (u >> (T::bits - 1))
          u |= ~mask;
      return static_cast<std::int64_t>(u);
    }
  }

private:
  ir::Value value_{};
  bool constant_ = false;
  host_type host_{};
};

using Bool = Scalar<i1>;
using Int8 = Scalar<i8>;
using Int16 = Scalar<i16>;
using Int32 = Scalar<i32>;
using Int64 = Scalar<i64>;
using UInt32 = Scalar<u32>;
using UInt64 = Scalar<u64>;
using Float16 = Scalar<f16>;
using BFloat16 = Scalar<bf16>;
using Float32 = Scalar<f32>;

template <class T>
struct is_scalar_handle : std::false_type {};
template <class T>
struct is_scalar_handle<Scalar<T>> : std::true_type {};
template <class T>
concept ScalarHandle = is_scalar_handle<std::remove_cvref_t<T>>::value;

} // namespace tw::dsl
