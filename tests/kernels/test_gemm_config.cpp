// The GEMM family's tile-configuration heuristic (kernels/gemm/gemm_config.hpp, docs/kernels.md
// "GEMM tile configurations"): its choice at the bench's headline shapes and at the edges of
// each rule, for both CU counts, worked out by hand from the documented rule; the K ranges of
// split-K; the override; the configuration in kernel names.
#include <kernels/gemm/gemm_config.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace tw;
using namespace tw::kernels::gemm_kernel;

namespace {
// K tiles of K elements: 32 per tile for f16 / bf16, 64 for 8-bit operands.
GemmConfig choose(int64_t m, int64_t n, int64_t k, int k_tile, int cus = 64) {
  GemmConfigQuery q;
  q.m = m;
  q.n = n;
  q.k_tiles = (k + k_tile - 1) / k_tile;
  q.compute_units = cus;
  return choose_gemm_config(q);
}
constexpr GemmTile w4 = GemmTile::t128x128w4, w8 = GemmTile::t128x128w8,
                   small = GemmTile::t32x128w4;
} // namespace

TEST_CASE("gemm config heuristic: the bench's headline shapes on gfx1201 (64 CUs)") {
  // 4096^3: 1024 tiles of 128 x 128, 4 waves, no split.
  CHECK(choose(4096, 4096, 4096, 32) == GemmConfig{w4, 1});
  // Decode M = 1 / 16: 32 tiles of 32 x 128 < 64 CUs: split min(64 / 32, 128 / 8, 16) = 2.
  CHECK(choose(1, 4096, 4096, 32) == GemmConfig{small, 2});
  CHECK(choose(16, 4096, 4096, 32) == GemmConfig{small, 2});
  // M = 64: 2 x 32 = 64 tiles, not fewer than the CUs.
  CHECK(choose(64, 4096, 4096, 32) == GemmConfig{small, 1});
  // Few tiles, 256 x 256 x 4096: 4 tiles; f16 128 K tiles: min(16, 16, 16) = 16; 8-bit 64 K
  // tiles: min(16, 8, 16) = 8; split 128-row tiles run with 8 waves.
  CHECK(choose(256, 256, 4096, 32) == GemmConfig{w8, 16});
  CHECK(choose(256, 256, 4096, 64) == GemmConfig{w8, 8});
}

TEST_CASE("gemm config heuristic: gfx1200 (32 CUs)") {
  CHECK(gemm_compute_units(Arch::gfx1200) == 32);
  CHECK(gemm_compute_units(Arch::gfx1201) == 64);
  CHECK(choose(4096, 4096, 4096, 32, 32) == GemmConfig{w4, 1});
  CHECK(choose(1, 4096, 4096, 32, 32) == GemmConfig{small, 1}); // 32 tiles = 32 CUs
  CHECK(choose(1, 2048, 4096, 32, 32) == GemmConfig{small, 2}); // 16 tiles: 32 / 16 = 2
  CHECK(choose(256, 256, 4096, 32, 32) == GemmConfig{w8, 8});   // 32 / 4 = 8
  // 1024 x 1024: 64 tiles, not fewer than 32 or 64 CUs.
  CHECK(choose(1024, 1024, 1024, 32, 32) == GemmConfig{w4, 1});
  CHECK(choose(1024, 1024, 1024, 32, 64) == GemmConfig{w4, 1});
}

