#pragma once
// convert_rne<U>(x, saturate): a float -> float conversion that rounds to nearest even,
// optionally saturating an f16 / bf16 / fp8 result to the target's finite range (what
// quantization needs). round_half_even: the same rounding to an integer value.
#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

template <ElemType U, ElemType T>
Scalar<U> convert_rne(const Scalar<T>& x, bool saturate = false) {
  static_assert(FloatElem<T> && FloatElem<U>,
                "convert_rne: float -> float only (for integers: cast<I>(round_half_even(x)))");
  return Scalar<U>(KernelBuilder::current("convert_rne")
                       .ops()
                       .cvt(ir_type<U>(), x.ir(), ir::Rounding::rne, saturate));
}

// x rounded to the nearest integer, ties to even, as an f32 (the IR's float -> int cvt only
// truncates). Exact for |x| < 2^22: adding and subtracting 1.5 * 2^23 leaves no fraction bits,
// and each f32 addition rounds to nearest even.
inline Float32 round_half_even(const Float32& x) {
  const Float32 magic(12582912.0); // 1.5 * 2^23
  return (x + magic) - magic;
}

} // namespace tw::dsl
