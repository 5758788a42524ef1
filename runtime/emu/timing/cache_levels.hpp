#pragma once
// Which level of the memory hierarchy (L0 vector cache, L2, Infinity Cache, DRAM) serves a
// vector load, estimated from the real addresses of the sampled workgroups:
//  - while recording, each line a workgroup touches again gets its reuse distance (the
//    line accesses of that workgroup since it last touched the line, in lines: a cache holds
//    touched lines, not the bytes between them), and a line it touches for the first time a
//    16-bit value spread over its first touches (spread16);
//  - when modeling, a reused line hits the first level whose share of capacity holds the
//    reuse distance (L0: per resident workgroup of the WGP's L0s in use; L2 and MALL: per
//    stream of distinct data among the workgroups running at once on the chip, see
//    distinct_streams: lines they share are held once), and a first touch misses to DRAM with the
//    grid's compulsory-miss fraction (DRAM footprint / L2 traffic), else hits L2 (another
//    workgroup running at the same time brought the line in). A load waits for its slowest
//    line.
//  - lockstep first touches: the workgroups of the launch's first round start at the same
//    cycle and walk the data they share at the same pace, so none of them finds a shared
//    line already in L2: each first touch merges into the fill another one started and
//    waits for DRAM. Only workgroups started later (when an earlier one ended) find shared
//    lines in L2 as above.
//  - lines held from an earlier launch (CacheResidency): the share of first touches whose
//    lines the MALL still holds hit the MALL, those the L2 holds the L2, also in the first
//    round (no fill to merge into: the line is there). (Estimate: the order in which other
//    workgroups touch a line is not recorded; docs/timing.md, "lockstep first touches".)
#include <runtime/emu/timing/large_buffer.hpp>
#include <runtime/emu/timing/machine.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tw::emu::timing {

enum class Level : uint8_t { L0, L2, Mall, Dram, Count };
inline constexpr size_t kLevels = static_cast<size_t>(Level::Count);
const char* level_name(Level l);

// What one memory instruction's lines say about reuse (recorded per instruction).
struct LineReuse {
  static constexpr uint32_t kNoColdLine = 0x10000;
  uint32_t max_distance = 0;            // largest reuse distance among re-touched lines (0: none)
  uint32_t min_cold_hash = kNoColdLine; // smallest spread16 value of first-touched lines
};

// Per workgroup, while recording: the line access index at which each line was last touched.
class ReuseTracker {
public:
  LineReuse touch(std::span<const uint64_t> lines);
  // The distinct lines touched so far, sorted (a radix sort of the touched blocks, each
  // expanded into its lines: no scan of the table; a GEMM workgroup's ~17 000 lines took a
  // comparison sort and a scan of 65 536 slots before the ninth session, a radix sort of
  // the lines before the fourteenth).
  std::vector<uint64_t> footprint() const;

  // Lines per slot of the table: a block of neighbouring lines.
  static constexpr int kBlockLines = 4;

private:
  // Open addressing over blocks of kBlockLines neighbouring lines (block + 1 as the key, 0
  // empty): a lookup per recorded line whose block differs from the previous line's. The
  // lines a loop touches again are neighbours of the ones it touched (the next K step of a
  // row), so a block's slot is still in the CPU cache; before the fourteenth session one slot
  // per line, hashed apart, missed the CPU cache on nearly every lookup of a GEMM workgroup's
  // 1 MiB table.
  struct Slot {
    uint64_t key = 0;
    std::array<uint32_t, kBlockLines> at{}; // access index of the line's last touch
    uint8_t touched = 0;                    // bit i: line i of the block was touched
  };
  static_assert(kBlockLines <= 8 && (kBlockLines & (kBlockLines - 1)) == 0,
                "ReuseTracker: a block's lines are a power of two that fits the touched mask");
  static_assert(sizeof(Slot) == 32, "ReuseTracker: two slots per CPU cache line");
  size_t home(uint64_t block) const { // the slot a block's probe starts at
    return static_cast<size_t>((block * 0x9e3779b97f4a7c15ull) >> 20) & (slots_.size() - 1);
  }
  Slot& find(uint64_t block);
  void grow();
  // A GEMM tile: ~16k lines in ~4k blocks; attention's K / V rows (2 lines each, 8 KiB
  // apart): ~8k blocks. 16 384 slots to start (512 KiB): neither grows. 32-byte slots, two per CPU
  // cache line (8 lines a block took 48 bytes and, for attention's rows, a table twice the size).
  // From the large-buffer pool: a workgroup's table is not faulted in again for the next one.
  using Slots = std::vector<Slot, LargeBufferAllocator<Slot>>;
  Slots slots_ = Slots(size_t(1) << 14);
  size_t used_ = 0;
  std::vector<uint64_t> blocks_; // the blocks with a touched line, in first-touch order
  uint32_t clock_ = 0;
  uint64_t cold_ = 0; // first touches so far
};

