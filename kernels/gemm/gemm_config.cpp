#include <kernels/gemm/gemm_config.hpp>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

namespace tw::kernels::gemm_kernel {

std::string_view gemm_tile_name(GemmTile t) {
  switch (t) {
  case GemmTile::t128x128w8:
    return "t128x128w8";
  case GemmTile::t32x128w4:
    return "t32x128w4";
  case GemmTile::t128x32w4:
    return "t128x32w4";
  case GemmTile::t128x128w4:
    break;
  }
  return "t128x128w4";
}

std::optional<GemmTile> parse_gemm_tile(std::string_view name) {
  for (GemmTile t : all_gemm_tiles)
    if (gemm_tile_name(t) == name)
      return t;
  return std::nullopt;
}

namespace {
constexpr int small_m_limit = 64;          // M <= 64: the small-M tile
constexpr int skinny_n_limit = 32;         // N <= 32: the skinny-N tile (one column of tiles)
constexpr int few_tiles_per_cu = 4;        // 128 x 128 tiles < CUs / 4: the 32 x 128 tile instead
constexpr int max_split_k = 16;            // partials the second pass sums at most
constexpr int64_t split_rows_limit = 2560; // (M + N) x split <= this: see choose_gemm_config

int64_t tiles(int64_t m, int64_t n, GemmTile t) {
  const GemmTileShape s = gemm_tile_shape(t);
  return (m + s.m - 1) / s.m * ((n + s.n - 1) / s.n);
}
} // namespace

GemmConfig choose_gemm_config(const GemmConfigQuery& q) {
  GemmConfig c;
  // The few-tile threshold: split-K spreads a problem of CUs / 4 tiles or more over the CUs;
  // without split-K, only the smaller tile does.
  const int64_t few = int64_t{q.compute_units} * (q.allow_split_k ? 1 : few_tiles_per_cu);
  if (q.m <= small_m_limit)
    c.tile = GemmTile::t32x128w4;
  else if (q.n <= skinny_n_limit)
    c.tile = GemmTile::t128x32w4;
  else if (!q.grouped && tiles(q.m, q.n, c.tile) * few_tiles_per_cu < few)
    c.tile = GemmTile::t32x128w4; // 4x the workgroups of the 128 x 128 tile
  if (!q.allow_split_k)
    return c;
  // Split-K doubles while: the workgroups (tiles x split) stay within the CUs; every K range
  // keeps at least 2 x split K tiles (the partial pass's k_tiles / split iterations against
  // the reduce pass's split sequential loads of a partial: s^2 <= k_tiles / 2); and the
  // operand rows a K tile reads over the problem, (M + N) x split, stay within
  // split_rows_limit (beyond it the problem reads its operands at the DRAM's rate already:
  // more ranges only add workspace traffic).
  const int64_t t = tiles(q.m, q.n, c.tile);
  int64_t split = 1;
  for (int64_t s = 2; s <= max_split_k; s *= 2) {
    if (t * s > q.compute_units || 2 * s * s > q.k_tiles || (q.m + q.n) * s > split_rows_limit)
      break;
    split = s;
  }
  if (t > 0 && split >= 2) {
    c.split_k = static_cast<int>(split);
    // The same 128 x 128 tile with 8 waves: the 4-wave partial pass spills (368-396 B of
    // scratch, docs/kernels.md), the 8-wave one does not.
    if (c.tile == GemmTile::t128x128w4)
      c.tile = GemmTile::t128x128w8;
  }
  return c;
}

int gemm_compute_units(Arch arch) {
  return arch == Arch::gfx1200 ? 32 : 64;
}

GemmKSplit gemm_k_split(int64_t k_tiles, int split_k) {
  GemmKSplit s;
  s.tiles_per_split = k_tiles;
  if (split_k <= 1 || k_tiles <= 1)
    return s;
  s.tiles_per_split = (k_tiles + split_k - 1) / split_k;
  s.splits = static_cast<int>((k_tiles + s.tiles_per_split - 1) / s.tiles_per_split);
  return s;
}

namespace {
std::mutex override_mutex;
std::optional<GemmConfig>& override_storage() {
  static std::optional<GemmConfig> o;
  return o;
}
} // namespace

void set_gemm_config_override(std::optional<GemmConfig> config) {
  if (config && config->split_k < 1)
    throw std::invalid_argument("set_gemm_config_override: split_k must be >= 1, got " +
                                std::to_string(config->split_k));
  std::lock_guard lock(override_mutex);
  override_storage() = config;
}

std::optional<GemmConfig> gemm_config_override() {
  std::lock_guard lock(override_mutex);
  return override_storage();
}

} // namespace tw::kernels::gemm_kernel
