#pragma once
// The cost of one wave's memory instruction from the addresses its lanes touched: how many
// cache lines a global access coalesces into, and how many cycles an LDS access needs
// with its bank conflicts.
#include <cstdint>
#include <span>
#include <vector>

namespace tw::emu::timing {

struct LaneAccess {
  int lane = 0;
  uint64_t addr = 0;
  uint32_t bytes = 0;
};

// Distinct `line_bytes` lines the accesses touch (appended to `lines`, which the caller
// may reuse); returns their count.
uint32_t coalesced_lines(std::span<const LaneAccess> accesses, uint32_t line_bytes,
                         std::vector<uint64_t>& lines);

// LDS cycles: the lanes are served in phases of `banks * 4` bytes (32 lanes of 4 bytes,
// 16 of 8, 8 of 16); within a phase each 4-byte bank delivers one dword per cycle, so a
// phase takes as many cycles as the most distinct dwords any one bank holds (lanes that
// read the same dword share it). At least 1 for any access.
uint32_t lds_cycles(std::span<const LaneAccess> accesses, int banks);

} // namespace tw::emu::timing
