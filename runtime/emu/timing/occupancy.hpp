#pragma once
// How many waves of a kernel the hardware keeps resident: VGPRs per SIMD, LDS per WGP,
// workgroup size (SGPRs do not limit on RDNA: every wave has its full scalar file). The rule
// is atoms/occupancy.hpp's (the resource report uses it too), with the machine's figures.
#include <atoms/occupancy.hpp>
#include <runtime/emu/timing/machine.hpp>

#include <cstdint>
#include <string>

namespace tw::emu::timing {

struct Occupancy {
  int waves_per_simd = 0;     // what LLVM prints as "; Occupancy: N"
  int workgroups_per_wgp = 0; // resident workgroups of one WGP
  int vgprs_allocated = 0;    // per wave, rounded up to the granule
  std::string limiter;        // "VGPRs", "LDS", "waves", "workgroup slots"
};

// vgprs: the kernel's VGPR count (.vgpr_count); lds_bytes: static + dynamic LDS of one
// workgroup; waves_per_group: wave32 waves of one workgroup. Throws std::invalid_argument
// when one workgroup cannot fit at all.
Occupancy compute_occupancy(const MachineModel& m, int vgprs, uint32_t lds_bytes,
                            int waves_per_group);

} // namespace tw::emu::timing
