#pragma once
// Exact fast-forward of a periodic steady state (the WGP simulation's, wgp_sim.cpp). A
// simulation takes a snapshot of its whole state at "period marks" (moments it chooses, e.g.
// a wave's taken branch), written relative to the current cycle and split by how each value
// moves over a period:
//  - `shape` and `detail`: values that must be equal (times relative to the mark's cycle,
//    times that no longer matter clamped to one value, flags, instruction words): `shape` is
//    the cheap part compared first, `detail` (register and counter times) is taken only when
//    the shape matched an earlier mark's;
//  - `positions`: counters that advance by a fixed amount per period (instruction indices,
//    issued counts per counter, barrier generations);
//  - `sums`: accumulated statistics (stall cycles, busy cycles), which grow by a fixed amount
//    per period.
// When the state at a mark equals that of an earlier mark (up to the time shift), the
// simulation is periodic from there as long as every wave's instruction words keep repeating
// (`repeated_periods`): a deterministic simulation run from a shifted copy of a state, over
// the same words, yields the shifted copy of the trajectory. The simulation may then jump k
// periods at once (times + k x cycles, positions and sums + k x their deltas) with an
// identical result.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

namespace tw::emu::timing {

struct StateSnapshot {
  uint64_t now = 0;                // the mark's cycle
  std::vector<int64_t> shape;      // compared first
  std::vector<int64_t> detail;     // filled on demand (PeriodDetector::offer)
  std::vector<uint64_t> positions; // non-decreasing counters
  std::vector<uint64_t> sums;      // non-decreasing accumulators
};

// What one period adds: its cycles and the increments of each position and sum.
struct Period {
  uint64_t cycles = 0;
  std::vector<uint64_t> positions, sums;
};

// Compares each mark's snapshot with those of the last kHistory marks (a period may span
// several marks).
class PeriodDetector {
public:
  static constexpr size_t kHistory = 16;
  static constexpr uint32_t kMaxGap = 8;
  // Whether the simulation should take the current mark: after a mark whose shape matched
  // no earlier one, the next marks are thinned out (every 2nd, 4th, .. kMaxGap-th), every
  // mark again after a match. Any marks may be compared (a period found between any two is
  // exact), so this only bounds the cost where no period appears.
  bool take_mark() {
    if (wait_ == 0)
      return true;
    --wait_;
    return false;
  }
  // `fill_detail(detail)` appends the detail of the current state; it is called (once) only
  // when the shape equals an earlier mark's. Returns the period when the whole state equals
  // an earlier mark's up to the time shift (the latest such mark), else nothing; the snapshot
  // is kept either way.
  std::optional<Period> offer(StateSnapshot s,
                              const std::function<void(std::vector<int64_t>&)>& fill_detail);
  // Forgets every mark (after the state jumped, or when the marks are no longer comparable).
  void clear() {
    history_.clear();
    gap_ = 1;
    wait_ = 0;
  }

private:
  std::deque<StateSnapshot> history_; // oldest first
  uint32_t gap_ = 1, wait_ = 0;
};

// Whole periods of `period` words that repeat from `from` on, at most `limit`: the largest k
// such that words[i] and words[i - period] agree in the bits of `read` (those the
// simulation reads) for every i in [from, from + k * period + extra) within `size` words
// (`extra`: words read past the last period's end, e.g. the next instruction's). Needs
// from >= period > 0.
uint64_t repeated_periods(const uint32_t* words, size_t size, size_t from, size_t period,
                          size_t extra, uint64_t limit, uint32_t read = ~uint32_t(0));

} // namespace tw::emu::timing
