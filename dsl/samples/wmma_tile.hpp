#pragma once
// Sample DSL kernel (examples/04_wmma_tile.cpp, `tilewave emit wmma_tile`): one wave computes
// D = A * B for a single 16x16x16 tile with v_wmma_f32_16x16x16_f16. A is 16 x 16 f16
// row-major, B is 16 x 16 f16 column-major (each column's k values adjacent), D is 16 x 16 f32
// row-major. Which element each lane loads and stores comes from the atom's lane maps
// (tw::atoms::wmma_f32_16x16x16_f16); the kernel never computes a lane index.
// Arguments: a, b, d (pointers); launch 1 workgroup of 32 threads.
#include <atoms/mma/gfx12.hpp>
#include <dsl/dsl.hpp>

namespace tw::samples {

inline ir::Kernel build_wmma_tile() {
  using namespace tw::dsl;
  KernelBuilder kb("wmma_16x16x16_f16", {32, 1, 1});
  auto [A, B, D] = kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f16>(col_major, "b", 16),
                           gtensor<f32>(row_major, "d"));
  constexpr auto mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
  const auto gA = local_tile<16, 16>(A.shape(16, 16), 0, 0);
  const auto gBt = local_tile<16, 16>(B.shape(16, 16).transposed(), 0, 0); // n x k view
  const auto gD = local_tile<16, 16>(D.shape(16, 16), 0, 0);
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, mma.load_a(gA, 0), mma.load_b(gBt, 0), acc);
  mma.store(acc, gD);
  return kb.finish();
}

} // namespace tw::samples
