#pragma once
// What a compiled kernel costs the machine, read from its code object's metadata.
#include <cstdint>

namespace tw::emit {

struct ResourceReport {
  int vgprs = 0;                  // .vgpr_count (architected VGPRs per lane)
  int sgprs = 0;                  // .sgpr_count
  std::int64_t lds_bytes = 0;     // .group_segment_fixed_size (static LDS)
  std::int64_t scratch_bytes = 0; // .private_segment_fixed_size (per lane; > 0 means spills/stack)
  int waves_per_simd = 0;         // waves the VGPR count allows on one SIMD (1..16)
  int vgpr_spills = 0;            // .vgpr_spill_count
  int sgpr_spills = 0;            // .sgpr_spill_count
};

// gfx12 wave32 register file (shared/RDNA4.md): 1536 VGPRs per SIMD, allocated in granules
// of 24, at most 16 waves per SIMD. The VGPR count alone bounds occupancy; LDS and the
// workgroup size may bound it further, which this number does not include.
inline constexpr int kVgprsPerSimdWave32 = 1536;
inline constexpr int kVgprGranuleWave32 = 24;
inline constexpr int kMaxWavesPerSimd = 16;

constexpr int waves_per_simd_for_vgprs(int vgprs) {
  if (vgprs <= 0)
    return kMaxWavesPerSimd;
  const int allocated = (vgprs + kVgprGranuleWave32 - 1) / kVgprGranuleWave32 * kVgprGranuleWave32;
  const int waves = kVgprsPerSimdWave32 / allocated;
  return waves < kMaxWavesPerSimd ? waves : kMaxWavesPerSimd;
}

} // namespace tw::emit
