#pragma once
// What the chip-wide caches still hold when a launch starts: a record, kept per device
// (EmuDevice) across launches, of how many bytes of each allocation the last launches
// touched, most recent first, bounded by the capacity that keeps lines across launches (the
// Infinity Cache / MALL; the L2 is assumed to hold a subset of it). Nothing flushes the L2 or
// the MALL between the kernels of one queue, so a launch reading what an earlier one read or
// wrote finds it there: model_launch charges DRAM only for the bytes of an allocation that are
// not held. The most recent `l2_bytes` of the record are held by the L2, the rest by the MALL.
//
// Estimates (docs/timing.md, "Residency across launches"): the record counts bytes per
// allocation, not lines: a launch touching part of an allocation is assumed to touch the held
// part; reads and writes are not told apart (a written line is held like a read one, and a
// launch that writes lines an earlier launch only read is charged no DRAM bytes for them,
// though the dirty lines reach DRAM later); the allocations one launch touches are touched
// together, so when they exceed the capacity each keeps the same share of it; replacement is
// by recency of launches (LRU over allocations), without associativity; a launch's own new
// lines do not evict held ones before it reads them.
#include <runtime/emu/timing/machine.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tw::emu::timing {

// Bytes of one allocation (by its base address) a launch touched.
struct AllocationBytes {
  uint64_t base = 0;
  double bytes = 0;
};

// Bytes of one allocation held in the caches: in the L2, and in the MALL only.
struct HeldBytes {
  double l2 = 0, mall = 0;
  double total() const { return l2 + mall; }
};

class CacheResidency {
public:
  // l2_bytes: the L2's share of the record (its most recent bytes); capacity: the bytes held
  // across launches (the larger of the L2 and the MALL). Throws std::invalid_argument for a
  // negative size or an L2 larger than the capacity.
  CacheResidency(double l2_bytes, double capacity);
  // The machine's L2 and max(L2, MALL).
  explicit CacheResidency(const MachineModel& m);

  // Bytes of the allocation at `base` held now.
  HeldBytes held(uint64_t base) const;
  // A launch touched these allocations (one entry per allocation; bytes <= 0 are ignored):
  // they become the most recent; an allocation's bytes held before count as the ones it
  // touched again; the oldest bytes beyond the capacity are dropped.
  void record(std::span<const AllocationBytes> launch);
  // The allocation at `base` was freed or rewritten by the host: nothing of it is held (its
  // bytes keep their place in the record, as dead lines keep theirs in a cache, until newer
  // launches push them out; a new allocation at the same base starts with nothing held).
  void forget(uint64_t base);
  void clear() { entries_.clear(); }
  double total() const; // bytes held (not forgotten), <= capacity()
  double l2_bytes() const { return l2_; }
  double capacity() const { return capacity_; }

private:
  struct Entry {
    uint64_t base = 0;
    double bytes = 0;
    uint64_t launch = 0; // entries of one launch share their recency
    bool dead = false;   // forgotten: still takes its place, held() does not count it
  };
  static constexpr size_t kMaxEntries = 4096;
  void trim();
  std::vector<Entry> entries_; // most recent launch first
  double l2_ = 0, capacity_ = 0;
  uint64_t launches_ = 0;
};

} // namespace tw::emu::timing
