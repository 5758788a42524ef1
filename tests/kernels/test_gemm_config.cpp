// The GEMM family's tile-configuration heuristic (kernels/gemm/gemm_config.hpp, docs/kernels.md
// "GEMM tile configurations"): its choice at the bench's headline shapes and at the edges of
// each rule, for both CU counts, worked out by hand from the documented rule; the K ranges of
// split-K; the override; the configuration in kernel names.
#include <kernels/gemm/blocks/operand_copy.hpp>
#include <kernels/gemm/gemm_config.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace tw;
using namespace tw::kernels::gemm_kernel;

namespace {
// K tiles of K elements: 32 per tile for f16 / bf16, 64 for 8-bit operands.
GemmConfig choose(int64_t m, int64_t n, int64_t k, int k_tile, int cus = 64, bool split = true,
                  bool grouped = false) {
  GemmConfigQuery q;
  q.m = m;
  q.n = n;
  q.k_tiles = (k + k_tile - 1) / k_tile;
  q.compute_units = cus;
  q.allow_split_k = split;
  q.grouped = grouped;
  return choose_gemm_config(q);
}
constexpr GemmTile w4 = GemmTile::t128x128w4, w8 = GemmTile::t128x128w8,
                   small = GemmTile::t32x128w4, skinny = GemmTile::t128x32w4;
} // namespace

// The rule (gemm_config.hpp): small-M tile for M <= 64, skinny-N tile for N <= 32, the small
// tile when the 128 x 128 tiles are fewer than CUs / 4 (CUs without split-K), else 128 x 128;
// split-K S the largest power of two <= 16 with tiles x S <= CUs, 2 S^2 <= k_tiles, (M + N) x S <=
// 2560.
TEST_CASE("gemm config heuristic: the bench's headline shapes on gfx1201 (64 CUs)") {
  // 4096^3: 1024 tiles of 128 x 128, 4 waves, no split.
  CHECK(choose(4096, 4096, 4096, 32) == GemmConfig{w4, 1});
  // Decode M = 1 / 16: 32 tiles of 32 x 128; (1 + 4096) x 2 > 2560: the problem streams B at
  // the DRAM's rate unsplit, no split.
  CHECK(choose(1, 4096, 4096, 32) == GemmConfig{small, 1});
  CHECK(choose(16, 4096, 4096, 32) == GemmConfig{small, 1});
  // M = 64: 2 x 32 = 64 tiles, 2 splits would exceed the CUs.
  CHECK(choose(64, 4096, 4096, 32) == GemmConfig{small, 1});
  // Skinny N, 4096 x 32: 32 tiles of 128 x 32; (4096 + 32) x 2 > 2560.
  CHECK(choose(4096, 32, 4096, 32) == GemmConfig{skinny, 1});
  CHECK(choose(4096, 32, 4096, 64) == GemmConfig{skinny, 1});
  // N = 64: two columns of 128 x 32 tiles would read A twice: 32 tiles of 128 x 128.
  CHECK(choose(4096, 64, 4096, 64) == GemmConfig{w4, 1});
  // 256 x 32 x 4096: 2 tiles of 128 x 32, 128 K tiles: S = 8 (16 workgroups, 2 x 64 <= 128,
  // 288 x 8 <= 2560); S = 16 would need 512 K tiles.
  CHECK(choose(256, 32, 4096, 32) == GemmConfig{skinny, 8});
  // 256 x 64: 2 tiles of 128 x 128 < 64 / 4: 8 tiles of 32 x 128, S = 8 (64 workgroups).
  CHECK(choose(256, 64, 4096, 32) == GemmConfig{small, 8});
  // Few tiles, 256 x 256 x 4096: 4 tiles of 128 x 128 < 64 / 4: 16 tiles of 32 x 128; S = 4
  // (64 workgroups; 512 x 4 = 2048) for f16 (128 K tiles) and 8-bit (64 K tiles).
  CHECK(choose(256, 256, 4096, 32) == GemmConfig{small, 4});
  CHECK(choose(256, 256, 4096, 64) == GemmConfig{small, 4});
  // 8-bit, K = 1024: 16 K tiles: 2 x 2^2 <= 16 < 2 x 4^2.
  CHECK(choose(256, 256, 1024, 64) == GemmConfig{small, 2});
  // One tile (M = 1, N = 32): 128 K tiles allow S = 8, not 16 (2 x 16^2 > 128).
  CHECK(choose(1, 32, 4096, 32) == GemmConfig{small, 8});
  // 512 x 512: 16 tiles of 128 x 128 (not fewer than 64 / 4); S = 2 (1024 x 4 > 2560) with
  // 8 waves.
  CHECK(choose(512, 512, 4096, 32) == GemmConfig{w8, 2});
  // 1024 x 1024: 64 tiles = CUs: unsplit.
  CHECK(choose(1024, 1024, 4096, 32) == GemmConfig{w4, 1});
}

