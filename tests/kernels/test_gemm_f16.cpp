// f16 / bf16 GEMM through the host API (kernels::gemm) on the emulator with memcheck on,
// through both emitters, against the float64 oracle within the accuracy contract: tile
// shapes, odd shapes, K = 0, both operand orders, every output dtype, alpha/beta/bias.
#include "gemm_cases.hpp"

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("gemm: f16 -> f32 at a tile shape and ragged shapes") {
  run_gemm({128, 128, 64}, 1);
  run_gemm({129, 27, 41}, 2);
  run_gemm({7, 300, 13}, 3);
}

TEST_CASE("gemm: bf16 with alpha, beta * c and bias into bf16 and f16") {
  run_gemm({100, 17, 96, DType::bf16, DType::bf16, false, false, true, true, 0.75f}, 4);
  run_gemm({23, 41, 27, DType::f16, DType::f16, false, false, true, true, 2.0f}, 5);
}

TEST_CASE("gemm: column-major and row-major operands in every combination") {
  run_gemm({41, 23, 17, DType::f16, DType::f32, true, true}, 6);
  run_gemm({17, 41, 23, DType::bf16, DType::f32, false, false}, 7);
  run_gemm({13, 7, 100, DType::f16, DType::f16, true, false, true}, 8);
}

TEST_CASE("gemm: K = 0 gives zeros plus bias, and M = N = K = 1") {
  run_gemm({27, 13, 0, DType::f16, DType::f32, false, true, true}, 9);
  run_gemm({1, 1, 1}, 10);
}

// Clipped edges (gemm_clip_edges): operands whose contiguous extent is a multiple of 8 take
// clipped buffer copies for every tile, the partial M / N tiles and the K-edge tile (K not a
// multiple of the K tile 32) included; column-major ones clip along M / N; out's stores past
// M / N are dropped by the range check. A single clipped operand beside a masked one too.
TEST_CASE("gemm: clipped edges at M, N and K for both operand orders") {
  run_gemm({72, 136, 40}, 41);                                             // K edge of 8
  run_gemm({24, 40, 56, DType::f16, DType::f32, true, true}, 42);          // m/n-contiguous
  run_gemm({13, 48, 88, DType::bf16, DType::bf16, true, false, true}, 43); // a masked (M = 13)
  run_gemm({40, 27, 72, DType::f16, DType::f16, false, false, false, true}, 44); // b masked
}
