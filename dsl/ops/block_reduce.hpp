#pragma once
// Reductions across a whole workgroup, for 32-bit scalars (Float32, Int32):
//   auto red = use_lds<lds_plan(lds_buffer<f32>("red", 1, 8))>(kb).tile<"red">();
//   Float32 s = block_reduce(v, Reduce::sum, red);   // every thread gets the workgroup's sum
// Each wave reduces its lanes (lane_reduce, DPP), lane 0 of each wave writes its partial result
// to the scratch row (one element per wave), a barrier, then every thread combines the
// partials in wave order (so all threads get bit-identical results), and a second barrier
// lets the next block_reduce reuse the same scratch. The exchange is through LDS only, so the
// barriers are lds_barrier (no global cache write-back / invalidate around them).
#include <dsl/builder/ids.hpp>
#include <dsl/ops/reduce.hpp>
#include <dsl/tensor/lds_tile.hpp>

namespace tw::dsl {

template <ElemType T, int W>
Scalar<T> block_reduce(const Scalar<T>& v, Reduce op, const LdsTile<T, 1, W>& scratch) {
  static_assert(T::bits == 32, "block_reduce: reduces 32-bit values (Float32, Int32)");
  KernelBuilder& kb = KernelBuilder::current("block_reduce");
  const int waves = kb.waves();
  if (waves > W)
    throw std::invalid_argument("block_reduce: the scratch row has " + std::to_string(W) +
                                " elements but the workgroup has " + std::to_string(waves) +
                                " waves (one element per wave is needed)");
  const Scalar<T> mine = lane_reduce(v, op);
  if (waves == 1)
    return mine;
  if_(lane_id() == 0, [&] { scratch.store(Int32(0), wave_id(), mine); });
  lds_barrier();
  Scalar<T> acc = scratch.load(Int32(0), Int32(0));
  for (int w = 1; w < waves; ++w)
    acc = detail::combine(op, acc, scratch.load(Int32(0), Int32(w)));
  lds_barrier();
  return acc;
}

} // namespace tw::dsl