TEST_CASE("gemm config heuristic: gfx1200 (32 CUs)") {
  CHECK(gemm_compute_units(Arch::gfx1200) == 32);
  CHECK(gemm_compute_units(Arch::gfx1201) == 64);
  CHECK(choose(4096, 4096, 4096, 32, 32) == GemmConfig{w4, 1});
  CHECK(choose(1, 4096, 4096, 32, 32) == GemmConfig{small, 1});  // 32 tiles = 32 CUs
  CHECK(choose(1, 1024, 4096, 32, 32) == GemmConfig{small, 2});  // 8 tiles: 1025 x 2 <= 2560
  CHECK(choose(256, 256, 4096, 32, 32) == GemmConfig{small, 2}); // 4 x 4 < 32; 16 tiles x 2
  // 1024 x 1024: 64 tiles, not fewer than 32 or 64 CUs.
  CHECK(choose(1024, 1024, 1024, 32, 32) == GemmConfig{w4, 1});
  CHECK(choose(1024, 1024, 1024, 32, 64) == GemmConfig{w4, 1});
}

TEST_CASE("gemm config heuristic: the edges of each rule") {
  // Tiles: small M up to 64 rows, skinny N up to 32 columns.
  CHECK(choose(64, 4096, 32, 32).tile == small);
  CHECK(choose(65, 4096, 32, 32).tile == w4);
  CHECK(choose(4096, 32, 32, 32).tile == skinny);
  CHECK(choose(4096, 33, 32, 32).tile == w4);
  CHECK(choose(32, 32, 32, 32).tile == small); // both small: M decides
  CHECK(choose(1, 1, 1, 32) == GemmConfig{small, 1});
  CHECK(choose(0, 4096, 4096, 32) == GemmConfig{small, 1}); // no tiles, nothing to split
  // Few tiles: 15 tiles of 128 x 128 (15 x 4 < 64) take the small tile, 16 do not.
  CHECK(choose(384, 640, 32, 32) == GemmConfig{small, 1});
  CHECK(choose(512, 512, 32, 32) == GemmConfig{w4, 1});
  // Without split-K (dynamic activation quantization) the small tile still spreads the
  // problem; a grouped launch's M and N are only its largest problem's: 128 x 128.
  // Without split-K the threshold is the CUs themselves: 16 tiles of 128 x 128 spread, 64 not.
  CHECK(choose(384, 640, 32, 32, 64, false) == GemmConfig{small, 1});
  CHECK(choose(512, 512, 4096, 32, 64, false) == GemmConfig{small, 1});
  CHECK(choose(1024, 1024, 4096, 32, 64, false) == GemmConfig{w4, 1});
  CHECK(choose(384, 640, 32, 32, 64, false, true) == GemmConfig{w4, 1});
  // Split-K needs 2 S^2 <= k_tiles: 7 K tiles stay whole, 8 split in 2, 32 in 4, 512 in 16.
  CHECK(choose(1, 128, 7 * 32, 32) == GemmConfig{small, 1});
  CHECK(choose(1, 128, 8 * 32, 32) == GemmConfig{small, 2});
  CHECK(choose(1, 128, 31 * 32, 32) == GemmConfig{small, 2});
  CHECK(choose(1, 128, 32 * 32, 32) == GemmConfig{small, 4});
  CHECK(choose(1, 128, 512 * 32, 32) == GemmConfig{small, 16});
  CHECK(choose(1, 128, 10000 * 32, 32) == GemmConfig{small, 16}); // at most 16 ranges
  // (M + N) x S <= 2560: 1 + 1279 rows split in 2, 1 + 1280 do not.
  CHECK(choose(1, 1279, 4096, 32) == GemmConfig{small, 2});
  CHECK(choose(1, 1280, 4096, 32) == GemmConfig{small, 1});
  // tiles x S <= CUs (16 CUs): 8 tiles split in 2, 9 do not.
  CHECK(choose(1, 8 * 128, 4096, 32, 16) == GemmConfig{small, 2});
  CHECK(choose(1, 9 * 128, 4096, 32, 16) == GemmConfig{small, 1});
  // A split 128 x 128 tile runs with 8 waves; unsplit it keeps 4.
  CHECK(choose(512, 512, 16 * 32, 32) == GemmConfig{w8, 2});
  CHECK(choose(512, 512, 7 * 32, 32) == GemmConfig{w4, 1});
  // The grouped launch never splits (and keeps 128 x 128 for M, N > 64).
  CHECK(choose(1, 128, 1000 * 32, 32, 64, false, true) == GemmConfig{small, 1});
  CHECK(choose(256, 256, 4096, 32, 64, false, true) == GemmConfig{w4, 1});
  CHECK(choose(256, 32, 4096, 32, 64, false, true) == GemmConfig{skinny, 1});
  CHECK(choose(256, 256, 4096, 32, 64, false) == GemmConfig{small, 1}); // not split, not grouped
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
  CHECK(gemm_tile_shape(skinny).n == 32);
  CHECK(gemm_tile_shape(skinny).waves_m == 4);
  CHECK(parse_gemm_tile("t128x32w4") == skinny);

  CHECK_FALSE(gemm_config_override().has_value());
  GemmKernelSpec spec; // f16 -> f32
  CHECK(gemm_config_for(spec, 1, 1024, 4096) == GemmConfig{small, 2});
  set_gemm_config_override(GemmConfig{w8, 3});
  CHECK(gemm_config_for(spec, 1, 4096, 4096) == GemmConfig{w8, 3});
  set_gemm_config_override(std::nullopt);
  CHECK(gemm_config_for(spec, 1, 1024, 4096) == GemmConfig{small, 2});
  CHECK_THROWS_AS(set_gemm_config_override(GemmConfig{w4, 0}), std::invalid_argument);
  // Dynamic activation quantization reads whole rows of x in every pass: never split.
  GemmKernelSpec fused;
  fused.a = fused.b = kernels::DType::e4m3;
  fused.act_quant = ActQuant::dynamic_rowwise;
  CHECK(gemm_config_for(fused, 1, 1024, 4096) == GemmConfig{small, 1});
  fused.act_quant = ActQuant::given_rowwise; // 8-bit: 64 K tiles, 8 tiles of 32 x 128
  CHECK(gemm_config_for(fused, 1, 1024, 4096) == GemmConfig{small, 2});
  fused.act_quant = ActQuant::dynamic_rowwise; // few tiles: spread over 32 x 128, unsplit
  CHECK(gemm_config_for(fused, 256, 256, 4096) == GemmConfig{small, 1});
  GemmKernelSpec grouped; // one grid over many problems: no split, no few-tile spreading
  grouped.grouped = true;
  CHECK(gemm_config_for(grouped, 256, 256, 4096) == GemmConfig{w4, 1});

  spec.tile = small;
  CHECK(spec.name().find("_t32x128w4") != std::string::npos);
  spec.split_k = SplitKPass::partial;
  CHECK(spec.name().find("_t32x128w4_skpart") != std::string::npos);
  spec.split_k = SplitKPass::reduce;
  CHECK(spec.name().find("_skred") != std::string::npos);
  spec.tile = skinny;
  CHECK(spec.name().find("_t128x32w4_skred") != std::string::npos);
}

TEST_CASE("gemm operand copies: the widest access whose thread rows divide the tile's rows") {
  // 128 threads; f16 rows of a 32-element K tile: 4 threads a row at 128 bits, 32 rows a pass.
  CHECK(operand_copy_bits(128, 32, 32, 16) == 128);
  CHECK(operand_copy_bits(128, 128, 32, 16) == 128);
  // 8-bit rows of 64 bytes (fp8 / int8 K tile): 4 threads a row at 128 bits.
  CHECK(operand_copy_bits(128, 32, 64, 8) == 128);
  // W8A16's int8 weights, 32 bytes a K tile, 32 rows (skinny-N tile): 128 bits would take
  // 2 threads a row and 64 rows a pass; 64 bits: 4 threads a row, 32 rows.
  CHECK(operand_copy_bits(128, 32, 32, 8) == 64);
  CHECK(operand_copy_bits(128, 128, 32, 8) == 128); // 128 rows: 64 divides them
  // 8 waves, 16 rows of 16 bytes: 32 bits gives 4 threads a row, 64 rows: none fits.
  CHECK(operand_copy_bits(256, 16, 16, 8) == 0);
}
