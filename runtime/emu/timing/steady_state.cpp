#include <runtime/emu/timing/steady_state.hpp>

#include <algorithm>
#include <stdexcept>

namespace tw::emu::timing {

std::optional<Period>
PeriodDetector::offer(StateSnapshot s,
                      const std::function<void(std::vector<int64_t>&)>& fill_detail) {
  std::optional<Period> found;
  bool detailed = false;
  for (size_t back = history_.size(); back-- > 0 && !found;) { // the latest mark first
    StateSnapshot& h = history_[back];
    if (h.now >= s.now || h.shape != s.shape || h.positions.size() != s.positions.size() ||
        h.sums.size() != s.sums.size())
      continue;
    if (!detailed) {
      fill_detail(s.detail);
      detailed = true;
    }
    // The earlier mark's detail is there only when its shape matched a mark before it: a
    // period is confirmed over two marks with matching shapes.
    if (h.detail.empty() || h.detail != s.detail)
      continue;
    Period p;
    p.cycles = s.now - h.now;
    p.positions.resize(s.positions.size());
    p.sums.resize(s.sums.size());
    bool forward = true;
    for (size_t i = 0; i < s.positions.size(); ++i) {
      forward = forward && s.positions[i] >= h.positions[i];
      p.positions[i] = s.positions[i] - h.positions[i];
    }
    for (size_t i = 0; i < s.sums.size(); ++i) {
      forward = forward && s.sums[i] >= h.sums[i];
      p.sums[i] = s.sums[i] - h.sums[i];
    }
    if (forward)
      found = std::move(p);
  }
  gap_ = detailed ? 1 : std::min(2 * gap_, kMaxGap); // detailed: a shape matched
  wait_ = gap_ - 1;
  history_.push_back(std::move(s));
  if (history_.size() > kHistory)
    history_.pop_front();
  return found;
}

uint64_t repeated_periods(const uint32_t* words, size_t size, size_t from, size_t period,
                          size_t extra, uint64_t limit, uint32_t read) {
  if (period == 0 || from < period)
    throw std::invalid_argument("repeated_periods: needs from >= period > 0");
  if (from + extra > size)
    return 0;
  // The words that k = limit periods would read, within the array.
  const uint64_t room = (size - from - extra) / period;
  const uint64_t k_max = limit < room ? limit : room;
  const size_t end = from + static_cast<size_t>(k_max) * period + extra;
  size_t i = from;
  while (i < end && ((words[i] ^ words[i - period]) & read) == 0)
    ++i;
  const size_t same = i - from;
  return same < extra ? 0 : static_cast<uint64_t>((same - extra) / period);
}

} // namespace tw::emu::timing
