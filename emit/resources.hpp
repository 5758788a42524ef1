#pragma once
// What a compiled kernel costs the machine, read from its code object's metadata.
#include <atoms/occupancy.hpp>

#include <cstdint>
#include <string_view>

namespace tw::emit {

struct ResourceReport {
  int vgprs = 0;                  // .vgpr_count (architected VGPRs per lane)
  int sgprs = 0;                  // .sgpr_count
  std::int64_t lds_bytes = 0;     // .group_segment_fixed_size (static LDS)
  std::int64_t scratch_bytes = 0; // .private_segment_fixed_size (per lane; > 0 means spills/stack)
  int workgroup_size = 0;         // .max_flat_workgroup_size (lanes)
  // Occupancy as the hardware allocates (atoms/occupancy.hpp: VGPRs, LDS per WGP, workgroup
  // size; SGPRs do not limit on RDNA): the "; Occupancy: N" LLVM prints, 1..16.
  int waves_per_simd = 0;
  int workgroups_per_wgp = 0;              // resident workgroups of one WGP
  std::string_view occupancy_limiter = ""; // "VGPRs", "LDS", "waves", "workgroup slots"
  int vgpr_spills = 0;                     // .vgpr_spill_count
  int sgpr_spills = 0;                     // .sgpr_spill_count
};

// Fills the occupancy fields from vgprs, lds_bytes and workgroup_size, as LLVM sizes it (by the
// maximum flat workgroup size).
constexpr void set_occupancy(ResourceReport& r) {
  const Occupancy occ = compute_occupancy(r.vgprs, static_cast<std::uint32_t>(r.lds_bytes),
                                          (r.workgroup_size + 31) / 32);
  r.waves_per_simd = occ.waves_per_simd;
  r.workgroups_per_wgp = occ.workgroups_per_wgp;
  r.occupancy_limiter = occupancy_limiter_name(occ.limiter);
}

// The waves the VGPR count alone allows on one SIMD (1536 wave32 VGPRs per SIMD, granule 24,
// at most 16); ResourceReport::waves_per_simd also counts LDS and the workgroup size.
constexpr int waves_per_simd_for_vgprs(int vgprs) {
  return compute_occupancy(vgprs, 0, 1).waves_per_simd;
}

} // namespace tw::emit
