#pragma once
// NaN-aware float helpers for kernels that must propagate NaN the way IEEE 754 says: is_nan,
// and the IEEE 754-2019 maximum (max is maxNum, which returns the other operand of a NaN, so
// a reduction such as amax built on it silently drops a NaN it meets).
#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

// True where a float is NaN: the one value unequal to itself (`!=` is the unordered compare).
template <ElemType T>
requires(T::kind == ElemKind::flt) Bool is_nan(const Scalar<T>& a) {
  return a != a;
}

// NaN when either operand is NaN, else max(a, b).
template <ElemType T>
requires(T::kind == ElemKind::flt) Scalar<T> max_propagating_nan(const Scalar<T>& a,
                                                                 const Scalar<T>& b) {
  return select(is_nan(a) || is_nan(b), a + b, max(a, b));
}

} // namespace tw::dsl
