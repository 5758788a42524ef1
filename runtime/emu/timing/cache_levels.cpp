#include <runtime/emu/timing/cache_levels.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace tw::emu::timing {

const char* level_name(Level l) {
  static constexpr const char* names[] = {"L0", "L2", "MALL", "DRAM"};
  return l < Level::Count ? names[static_cast<size_t>(l)] : "?";
}

ReuseTracker::Slot& ReuseTracker::find(uint64_t block) {
  const size_t mask = slots_.size() - 1;
  for (size_t i = home(block);; i = (i + 1) & mask)
    if (slots_[i].key == block + 1 || slots_[i].key == 0)
      return slots_[i];
}

void ReuseTracker::grow() {
  Slots old(slots_.size() * 2);
  old.swap(slots_);
  for (const Slot& s : old)
    if (s.key)
      find(s.key - 1) = s;
}

LineReuse ReuseTracker::touch(std::span<const uint64_t> lines) {
  constexpr uint64_t kShift = std::countr_zero(unsigned(kBlockLines));
  LineReuse r;
  // The blocks of one instruction's lines are often far apart (a tile's rows, attention's
  // K / V rows touched for the first time) and their slots not in the CPU cache: ask for
  // them all first, so that the misses overlap (the first slot each probe reads, kept).
  constexpr size_t kAhead = 64;
  std::array<size_t, kAhead> start;
  const size_t ahead = std::min(lines.size(), kAhead);
  for (size_t k = 0; k < ahead; ++k) {
    start[k] = home(lines[k] >> kShift);
    __builtin_prefetch(&slots_[start[k]]);
  }
  bool grown = false; // the table grew: the kept starts are stale
  Slot* s = nullptr;  // the slot of the previous line's block (lines mostly come in order)
  uint64_t block = 0;
  for (size_t k = 0; k < lines.size(); ++k) {
    const uint64_t line = lines[k];
    if (!s || line >> kShift != block) {
      block = line >> kShift;
      const size_t mask = slots_.size() - 1;
      size_t at = k < ahead && !grown ? start[k] : home(block);
      while (slots_[at].key != block + 1 && slots_[at].key != 0)
        at = (at + 1) & mask;
      s = &slots_[at];
      if (s->key == 0) {
        s->key = block + 1;
        blocks_.push_back(block);
        if (++used_ * 2 > slots_.size()) {
          grow();
          grown = true;
          s = &find(block);
        }
      }
    }
    const unsigned i = static_cast<unsigned>(line & (kBlockLines - 1));
    if (!((s->touched >> i) & 1u)) {
      s->touched = static_cast<uint8_t>(s->touched | (1u << i));
      s->at[i] = clock_;
      r.min_cold_hash = std::min(r.min_cold_hash, spread16(cold_++));
    } else {
      r.max_distance = std::max(r.max_distance, std::max(clock_ - s->at[i], 1u));
      s->at[i] = clock_;
    }
    ++clock_;
  }
  return r;
}

namespace {
// Sorts distinct values: least significant digit first, 11 bits a pass, over the bits in
// which they differ from the smallest (a workgroup's lines span a few hundred MB: 2-3 passes).
void radix_sort(std::vector<uint64_t>& v) {
  if (v.size() < 2)
    return;
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  const uint64_t lo = *lo_it;
  const int bits = std::bit_width(*hi_it - lo);
  constexpr int kDigit = 11;
  constexpr size_t kBuckets = size_t(1) << kDigit;
  std::vector<uint64_t> tmp(v.size());
  for (int shift = 0; shift < bits; shift += kDigit) {
    std::array<size_t, kBuckets> count{};
    for (const uint64_t x : v)
      ++count[((x - lo) >> shift) & (kBuckets - 1)];
    size_t at = 0;
    for (size_t& c : count) {
      const size_t n = c;
      c = at;
      at += n;
    }
    for (const uint64_t x : v)
      tmp[count[((x - lo) >> shift) & (kBuckets - 1)]++] = x;
    v.swap(tmp);
  }
}
} // namespace