TEST_CASE("gemm config heuristic: the edges of each rule") {
  CHECK(choose(64, 128, 32, 32).tile == small);
  CHECK(choose(65, 128, 32, 32).tile == w4);
  CHECK(choose(1, 1, 1, 32) == GemmConfig{small, 1});
  CHECK(choose(0, 4096, 4096, 32) == GemmConfig{small, 1}); // no tiles, nothing to split
  // 8 waves only for split problems of more than 64 rows: 63 tiles and 8 K tiles stay whole.
  CHECK(choose(128 * 7, 128 * 9, 8 * 32, 32) == GemmConfig{w4, 1});
  CHECK(choose(128 * 7, 128 * 9, 16 * 32, 32) == GemmConfig{w4, 1}); // 64 / 63 = 1
  CHECK(choose(128, 128 * 32, 16 * 32, 32) == GemmConfig{w8, 2});    // 32 tiles: 64 / 32
  // Split-K needs >= 2 ranges of >= 8 K tiles: K = 15 tiles stays whole, 16 splits in 2.
  CHECK(choose(1, 128, 15 * 32, 32) == GemmConfig{small, 1});
  CHECK(choose(1, 128, 16 * 32, 32) == GemmConfig{small, 2});
  // At most 16 ranges, and no more ranges than CUs per tile.
  CHECK(choose(1, 128, 1000 * 32, 32) == GemmConfig{small, 16});
  CHECK(choose(100, 1000, 1000 * 32, 32) == GemmConfig{w8, 8});     // 8 tiles: 64 / 8
  CHECK(choose(100, 128 * 33, 1000 * 32, 32) == GemmConfig{w4, 1}); // 33 tiles: 64 / 33 = 1
  GemmConfigQuery grouped;
  grouped.m = 1;
  grouped.n = 128;
  grouped.k_tiles = 1000;
  grouped.allow_split_k = false;
  CHECK(choose_gemm_config(grouped) == GemmConfig{small, 1});
}

TEST_CASE("gemm split-K: every range has ceil(k_tiles / split) K tiles, none is empty") {
  const auto split = [](int64_t k_tiles, int s) {
    const GemmKSplit r = gemm_k_split(k_tiles, s);
    return std::pair{r.splits, r.tiles_per_split};
  };
  CHECK(split(10, 3) == std::pair{3, int64_t{4}}); // 4 + 4 + 2
  CHECK(split(10, 4) == std::pair{4, int64_t{3}}); // 3 + 3 + 3 + 1
  CHECK(split(9, 4) == std::pair{3, int64_t{3}});  // a fourth range would be empty
  CHECK(split(2, 16) == std::pair{2, int64_t{1}});
  CHECK(split(1, 4).first == 1);
  CHECK(split(0, 4).first == 1);
  CHECK(split(100, 1) == std::pair{1, int64_t{100}});
}

TEST_CASE("gemm config: names, the override and kernel names") {
  for (GemmTile t : all_gemm_tiles)
    CHECK(parse_gemm_tile(gemm_tile_name(t)) == t);
  CHECK_FALSE(parse_gemm_tile("t64x64w4").has_value());
  CHECK(gemm_tile_shape(w4).threads() == 128);
  CHECK(gemm_tile_shape(w8).threads() == 256);
  CHECK(gemm_tile_shape(small).m == 32);

  CHECK_FALSE(gemm_config_override().has_value());
  GemmKernelSpec spec; // f16 -> f32
  CHECK(gemm_config_for(spec, 1, 4096, 4096) == GemmConfig{small, 2});
  set_gemm_config_override(GemmConfig{w8, 3});
  CHECK(gemm_config_for(spec, 1, 4096, 4096) == GemmConfig{w8, 3});
  set_gemm_config_override(std::nullopt);
  CHECK(gemm_config_for(spec, 1, 4096, 4096) == GemmConfig{small, 2});
  CHECK_THROWS_AS(set_gemm_config_override(GemmConfig{w4, 0}), std::invalid_argument);
  // Dynamic activation quantization reads whole rows of x in every pass: never split.
  GemmKernelSpec fused;
  fused.a = fused.b = kernels::DType::e4m3;
  fused.act_quant = ActQuant::dynamic_rowwise;
  CHECK(gemm_config_for(fused, 1, 4096, 4096) == GemmConfig{small, 1});
  fused.act_quant = ActQuant::given_rowwise;
  CHECK(gemm_config_for(fused, 1, 4096, 4096) == GemmConfig{small, 2});

  spec.tile = small;
  CHECK(spec.name().find("_t32x128w4") != std::string::npos);
  spec.split_k = SplitKPass::partial;
  CHECK(spec.name().find("_t32x128w4_skpart") != std::string::npos);
  spec.split_k = SplitKPass::reduce;
  CHECK(spec.name().find("_skred") != std::string::npos);
}
