#include <runtime/emu/timing/occupancy.hpp>

#include <fmt/format.h>
#include <stdexcept>

namespace tw::emu::timing {

Occupancy compute_occupancy(const MachineModel& m, int vgprs, uint32_t lds_bytes,
                            int waves_per_group) {
  if (waves_per_group < 1 || vgprs < 0 || vgprs > 256)
    throw std::invalid_argument(
        fmt::format("occupancy: waves per workgroup ({}) must be >= 1 and VGPRs ({}) 0..256",
                    waves_per_group, vgprs));
  // The hardware rule (atoms/occupancy.hpp) with this machine's figures.
  OccupancyLimits limits;
  limits.vgprs_per_simd = m.vgprs_per_simd;
  limits.vgpr_granule = m.vgpr_granule;
  limits.max_waves_per_simd = m.max_waves_per_simd;
  limits.simds_per_wgp = m.simds_per_wgp();
  limits.lds_per_wgp = m.lds_per_wgp;
  limits.lds_granule = m.lds_granule;
  limits.max_workgroups_per_wgp = m.max_workgroups_per_wgp;
  const tw::Occupancy hw = tw::compute_occupancy(vgprs, lds_bytes, waves_per_group, limits);
  if (hw.workgroups_per_wgp < 1)
    throw std::invalid_argument(fmt::format(
        "occupancy: one workgroup of {} waves x {} VGPRs and {} bytes of LDS does not "
        "fit in a WGP ({} SIMDs x {} VGPRs, {} bytes of LDS)",
        waves_per_group, vgprs, lds_bytes, limits.simds_per_wgp, m.vgprs_per_simd, m.lds_per_wgp));
  Occupancy o;
  o.waves_per_simd = hw.waves_per_simd;
  o.workgroups_per_wgp = hw.workgroups_per_wgp;
  o.vgprs_allocated = hw.vgprs_allocated;
  o.limiter = std::string(occupancy_limiter_name(hw.limiter));
  return o;
}

} // namespace tw::emu::timing
