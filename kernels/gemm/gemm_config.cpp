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
constexpr int small_m_limit = 64;        // M <= 64: the small-M tile
constexpr int min_k_tiles_per_split = 8; // a split-K range keeps at least 8 K tiles
constexpr int max_split_k = 16;          // partials the second pass sums at most
constexpr int w8_min_tiles_per_cu = 2;   // 8 waves once the tiles fill every CU twice

int64_t tiles(int64_t m, int64_t n, GemmTile t) {
  const GemmTileShape s = gemm_tile_shape(t);
  return (m + s.m - 1) / s.m * ((n + s.n - 1) / s.n);
}
} // namespace

GemmConfig choose_gemm_config(const GemmConfigQuery& q) {
  GemmConfig c;
  if (q.m <= small_m_limit)
    c.tile = GemmTile::t32x128w4;
  const int64_t t = tiles(q.m, q.n, c.tile);
  if (q.allow_split_k && t > 0 && t < q.compute_units) {
    const int64_t by_cus = q.compute_units / t;
    const int64_t by_k = q.k_tiles / min_k_tiles_per_split;
    const int64_t split = std::min({by_cus, by_k, int64_t{max_split_k}});
    if (split >= 2) {
      c.split_k = static_cast<int>(split);
      // The same 128 x 128 tile with 8 waves: the 4-wave partial pass spills (368-396 B of
      // scratch, docs/kernels.md), the 8-wave one does not.
      if (c.tile == GemmTile::t128x128w4)
        c.tile = GemmTile::t128x128w8;
    }
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
