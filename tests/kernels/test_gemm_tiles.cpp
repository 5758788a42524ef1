// Every tile configuration of the GEMM family (kernels/gemm/gemm_config.hpp) on every kernel of
// the family, through the host API on the emulator with memcheck on, both emitters, against
// the float64 oracles (integer results exactly): the configuration is forced
// (ForceGemmConfig), the shapes are odd (M = 1, 7, 33, 64 for the small-M tile, ragged N and K:
// N = 7 .. 130 spans 1 to 5 columns of the skinny-N tile),
// and split-K runs with 2 to 4 K ranges, the last one shorter. The heuristic's own split-K
// choice is checked on a few-tile problem with a long K.
#include "gemm_cases.hpp"

#include <kernels/gemm/gemm_kernel.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::ActQuantMode;
using kernels::DType;
using kernels::gemm_kernel::GemmConfig;
using kernels::gemm_kernel::GemmTile;

namespace {

// f16 / bf16 gemm, scaled_mm, int8_linear, w8a16 at the given M values.
void run_dense(const int64_t (&ms)[4], uint64_t seed) {
  run_gemm({ms[0], 77, 45}, seed);
  run_gemm({ms[1], 23, 17, DType::f16, DType::f32, true, true}, seed + 10);
  run_gemm({ms[2], 130, 29, DType::bf16, DType::bf16, false, true, true, true, 0.75f}, seed + 20);
  run_gemm({ms[3], 41, 100, DType::f16, DType::f16, true, false, true}, seed + 30);
  run_scaled_mm({ms[0], 41, 96, DType::e4m3, DType::e5m2, DType::bf16, true, false}, seed + 40);
  run_scaled_mm({ms[2], 129, 23, DType::e5m2, DType::e4m3, DType::f32, true, true, true},
                seed + 50);
  run_int8_linear({ms[1], 27, 100, DType::f32, true, true, true}, seed + 60);
  run_int8_linear({ms[3], 7, 13, DType::bf16, false, true}, seed + 70);
  run_w8a16(ms[3], 41, 27, DType::f16, true, seed + 80);
  run_w8a16(ms[0], 129, 96, DType::bf16, false, seed + 90);
}

// iu4_gemm, mxfp8_gemm, the fused kernels (with LoRA) at the given M values.
void run_special(const int64_t (&ms)[4], uint64_t seed) {
  run_iu4({ms[2], 17, 33}, seed);
  run_iu4({ms[0], 129, 13, DType::uint4, DType::int4}, seed + 10);
  run_mxfp8(ms[2], 27, 100, DType::e4m3, DType::e4m3, DType::f32, true, seed + 20);
  run_mxfp8(ms[0], 130, 23, DType::e5m2, DType::e4m3, DType::bf16, false, seed + 30);
  run_fused(false, ms[2], 27, 100, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, seed + 40);
  run_fused(true, ms[3], 129, 27, DType::bf16, DType::int8, ActQuantMode::given_scale, true,
            DType::f32, seed + 50, 16);
  run_fused(true, ms[1], 13, 41, DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, seed + 60, 40);
}

constexpr int64_t small_ms[4] = {1, 7, 33, 64};
constexpr int64_t big_ms[4] = {1, 7, 129, 64};

} // namespace

TEST_CASE("gemm tiles: t32x128w4 (small M) on gemm, scaled_mm, int8_linear, w8a16") {
  ForceGemmConfig force({GemmTile::t32x128w4, 1});
  run_dense(small_ms, 1000);
}

TEST_CASE("gemm tiles: t32x128w4 (small M) on iu4, mxfp8, the fused kernels and grouped") {
  ForceGemmConfig force({GemmTile::t32x128w4, 1});
  run_special(small_ms, 2000);
  // 32-row tiles: 1 + 2 * 2 + 2 * 1 workgroups.
  run_scaled_mm_multi({{{1, 41, 27}, {33, 130, 40}, {0, 5, 5}, {64, 7, 96}}}, 2100, 7);
}

TEST_CASE("gemm tiles: t128x128w8 (8 waves) on gemm, scaled_mm, int8_linear, w8a16") {
  ForceGemmConfig force({GemmTile::t128x128w8, 1});
  run_dense(big_ms, 3000);
}

TEST_CASE("gemm tiles: t128x128w8 (8 waves) on iu4, mxfp8, the fused kernels and grouped") {
  ForceGemmConfig force({GemmTile::t128x128w8, 1});
  run_special(big_ms, 4000);
  // 128-row tiles: 1 + 2 * 2 + 1.
  run_scaled_mm_multi({{{1, 41, 27}, {129, 130, 40}, {64, 7, 96}}}, 4100, 6);
}

TEST_CASE("gemm tiles: t128x32w4 (skinny N) on gemm, scaled_mm, int8_linear, w8a16") {
  ForceGemmConfig force({GemmTile::t128x32w4, 1});
  run_dense(big_ms, 8000);
}

