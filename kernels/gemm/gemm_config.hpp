#pragma once
// The GEMM family's tile configurations and the host heuristic that picks one per problem
// (issue 14; docs/kernels.md "GEMM tile configurations"). A configuration is a block tile
// (rows x columns per workgroup, waves as a wave grid) and a split-K factor:
//  - t128x128w4: 128 x 128, 4 waves (2 x 2) of 64 x 64 (the family's first config);
//  - t128x128w8: 128 x 128, 8 waves (4 x 2) of 32 x 64: half the accumulators per wave;
//  - t32x128w4:  32 x 128, 4 waves (1 x 4) of 32 x 32: small M (the linear layers of decode);
//  - t128x32w4:  128 x 32, 4 waves (4 x 1) of 32 x 32: skinny N (its mirror: few output columns);
//  - split_k > 1: the K tiles split into `split_k` ranges (grid z); each workgroup writes its
//    partial accumulator to an f32 / i32 workspace and a second launch of the same body sums
//    the partials in split order (deterministic) and runs the epilogue.
// The heuristic reads only M, N, K, the operand dtype's K tile and the target's CU count (no
// table of exact shapes). set_gemm_config_override forces a configuration (tests, bench).
#include <atoms/arch.hpp>
#include <kernels/common/dtype.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace tw::kernels::gemm_kernel {

enum class GemmTile : std::uint8_t { t128x128w4, t128x128w8, t32x128w4, t128x32w4 };
inline constexpr GemmTile all_gemm_tiles[] = {GemmTile::t128x128w4, GemmTile::t128x128w8,
                                              GemmTile::t32x128w4, GemmTile::t128x32w4};

// The block tile of a GemmTile: m x n outputs, waves_m x waves_n waves (each a
// (m / waves_m) x (n / waves_n) tile of 16 x 16 WMMA atoms).
struct GemmTileShape {
  int m, n, waves_m, waves_n;
  constexpr int waves() const { return waves_m * waves_n; }
  constexpr int threads() const { return 32 * waves(); }
};
constexpr GemmTileShape gemm_tile_shape(GemmTile t) {
  switch (t) {
  case GemmTile::t128x128w8:
    return {128, 128, 4, 2};
  case GemmTile::t32x128w4:
    return {32, 128, 1, 4};
  case GemmTile::t128x32w4:
    return {128, 32, 4, 1};
  case GemmTile::t128x128w4:
    break;
  }
  return {128, 128, 2, 2};
}
// "t128x128w4" ...: the tile's part of kernel names and the bench's / tool's spelling.
std::string_view gemm_tile_name(GemmTile t);
std::optional<GemmTile> parse_gemm_tile(std::string_view name);

struct GemmConfig {
  GemmTile tile = GemmTile::t128x128w4;
  int split_k = 1; // K ranges (>= 1); the launch lowers it so every range has a K tile
  bool operator==(const GemmConfig&) const = default;
};

// What the heuristic reads.
struct GemmConfigQuery {
  int64_t m = 0, n = 0;
  int64_t k_tiles = 0;       // ceil(K / K tile) (K tile: 32 f16/bf16, 64 8-bit, 128 int4 nibbles)
  int compute_units = 64;    // of the target (gemm_compute_units)
  bool allow_split_k = true; // false for the grouped launch and dynamic activation quantization
  bool grouped = false;      // the grouped launch: m, n are its largest problem's
};

// The heuristic (docs/kernels.md "GEMM tile configurations"; derived from bench_gemm --sweep's
// modeled times, gfx1201):
//  1. M <= 64: t32x128w4 (a 128-row tile would compute at least half zero rows);
//  2. else N <= 32: t128x32w4 (the mirror: skinny N, one column of tiles, A read once);
//  3. else, for a single problem (not grouped) whose 128 x 128 tiles are fewer than CUs / 4
//     (fewer than the CUs when split-K is not allowed): t32x128w4 (4x the workgroups);
//     otherwise t128x128w4;
//  4. split-K: the largest power of two S <= 16 with tiles x S <= CUs, 2 S^2 <= k_tiles and
//     (M + N) x S <= 2560 (past that the operands stream at the DRAM's rate already), if S >= 2;
//     a split 128 x 128 tile runs t128x128w8 (the t128x128w4 partial pass spills).
GemmConfig choose_gemm_config(const GemmConfigQuery& q);

// The CU count the heuristic assumes for an arch: gfx1201 (RX 9070 XT) 64, gfx1200
// (RX 9060 XT) 32 (runtime/emu/timing/machine.hpp has the same figures).
int gemm_compute_units(Arch arch);

// K ranges of a split-K launch: every range has ceil(k_tiles / split) K tiles (the last may
// have fewer), and there are as many ranges as that leaves non-empty (>= 1; 1 when
// k_tiles <= 1).
struct GemmKSplit {
  int splits = 1;
  int64_t tiles_per_split = 0;
};
GemmKSplit gemm_k_split(int64_t k_tiles, int split_k);

// A configuration every GEMM launch then uses instead of the heuristic's (split_k lowered per
// launch like the heuristic's; the grouped launch ignores split_k). std::nullopt restores the
// heuristic. Process-wide, for tests and benchmarks.
void set_gemm_config_override(std::optional<GemmConfig> config);
std::optional<GemmConfig> gemm_config_override();

} // namespace tw::kernels::gemm_kernel
