#include <runtime/emu/timing/occupancy.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace tw::emu::timing {

Occupancy compute_occupancy(const MachineModel& m, int vgprs, uint32_t lds_bytes,
                            int waves_per_group) {
  if (waves_per_group < 1 || vgprs < 0 || vgprs > 256)
    throw std::invalid_argument(
        fmt::format("occupancy: waves per workgroup ({}) must be >= 1 and VGPRs ({}) 0..256",
                    waves_per_group, vgprs));
  Occupancy o;
  const int granule = m.vgpr_granule;
  o.vgprs_allocated = std::max(granule, (vgprs + granule - 1) / granule * granule);
  const int by_vgprs = std::min(m.max_waves_per_simd, m.vgprs_per_simd / o.vgprs_allocated);
  const int simds = m.simds_per_wgp();
  // A workgroup's waves spread over the WGP's SIMDs: one needs ceil(n / simds) slots per SIMD.
  const int waves_per_simd_per_group = (waves_per_group + simds - 1) / simds;
  // Resident workgroups: whole workgroups whose waves fit the SIMDs' wave slots.
  int groups = by_vgprs * simds / waves_per_group;
  o.limiter = by_vgprs < m.max_waves_per_simd ? "VGPRs" : "waves";
  if (by_vgprs < waves_per_simd_per_group)
    groups = 0;
  // Waves per SIMD as LLVM counts them: the VGPR limit, lowered by the waves of the
  // workgroups the LDS holds.
  int waves = by_vgprs;
  if (lds_bytes > 0) {
    const uint32_t alloc = (lds_bytes + m.lds_granule - 1) / m.lds_granule * m.lds_granule;
    const int by_lds = static_cast<int>(m.lds_per_wgp / alloc);
    waves = std::min(waves, by_lds * waves_per_group / simds);
    if (by_lds < groups) {
      groups = by_lds;
      o.limiter = "LDS";
    }
  }
  if (groups > m.max_workgroups_per_wgp) {
    groups = m.max_workgroups_per_wgp;
    o.limiter = "workgroup slots";
  }
  if (groups < 1)
    throw std::invalid_argument(
        fmt::format("occupancy: one workgroup of {} waves x {} VGPRs and {} bytes of LDS does not "
                    "fit in a WGP ({} SIMDs x {} VGPRs, {} bytes of LDS)",
                    waves_per_group, vgprs, lds_bytes, simds, m.vgprs_per_simd, m.lds_per_wgp));
  o.workgroups_per_wgp = groups;
  o.waves_per_simd = std::max(waves, 1);
  return o;
}

} // namespace tw::emu::timing
