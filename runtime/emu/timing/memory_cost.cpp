#include <runtime/emu/timing/memory_cost.hpp>

#include <algorithm>
#include <array>

namespace tw::emu::timing {

uint32_t coalesced_lines(std::span<const LaneAccess> accesses, uint32_t line_bytes,
                         std::vector<uint64_t>& lines) {
  const size_t first = lines.size();
  for (const auto& a : accesses) {
    const uint64_t lo = a.addr / line_bytes, hi = (a.addr + std::max(a.bytes, 1u) - 1) / line_bytes;
    for (uint64_t l = lo; l <= hi; ++l)
      lines.push_back(l);
  }
  const auto begin = lines.begin() + static_cast<std::ptrdiff_t>(first);
  if (!std::is_sorted(begin, lines.end())) // lanes usually walk memory upwards: skip the sort
    std::sort(begin, lines.end());
  lines.erase(std::unique(begin, lines.end()), lines.end());
  return static_cast<uint32_t>(lines.size() - first);
}

uint32_t lds_cycles(std::span<const LaneAccess> accesses, int banks) {
  if (accesses.empty())
    return 1;
  // Bytes per lane (2-address forms make two accesses per lane).
  std::array<uint32_t, 32> lane_bytes{};
  for (const auto& a : accesses)
    lane_bytes[static_cast<size_t>(a.lane) & 31] += a.bytes;
  const uint32_t per_lane = std::max(4u, *std::max_element(lane_bytes.begin(), lane_bytes.end()));
  const int lanes_per_phase = std::clamp(static_cast<int>(uint32_t(banks) * 4 / per_lane), 1, 32);
  uint32_t cycles = 0;
  thread_local std::vector<uint64_t> dwords; // (bank << 40) | dword, per phase (no malloc
                                             // per LDS instruction)
  for (int phase = 0; phase < 32 / lanes_per_phase; ++phase) {
    dwords.clear();
    for (const auto& a : accesses) {
      if (a.lane / lanes_per_phase != phase)
        continue;
      for (uint64_t d = a.addr / 4; d <= (a.addr + std::max(a.bytes, 1u) - 1) / 4; ++d)
        dwords.push_back((d % uint64_t(banks)) << 40 | d);
    }
    if (dwords.empty())
      continue;
    std::sort(dwords.begin(), dwords.end());
    dwords.erase(std::unique(dwords.begin(), dwords.end()), dwords.end());
    uint32_t worst = 0, run = 0;
    for (size_t i = 0; i < dwords.size(); ++i) {
      run = (i > 0 && dwords[i] >> 40 == dwords[i - 1] >> 40) ? run + 1 : 1;
      worst = std::max(worst, run);
    }
    cycles += worst;
  }
  return std::max(cycles, 1u);
}

} // namespace tw::emu::timing
