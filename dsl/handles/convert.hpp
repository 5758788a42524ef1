#pragma once
// convert_rne<U>(x, saturate): a float -> float conversion that rounds to nearest even,
// optionally saturating an f16 / bf16 / fp8 result to the target's finite range (what
// quantization needs). round_half_even: the same rounding to an integer value.
#include <dsl/handles/nan.hpp>
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

// x (f32) rounded to e4m3 / e5m2 stochastically in one step (no f16 on the way):
// `random_bits` are added under the discarded bits of x's significand (bit 0 under bit 0)
// and the carry decides, so uniform bits round up with probability (discarded part / ulp)
// and the expected value is x (while x is less than 32 bit positions below the target ulp).
// One v_cvt_sr_fp8_f32 / v_cvt_sr_bf8_f32; saturate clamps past the largest finite value.
template <ElemType U>
Scalar<U> convert_stochastic(const Float32& x, const UInt32& random_bits, bool saturate = false) {
  static_assert(std::same_as<U, e4m3> || std::same_as<U, e5m2>,
                "convert_stochastic: stochastic rounding produces e4m3 or e5m2 only");
  return Scalar<U>(KernelBuilder::current("convert_stochastic")
                       .ops()
                       .cvt_stochastic(ir_type<U>(), x.ir(), random_bits.ir(), saturate));
}

// The bits of x seen as U (same width).
template <ElemType U, ElemType T>
Scalar<U> bit_cast(const Scalar<T>& x) {
  static_assert(U::bits == T::bits, "bit_cast: the element types have different widths");
  return Scalar<U>(KernelBuilder::current("bit_cast").ops().bitcast(ir_type<U>(), x.ir()));
}

// x (f32) rounded to bf16, nearest even, by integer arithmetic: 0x7fff plus the bit of bf16's
// last place, added to the bits, carries into that place exactly when nearest-even rounds up
// (a tie carries only from an odd last place). Exact for every f32 that is not NaN: zeros,
// subnormals, infinities, and overflow to inf. A NaN gives an unspecified bf16 (a NaN, an inf
// or a zero: its payload may carry). gfx12 has no f32 -> bf16 instruction, and cast<bf16> /
// convert_rne (LLVM's fptrunc) keep NaN with a check per value (v_cmp_u, v_or, v_cndmask and
// a wait for VCC): about 5.5 VALU per value against 2 here (v_bfe_u32, v_add3_u32) plus one
// v_perm_b32 per pair packed into an operand. Use it where x cannot be NaN or where a NaN is
// caught elsewhere (attention's P: docs/kernels.md "Static quality").
inline BFloat16 to_bf16_rne_nan_unchecked(const Float32& x) {
  const UInt32 u = bit_cast<u32>(x);
  const UInt32 rounded = u + UInt32(0x7fffu) + ((u >> UInt32(16u)) & UInt32(1u));
  return bit_cast<bf16>(cast<u16>(rounded >> UInt32(16u)));
}

// x (f32) rounded to bf16, nearest even, with NaN kept: to_bf16_rne_nan_unchecked's rounding
// and one select that replaces the result of a NaN x by the quiet NaN 0x7fc0 (sign and payload
// are not kept). Every other f32 rounds exactly as cast<bf16> does. Four VALU per value
// (v_bfe_u32, v_add3_u32, v_cmp_u_f32, v_cndmask_b32) against five for cast<bf16> / LLVM's
// fptrunc, which keeps the payload (v_or_b32 of the quiet bit into x): for an output such as
// attention's O, where a NaN must stay NaN but its bits carry nothing.
inline BFloat16 to_bf16_rne_quiet_nan(const Float32& x) {
  const UInt32 u = bit_cast<u32>(x);
  const UInt32 rounded = u + UInt32(0x7fffu) + ((u >> UInt32(16u)) & UInt32(1u));
  const UInt32 r = select(is_nan(x), UInt32(0x7fc00000u), rounded);
  return bit_cast<bf16>(cast<u16>(r >> UInt32(16u)));
}

// x rounded to the nearest integer, ties to even, as an f32 (the IR's float -> int cvt only
// truncates), for every f32: below 2^23, |x| + 2^23 lies in [2^23, 2^24) where the f32 step is
// 1, so the addition rounds |x| to an integer (nearest even) and the subtraction is exact; the
// sign is put back (-0.4 -> -0). From 2^23 on every f32 is an integer; NaN and inf pass.
inline Float32 round_half_even(const Float32& x) {
  const Float32 two23(8388608.0);
  const Float32 a = abs(x);
  const Float32 r = (a + two23) - two23;
  const UInt32 sign = bit_cast<u32>(x) & UInt32(0x80000000u);
  return select(a < two23, bit_cast<f32>(bit_cast<u32>(r) | sign), x);
}

} // namespace tw::dsl
