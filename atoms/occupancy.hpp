#pragma once
// gfx12 occupancy: how many waves of a kernel one SIMD keeps resident, the way the hardware
// allocates (shared/RDNA4.md) and LLVM prints it ("; Occupancy: N" in the assembly). The
// emitters' resource report and the timing model both compute it here.
//  - VGPRs: 1536 wave32 VGPRs per SIMD, allocated per wave in granules of 24; 16 waves at most.
//  - LDS: 128 KiB per WGP (64 KiB at most per workgroup), allocated in 512-byte granules;
//    the workgroups the LDS holds, with their waves spread over the WGP's 4 SIMDs, bound the
//    waves per SIMD.
//  - Workgroup size: a workgroup's waves must fit the SIMDs' wave slots together.
//  - SGPRs do not limit on RDNA (every wave has its own 106 SGPRs; LLVM agrees for gfx10+).
#include <cstdint>
#include <string_view>

namespace tw {

struct OccupancyLimits {
  int vgprs_per_simd = 1536; // wave32
  int vgpr_granule = 24;     // wave32
  int max_waves_per_simd = 16;
  int simds_per_wgp = 4;
  std::uint32_t lds_per_wgp = 131072;
  std::uint32_t lds_granule = 512;
  int max_workgroups_per_wgp = 64;
};

inline constexpr OccupancyLimits gfx12_occupancy_limits{};

enum class OccupancyLimiter { vgprs, lds, waves, workgroup_slots };

constexpr std::string_view occupancy_limiter_name(OccupancyLimiter l) {
  switch (l) {
  case OccupancyLimiter::vgprs:
    return "VGPRs";
  case OccupancyLimiter::lds:
    return "LDS";
  case OccupancyLimiter::waves:
    return "waves";
  case OccupancyLimiter::workgroup_slots:
    return "workgroup slots";
  }
  return "?";
}

struct Occupancy {
  int waves_per_simd = 0;     // what LLVM prints as "; Occupancy: N" (>= 1)
  int workgroups_per_wgp = 0; // resident workgroups of one WGP; 0: one workgroup does not fit
  int vgprs_allocated = 0;    // per wave, rounded up to the granule
  OccupancyLimiter limiter = OccupancyLimiter::waves;
};

// vgprs: the kernel's VGPR count (.vgpr_count, 0..256); lds_bytes: LDS of one workgroup;
// waves_per_group: wave32 waves of one workgroup (>= 1; LLVM uses the maximum flat workgroup
// size). Out-of-range inputs are clamped (vgprs to 0..256, waves_per_group to >= 1).
constexpr Occupancy compute_occupancy(int vgprs, std::uint32_t lds_bytes, int waves_per_group,
                                      const OccupancyLimits& m = gfx12_occupancy_limits) {
  vgprs = vgprs < 0 ? 0 : vgprs > 256 ? 256 : vgprs;
  waves_per_group = waves_per_group < 1 ? 1 : waves_per_group;
  Occupancy o;
  const int granule = m.vgpr_granule;
  const int rounded = (vgprs + granule - 1) / granule * granule;
  o.vgprs_allocated = rounded < granule ? granule : rounded;
  const int vgpr_waves = m.vgprs_per_simd / o.vgprs_allocated;
  const int by_vgprs = vgpr_waves < m.max_waves_per_simd ? vgpr_waves : m.max_waves_per_simd;
  o.limiter = by_vgprs < m.max_waves_per_simd ? OccupancyLimiter::vgprs : OccupancyLimiter::waves;
  // A workgroup's waves spread over the WGP's SIMDs: one needs ceil(n / simds) slots per SIMD.
  const int slots_per_group = (waves_per_group + m.simds_per_wgp - 1) / m.simds_per_wgp;
  int groups = by_vgprs < slots_per_group ? 0 : by_vgprs * m.simds_per_wgp / waves_per_group;
  // Waves per SIMD as LLVM counts them: the VGPR limit, lowered by the waves of the
  // workgroups the LDS holds.
  int waves = by_vgprs;
  if (lds_bytes > 0) {
    const std::uint32_t alloc = (lds_bytes + m.lds_granule - 1) / m.lds_granule * m.lds_granule;
    const int by_lds = static_cast<int>(m.lds_per_wgp / alloc);
    const int lds_waves = by_lds * waves_per_group / m.simds_per_wgp;
    waves = lds_waves < waves ? lds_waves : waves;
    if (by_lds < groups) {
      groups = by_lds;
      o.limiter = OccupancyLimiter::lds;
    }
  }
  if (groups > m.max_workgroups_per_wgp) {
    groups = m.max_workgroups_per_wgp;
    o.limiter = OccupancyLimiter::workgroup_slots;
  }
  o.workgroups_per_wgp = groups;
  o.waves_per_simd = waves < 1 ? 1 : waves;
  return o;
}

} // namespace tw
