#pragma once
// Reductions across the lanes of a wave (wave32), for 32-bit scalars (Float32, Int32):
//   lane_reduce(v, Reduce::sum)                 every lane gets the sum over its 32 lanes
//   lane_reduce(v, Reduce::max, 16)             ... over its row of 16 lanes (lanes 0-15, 16-31)
//   lane_reduce(v, Reduce::sum, 32, Via::shuffle)   the same with ds_bpermute shuffles
// Via::dpp (default): a butterfly of DPP row_xmask moves inside each row of 16 lanes, then one
// v_permlanex16 exchange between the two rows. Via::shuffle: a butterfly of ds_bpermute
// (lane ^ mask), the portable form. Every lane ends with the full result (no broadcast needed).
#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

enum class Reduce { sum, max, min };
enum class Via { dpp, shuffle };

namespace detail {
template <ElemType T>
Scalar<T> combine(Reduce r, const Scalar<T>& a, const Scalar<T>& b) {
  switch (r) {
  case Reduce::sum:
    return a + b;
  case Reduce::max:
    return max(a, b);
  case Reduce::min:
    return min(a, b);
  }
  return a;
}
} // namespace detail

// Lane l receives the value of lane src_lane (its own choice, 0..31; taken mod 32) through
// ds_bpermute. The source lane must be active.
template <ElemType T>
Scalar<T> shuffle(const Scalar<T>& v, const Int32& src_lane) {
  static_assert(T::bits == 32, "shuffle: lane ops move 32-bit values (Float32, Int32)");
  ir::OpBuilder& ob = KernelBuilder::current("shuffle").ops();
  const Int32 byte_addr = src_lane * 4; // ds_bpermute addresses lanes in bytes
  return Scalar<T>(ob.bpermute(byte_addr.ir(), v.ir()));
}

// Lane l receives the value of lane l ^ mask (mask < 32) through ds_bpermute.
template <ElemType T>
Scalar<T> shuffle_xor(const Scalar<T>& v, int mask) {
  static_assert(T::bits == 32, "shuffle_xor: lane ops move 32-bit values (Float32, Int32)");
  if (mask <= 0 || mask >= 32)
    throw std::invalid_argument("shuffle_xor: mask " + std::to_string(mask) +
                                " must be in 1..31 (wave32)");
  return shuffle(v, Int32(KernelBuilder::current("shuffle_xor").ops().lane_id()) ^ mask);
}

template <ElemType T>
Scalar<T> lane_reduce(const Scalar<T>& v, Reduce op, int width = 32, Via via = Via::dpp) {
  static_assert(T::bits == 32, "lane_reduce: lane ops move 32-bit values (Float32, Int32)");
  if (width != 2 && width != 4 && width != 8 && width != 16 && width != 32)
    throw std::invalid_argument("lane_reduce: width " + std::to_string(width) +
                                " must be 2, 4, 8, 16 or 32 lanes");
  if (v.is_constant() && op != Reduce::sum)
    return v; // max / min of equal values
  ir::OpBuilder& ob = KernelBuilder::current("lane_reduce").ops();
  Scalar<T> acc = v;
  if (via == Via::shuffle) {
    for (int mask = 1; mask < width; mask <<= 1)
      acc = detail::combine(op, acc, shuffle_xor(acc, mask));
    return acc;
  }
  for (int mask = 1; mask < width && mask < 16; mask <<= 1) {
    const ir::Value x = acc.ir();
    acc = detail::combine(op, acc, Scalar<T>(ob.dpp(x, x, ir::DppCtrl::row_xmask(mask))));
  }
  if (width == 32) {
    // Lane l reads lane l % 16 of the other row: selects 0..15 in order.
    const ir::Value sel_lo = ob.i32(0x76543210),
                    sel_hi = ob.i32(static_cast<std::int32_t>(0xfedcba98u));
    acc = detail::combine(op, acc, Scalar<T>(ob.permlanex16(acc.ir(), sel_lo, sel_hi)));
  }
  return acc;
}

} // namespace tw::dsl
