#include <runtime/emu/timing/cache_residency.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace tw::emu::timing {

CacheResidency::CacheResidency(double l2_bytes, double capacity)
    : l2_(l2_bytes), capacity_(capacity) {
  if (!(l2_bytes >= 0) || !(capacity >= l2_bytes))
    throw std::invalid_argument(
        fmt::format("CacheResidency: the L2 share ({} bytes) must be >= 0 and at most the "
                    "capacity ({} bytes)",
                    l2_bytes, capacity));
}

CacheResidency::CacheResidency(const MachineModel& m)
    : CacheResidency(double(m.l2_bytes), double(std::max(m.l2_bytes, m.mall_bytes))) {}

HeldBytes CacheResidency::held(uint64_t base) const {
  HeldBytes h;
  double position = 0; // bytes of more recent launches
  for (size_t i = 0; i < entries_.size();) {
    size_t end = i;
    double group = 0;
    for (; end < entries_.size() && entries_[end].launch == entries_[i].launch; ++end)
      group += entries_[end].bytes;
    // The launch's allocations were touched together: each has the same share of the
    // group's bytes that still fit the L2.
    const double in_l2 = std::clamp(l2_ - position, 0.0, group);
    for (size_t j = i; j < end; ++j)
      if (entries_[j].base == base && !entries_[j].dead) {
        const double l2 = entries_[j].bytes * in_l2 / group;
        h.l2 += l2;
        h.mall += entries_[j].bytes - l2;
      }
    position += group;
    i = end;
  }
  return h;
}

void CacheResidency::record(std::span<const AllocationBytes> launch) {
  std::vector<Entry> fresh;
  double touched = 0;
  ++launches_;
  for (const AllocationBytes& a : launch) {
    if (!(a.bytes > 0))
      continue;
    const auto same =
        std::find_if(fresh.begin(), fresh.end(), [&](const Entry& e) { return e.base == a.base; });
    if (same != fresh.end())
      same->bytes += a.bytes;
    else
      fresh.push_back({a.base, a.bytes, launches_});
    touched += a.bytes;
  }
  if (fresh.empty())
    return;
  // The bytes held before are the ones touched again (most recent first).
  for (const Entry& f : fresh) {
    double again = f.bytes;
    for (Entry& e : entries_)
      if (e.base == f.base && !e.dead && again > 0) {
        const double take = std::min(again, e.bytes);
        e.bytes -= take;
        again -= take;
      }
  }
  std::erase_if(entries_, [](const Entry& e) { return !(e.bytes > 0); });
  // More than the capacity in one launch: each allocation keeps its share.
  if (touched > capacity_)
    for (Entry& f : fresh)
      f.bytes = f.bytes * capacity_ / touched;
  entries_.insert(entries_.begin(), fresh.begin(), fresh.end());
  trim();
}

void CacheResidency::trim() {
  // Many small launches (a test loop) leave many small entries: past kMaxEntries the oldest
  // go, held or not (bounds the cost of held() and record()).
  if (entries_.size() > kMaxEntries) {
    size_t keep = kMaxEntries;
    while (keep > 0 && keep < entries_.size() && entries_[keep].launch == entries_[keep - 1].launch)
      --keep; // whole launches only
    entries_.resize(keep > 0 ? keep : kMaxEntries);
  }
  double position = 0;
  for (size_t i = 0; i < entries_.size();) {
    size_t end = i;
    double group = 0;
    for (; end < entries_.size() && entries_[end].launch == entries_[i].launch; ++end)
      group += entries_[end].bytes;
    if (position + group > capacity_) {
      // The oldest launch that still fits in part keeps the same share of each allocation.
      const double room = std::max(0.0, capacity_ - position);
      for (size_t j = i; j < end; ++j)
        entries_[j].bytes = entries_[j].bytes * room / group;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(end), entries_.end());
      std::erase_if(entries_, [](const Entry& e) { return !(e.bytes > 0); });
      return;
    }
    position += group;
    i = end;
  }
}

void CacheResidency::forget(uint64_t base) {
  // The lines stay where they are until newer ones push them out; nothing reads them again.
  for (Entry& e : entries_)
    e.dead = e.dead || e.base == base;
}

double CacheResidency::total() const {
  double t = 0;
  for (const Entry& e : entries_)
    t += e.dead ? 0.0 : e.bytes;
  return t;
}

} // namespace tw::emu::timing