std::vector<uint64_t> ReuseTracker::footprint() const {
  // The blocks sorted, then each block's touched lines in order: the lines sorted, with a
  // sort of a block per kBlockLines lines.
  std::vector<uint64_t> blocks = blocks_;
  radix_sort(blocks);
  std::vector<uint64_t> out;
  out.reserve(blocks.size() * kBlockLines);
  const size_t mask = slots_.size() - 1;
  constexpr size_t kAhead = 8; // the slots of the blocks ahead asked for (their misses overlap)
  for (size_t k = 0; k < std::min(blocks.size(), kAhead); ++k)
    __builtin_prefetch(&slots_[home(blocks[k])]);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const uint64_t b = blocks[k];
    if (k + kAhead < blocks.size())
      __builtin_prefetch(&slots_[home(blocks[k + kAhead])]);
    size_t i = home(b);
    while (slots_[i].key != b + 1)
      i = (i + 1) & mask;
    for (unsigned t = slots_[i].touched; t; t &= t - 1)
      out.push_back(b * kBlockLines + static_cast<unsigned>(std::countr_zero(t)));
  }
  return out;
}

double distinct_streams(uint64_t concurrent, uint64_t sampled, uint64_t traffic_lines,
                        std::span<const RegionLines> regions, uint64_t other_lines,
                        uint32_t line_bytes) {
  if (concurrent == 0 || sampled == 0)
    throw std::invalid_argument(fmt::format(
        "distinct_streams: concurrent ({}) and sampled ({}) must be >= 1", concurrent, sampled));
  if (traffic_lines == 0)
    return double(concurrent);
  const double scale = double(concurrent) / double(sampled);
  double distinct = double(other_lines) * line_bytes * scale;
  for (const RegionLines& r : regions)
    distinct += std::min(double(r.bytes), double(r.sampled_lines) * line_bytes * scale);
  const double traffic = double(traffic_lines) * line_bytes * scale;
  return std::clamp(double(concurrent) * distinct / traffic, 1.0, double(concurrent));
}

LevelModel::LevelModel(const MachineModel& m, int resident_per_wgp, int waves, double streams,
                       double cold_dram, double cold_mall, double cold_l2_held)
    : line_(static_cast<uint32_t>(m.cache_line)) {
  const int resident = std::max(resident_per_wgp, 1);
  const double l0s = std::min(m.cus / m.wgps(), resident * std::max(waves, 1)); // L0s in use
  const double running = std::max(streams, 1.0);
  share_ = {l0s * double(m.l0_bytes) / resident, double(m.l2_bytes) / running,
            double(m.mall_bytes) / running};
  latency_ = {m.l0_latency, m.l2_latency, m.mall_latency, m.dram_latency};
  auto threshold = [](double fraction) {
    return static_cast<uint32_t>(
        std::lround(std::clamp(fraction, 0.0, 1.0) * LineReuse::kNoColdLine));
  };
  cold_threshold_ = threshold(cold_dram);
  // Sums of non-negative fractions: with none held, all three thresholds are equal.
  mall_threshold_ = std::max(cold_threshold_, threshold(cold_dram + std::max(cold_mall, 0.0)));
  held_threshold_ = std::max(mall_threshold_, threshold(cold_dram + std::max(cold_mall, 0.0) +
                                                        std::max(cold_l2_held, 0.0)));
}

Level LevelModel::level(const LineReuse& r, bool in_first_round) const {
  Level l = Level::L0;
  if (r.max_distance > 0) {
    const double bytes = double(r.max_distance) * line_;
    l = bytes <= share_[0]   ? Level::L0
        : bytes <= share_[1] ? Level::L2
        : bytes <= share_[2] ? Level::Mall
                             : Level::Dram;
  }
  if (r.min_cold_hash != LineReuse::kNoColdLine) {
    const uint32_t h = r.min_cold_hash;
    const Level first = h < cold_threshold_                      ? Level::Dram
                        : h < mall_threshold_                    ? Level::Mall
                        : in_first_round && h >= held_threshold_ ? Level::Dram
                                                                 : Level::L2;
    l = std::max(l, first);
  }
  return l;
}

} // namespace tw::emu::timing