TEST_CASE("gemm tiles: t128x32w4 (skinny N) on iu4, mxfp8, the fused kernels and grouped") {
  ForceGemmConfig force({GemmTile::t128x32w4, 1});
  run_special(big_ms, 8100);
  // 128 x 32 tiles: 2 + 2 * 5 + 1 * 1.
  run_scaled_mm_multi({{{1, 41, 27}, {129, 130, 40}, {64, 7, 96}}}, 8200, 13);
}

TEST_CASE("gemm tiles: split-K (3 ranges) with t128x32w4") {
  ForceGemmConfig force({GemmTile::t128x32w4, 3});
  run_gemm({129, 33, 301}, 8300);
  run_scaled_mm({200, 64, 300, DType::e4m3, DType::e4m3, DType::f16, true, true, true}, 8310);
  run_int8_linear({7, 65, 300, DType::bf16, true, true, true}, 8320);
  run_w8a16(130, 31, 300, DType::bf16, true, 8330);
  run_iu4({129, 17, 333}, 8340);
  run_mxfp8(65, 41, 300, DType::e5m2, DType::e5m2, DType::bf16, true, 8350);
  run_fused(true, 140, 27, 300, DType::f16, DType::int8, ActQuantMode::given_scale, true,
            DType::bf16, 8360, 16);
}

// K = 100 .. 300 at K tiles of 32 (16-bit), 64 bytes (8-bit, int4): 2 to 10 K tiles in 2 to 4
// ranges; K = 13 has one K tile (no split); K = 0 none.
TEST_CASE("gemm tiles: split-K (3 ranges) with t32x128w4 on every kernel") {
  ForceGemmConfig force({GemmTile::t32x128w4, 3});
  run_gemm({33, 77, 301}, 5000);
  run_gemm({7, 130, 300, DType::bf16, DType::bf16, true, true, true, true, 0.75f}, 5010);
  run_gemm({1, 41, 13}, 5020);
  run_gemm({23, 17, 0, DType::f16, DType::f32, false, false, true}, 5030);
  run_scaled_mm({64, 41, 300, DType::e4m3, DType::e5m2, DType::bf16, true, true, true}, 5040);
  run_int8_linear({33, 27, 300, DType::f16, true, true, true}, 5050);
  run_w8a16(1, 129, 300, DType::f16, true, 5060);
  run_iu4({7, 17, 333}, 5070); // odd K: the last range holds the half byte
  run_mxfp8(33, 27, 300, DType::e4m3, DType::e4m3, DType::f32, true, 5080);
  run_fused(false, 33, 27, 300, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, 5090);
  run_fused(true, 64, 129, 300, DType::bf16, DType::int8, ActQuantMode::given_scale, true,
            DType::f32, 5100, 16);
}

TEST_CASE("gemm tiles: split-K (4 and 2 ranges) with t128x128w4 and t128x128w8") {
  {
    ForceGemmConfig force({GemmTile::t128x128w4, 4});
    run_gemm({129, 41, 300}, 6000);
    run_int8_linear({7, 130, 400, DType::bf16, true, false, true}, 6010);
    run_fused(true, 33, 17, 400, DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false,
              DType::f16, 6020, 40);
  }
  ForceGemmConfig force({GemmTile::t128x128w8, 2});
  run_scaled_mm({129, 27, 300, DType::e5m2, DType::e5m2, DType::f16, false, true}, 6030);
  run_iu4({33, 41, 257, DType::uint4, DType::uint4}, 6040);
  run_mxfp8(7, 129, 200, DType::e5m2, DType::e4m3, DType::f16, true, 6050);
}

TEST_CASE("gemm tiles: the heuristic splits K for few tiles and a long K") {
  using namespace kernels::gemm_kernel;
  // 33 x 65: 2 tiles of 32 x 128; K = 1100: 35 K tiles: S = 4 (2 x 4^2 <= 35 < 2 x 8^2).
  GemmKernelSpec f16;
  CHECK(gemm_config_for(f16, 33, 65, 1100) == GemmConfig{GemmTile::t32x128w4, 4});
  run_gemm({33, 65, 1100, DType::f16, DType::f32, false, false, true}, 7000);
  // 100 x 200: 2 tiles of 128 x 128 < 64 / 4: 8 tiles of 32 x 128; K = 1500: 24 K tiles: S = 2.
  GemmKernelSpec i8;
  i8.a = i8.b = DType::int8;
  CHECK(gemm_config_for(i8, 100, 200, 1500) == GemmConfig{GemmTile::t32x128w4, 2});
  run_int8_linear({100, 200, 1500, DType::bf16, true, true, true}, 7010);
  // Skinny N: 300 x 30: 3 tiles of 128 x 32; K = 2000: 63 K tiles: S = 4 (12 workgroups,
  // 330 x 4 <= 2560, 2 x 8^2 > 63).
  CHECK(gemm_config_for(f16, 300, 30, 2000) == GemmConfig{GemmTile::t128x32w4, 4});
  run_gemm({300, 30, 2000, DType::f16, DType::f32, true, false, true}, 7020);
}