// The k-th first touch of a workgroup as 16 bits of a Weyl sequence (k x golden ratio):
// spreads the compulsory misses evenly over the first touches, the same in every run (a
// hash of the address would change with where the allocations land).
inline uint32_t spread16(uint64_t k) {
  return static_cast<uint32_t>(((k + 1) * 0x9e3779b97f4a7c15ull) >> 48);
}

// One allocation as the sampled workgroups touched it: its size and the distinct lines of it
// in their footprints together.
struct RegionLines {
  uint64_t bytes = 0;
  uint64_t sampled_lines = 0;
};

// The L2 and the Infinity Cache are one cache each for the whole chip: a line one WGP's
// workgroup brought in serves every other WGP, so lines that workgroups running at once
// share take their capacity once, not once per workgroup. This is how many workgroups with
// disjoint data the `concurrent` workgroups running at once amount to (1 .. concurrent):
// concurrent x (the distinct bytes they touch) / (the bytes they touch, each workgroup's
// distinct lines counted per workgroup), both scaled from the `sampled` workgroups: their
// `traffic_lines` (the sum of each one's distinct lines), and per allocation its distinct
// sampled lines x concurrent / sampled, capped by its size (the workgroups running at once
// cannot touch more distinct lines of an allocation than it holds); lines outside every
// allocation (`other_lines`) count as unshared. Throws std::invalid_argument for
// concurrent or sampled 0.
double distinct_streams(uint64_t concurrent, uint64_t sampled, uint64_t traffic_lines,
                        std::span<const RegionLines> regions, uint64_t other_lines,
                        uint32_t line_bytes);

class LevelModel {
public:
  // resident_per_wgp: workgroups resident on one WGP (of `waves` waves each; one wave uses
  // one CU's L0, more use both); streams: workgroups with disjoint data running at once on
  // the chip, among which L2 and MALL are shared (distinct_streams; >= 1);
  // cold_dram: fraction of first touches that miss to DRAM (0..1); cold_mall / cold_l2_held:
  // fractions of first touches that find their line held from an earlier launch by the MALL
  // only / by the L2 (CacheResidency; 0 when nothing is held: first touches then behave as
  // without them, bit for bit).
  LevelModel(const MachineModel& m, int resident_per_wgp, int waves, double streams,
             double cold_dram, double cold_mall = 0, double cold_l2_held = 0);
  // in_first_round: the load's workgroup started with the launch (lockstep first touches).
  Level level(const LineReuse& r, bool in_first_round = false) const;
  int latency(Level l) const { return latency_[static_cast<size_t>(l)]; }

private:
  std::array<double, 3> share_{}; // bytes of L0 / L2 / MALL per workgroup
  std::array<int, kLevels> latency_{};
  uint32_t cold_threshold_ = 0; // first touches with a hash below it go to DRAM
  uint32_t mall_threshold_ = 0; // ... below this (and above the DRAM one) to the MALL
  uint32_t held_threshold_ = 0; // ... below this: held by the L2 from an earlier launch
  uint32_t line_ = 128;
};

} // namespace tw::emu::timing
