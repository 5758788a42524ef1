#include <runtime/emu/timing/memory_cost.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>

namespace tw::emu::timing {

const std::vector<uint64_t>& LineCoalescer::lines() {
  if (!sorted_) {
    merge_runs();
    sorted_ = true;
  }
  return lines_;
}

// The lanes of one instruction usually walk memory upwards in a few stretches (a transposed
// load: the rows of one column, then of the next): the ascending runs merged pairwise, equal
// lines dropped, instead of a comparison sort (many runs: the sort).
void LineCoalescer::merge_runs() {
  constexpr size_t kMaxRuns = 8;
  std::array<size_t, kMaxRuns + 1> bounds; // run r: [bounds[r], bounds[r + 1]), ascending
  size_t runs = 1;
  bounds[0] = 0;
  for (size_t i = 1; i < lines_.size(); ++i)
    if (lines_[i] < lines_[i - 1]) {
      if (runs == kMaxRuns) {
        std::sort(lines_.begin(), lines_.end());
        lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
        return;
      }
      bounds[runs++] = i;
    }
  bounds[runs] = lines_.size();
  // The runs repeat the first one (a transposed load's two halves read the same rows): it.
  const size_t first = bounds[1];
  bool repeats = true;
  for (size_t r = 1; r < runs && repeats; ++r)
    repeats = bounds[r + 1] - bounds[r] == first &&
              std::equal(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(first),
                         lines_.begin() + static_cast<std::ptrdiff_t>(bounds[r]));
  if (repeats) {
    lines_.resize(first);
    return;
  }
  while (runs > 1) {
    merged_.clear();
    size_t out = 0; // runs written to merged_ (bounds[out] is read no more)
    for (size_t r = 0; r < runs; r += 2) {
      const size_t start = merged_.size();
      auto put = [&](uint64_t x) {
        if (merged_.size() == start || merged_.back() != x)
          merged_.push_back(x);
      };
      size_t a = bounds[r], b = bounds[r + 1];
      const size_t a_end = b, b_end = r + 1 < runs ? bounds[r + 2] : b;
      while (a < a_end && b < b_end)
        put(lines_[a] <= lines_[b] ? lines_[a++] : lines_[b++]);
      while (a < a_end)
        put(lines_[a++]);
      while (b < b_end)
        put(lines_[b++]);
      bounds[out++] = start;
    }
    bounds[out] = merged_.size();
    runs = out;
    lines_.swap(merged_);
  }
}

void LineCoalescer::add_lanes(const std::array<uint64_t, 32>& addr, uint32_t exec, uint32_t unit,
                              uint32_t units) {
  const uint64_t span = uint64_t(unit ? unit : 1) * units - 1; // last byte from the first
  if (line_shift_ < 0 || span >= line_bytes_ || !lines_.empty()) {
    // A lane may span more than two lines, or lines are listed already: lane by lane.
    for (uint32_t m = exec; m; m &= m - 1)
      add_run(addr[static_cast<size_t>(std::countr_zero(m))], unit, units);
    return;
  }
  // Each lane's access ends in its first line or the next one. The list stays sorted and
  // distinct while the lanes walk upwards or read again lines it holds, in its order (a
  // transposed load: the rows of one half, then the same rows again): a line below the last
  // one is looked up, and the lines after it are expected next.
  addresses_ += units * static_cast<uint32_t>(std::popcount(exec));
  std::array<uint64_t, 64> got;
  size_t n = 0;
  size_t next = got.size(); // the line expected next (got.size(): none)
  bool sorted = true;
  auto put = [&](uint64_t x) {
    if (next < n && got[next] == x) {
      ++next;
      return;
    }
    next = got.size();
    if (n == 0 || x > got[n - 1]) {
      got[n++] = x;
      return;
    }
    if (x == got[n - 1])
      return;
    if (sorted) {
      const auto end = got.begin() + static_cast<std::ptrdiff_t>(n);
      const auto at = std::lower_bound(got.begin(), end, x);
      if (*at == x) { // at < end: x < got[n - 1]
        next = static_cast<size_t>(at - got.begin()) + 1;
        return;
      }
    }
    sorted = false; // merge_runs sorts the list
    got[n++] = x;
  };
  uint32_t m = exec;
  for (; m; m &= m - 1) { // upwards (the usual walk), until a lane's line is below the last
    const uint64_t a = addr[static_cast<size_t>(std::countr_zero(m))];
    const uint64_t lo = a >> line_shift_, hi = (a + span) >> line_shift_;
    if (n != 0 && lo <= got[n - 1]) {
      if (lo != got[n - 1])
        break;
    } else {
      got[n++] = lo;
    }
    if (hi != lo)
      got[n++] = hi;
  }
  for (; m; m &= m - 1) { // from there, line by line
    const uint64_t a = addr[static_cast<size_t>(std::countr_zero(m))];
    const uint64_t lo = a >> line_shift_, hi = (a + span) >> line_shift_;
    put(lo);
    if (hi != lo)
      put(hi);
  }
  sorted_ = sorted;
  lines_.assign(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(n));
}

uint32_t coalesced_lines(std::span<const LaneAccess> accesses, uint32_t line_bytes,
                         std::vector<uint64_t>& lines) {
  LineCoalescer c(line_bytes);
  for (const auto& a : accesses)
    c.add(a.addr, a.bytes);
  const auto& got = c.lines();
  lines.insert(lines.end(), got.begin(), got.end());
  return static_cast<uint32_t>(got.size());
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
  const int phases = 32 / lanes_per_phase;
  const int phase_shift = std::has_single_bit(unsigned(lanes_per_phase))
                              ? std::countr_zero(unsigned(lanes_per_phase))
                              : -1; // no division per lane access (b32 / b64 / b128)
  uint32_t cycles = 0;
  auto phase_of = [&](const LaneAccess& a) {
    const int p = phase_shift >= 0 ? a.lane >> phase_shift : a.lane / lanes_per_phase;
    return static_cast<size_t>(std::clamp(p, 0, 31));
  };
  auto count_phases = [&](const std::array<uint64_t, 32>& used) {
    for (int phase = 0; phase < phases; ++phase)
      cycles += used[static_cast<size_t>(phase)] != 0;
    return std::max(cycles, 1u);
  };
  const bool pow2 = (banks & (banks - 1)) == 0; // no division per dword (32 banks)
  const uint64_t bank_mask = uint64_t(banks) - 1;
  // Fastest path (most accesses): within a phase no two lanes ask the same bank, so each
  // phase with an access takes one cycle. The banks of a whole lane access at once.
  if (banks <= 64 && pow2) {
    const uint64_t all = banks == 64 ? ~uint64_t(0) : (uint64_t(1) << banks) - 1;
    std::array<uint64_t, 32> used{};
    bool overlap = false;
    for (const auto& a : accesses) {
      const uint64_t first = a.addr / 4, last = (a.addr + std::max(a.bytes, 1u) - 1) / 4;
      const uint64_t n = last - first + 1;
      if (n > uint64_t(banks)) { // the lane asks one bank twice
        overlap = true;
        break;
      }
      const uint64_t run = n == uint64_t(banks) ? all : (uint64_t(1) << n) - 1;
      const unsigned b0 = static_cast<unsigned>(first & bank_mask);
      const uint64_t bits = ((run << b0) | (b0 ? run >> (unsigned(banks) - b0) : 0)) & all;
      uint64_t& mask = used[phase_of(a)];
      if (mask & bits) {
        overlap = true;
        break;
      }
      mask |= bits;
    }
    if (!overlap)
      return count_phases(used);
  }
  // Fast path: no bank is asked for a second distinct dword within a phase (lanes reading
  // the same dword share it). A bank mask per phase and the dword each asked bank serves
  // find that without sorting.
  if (banks <= 64) {
    std::array<uint64_t, 32> used{};
    // Read only where `used` has the bank's bit: no clearing per call.
    thread_local std::array<std::array<uint64_t, 64>, 32> served;
    bool clash = false;
    for (const auto& a : accesses) {
      const size_t phase = phase_of(a);
      uint64_t& mask = used[phase];
      for (uint64_t d = a.addr / 4; d <= (a.addr + std::max(a.bytes, 1u) - 1) / 4 && !clash; ++d) {
        const uint64_t bank = pow2 ? d & bank_mask : d % uint64_t(banks);
        const uint64_t bit = uint64_t(1) << bank;
        if (mask & bit) {
          clash = served[phase][bank] != d;
        } else {
          mask |= bit;
          served[phase][bank] = d;
        }
      }
      if (clash)
        break;
    }
    if (!clash)
      return count_phases(used);
  }
  // Bank conflicts: (phase, bank, dword) of every dword in one pass and one sort; a phase
  // takes as many cycles as the most distinct dwords of one of its banks. LDS addresses are
  // far below 2^40.
  thread_local std::vector<uint64_t> dwords; // no malloc per LDS instruction
  dwords.clear();
  for (const auto& a : accesses) {
    const uint64_t phase = phase_of(a);
    for (uint64_t d = a.addr / 4; d <= (a.addr + std::max(a.bytes, 1u) - 1) / 4; ++d) {
      const uint64_t bank = pow2 ? d & bank_mask : d % uint64_t(banks);
      dwords.push_back(phase << 58 | bank << 40 | (d & ((uint64_t(1) << 40) - 1)));
    }
  }
  std::sort(dwords.begin(), dwords.end());
  dwords.erase(std::unique(dwords.begin(), dwords.end()), dwords.end());
  uint32_t worst = 0, run = 0;
  for (size_t i = 0; i < dwords.size(); ++i) {
    const bool same_phase = i > 0 && dwords[i] >> 58 == dwords[i - 1] >> 58;
    if (i > 0 && !same_phase) { // the previous phase is complete
      cycles += worst;
      worst = 0;
    }
    run = same_phase && dwords[i] >> 40 == dwords[i - 1] >> 40 ? run + 1 : 1;
    worst = std::max(worst, run);
  }
  cycles += worst;
  return std::max(cycles, 1u);
}

} // namespace tw::emu::timing
