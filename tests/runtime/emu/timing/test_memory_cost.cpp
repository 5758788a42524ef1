// LDS bank cycles and global coalescing from lane addresses (runtime/emu/timing/memory_cost).
#include <runtime/emu/timing/memory_cost.hpp>

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <set>
#include <vector>

using namespace tw::emu::timing;

namespace {

std::vector<LaneAccess> lanes(uint64_t base, uint64_t stride_bytes, uint32_t bytes, int n = 32) {
  std::vector<LaneAccess> v;
  for (int l = 0; l < n; ++l)
    v.push_back({l, base + uint64_t(l) * stride_bytes, bytes});
  return v;
}

} // namespace

TEST_CASE("lds_cycles: conflict-free, broadcast and n-way bank conflicts (32 banks)") {
  CHECK(lds_cycles(lanes(0, 4, 4), 32) == 1);        // one dword per bank
  CHECK(lds_cycles(lanes(0, 0, 4), 32) == 1);        // all lanes read one dword: broadcast
  CHECK(lds_cycles(lanes(0, 8, 4), 32) == 2);        // stride 2 words: 2 lanes per bank
  CHECK(lds_cycles(lanes(0, 128, 4), 32) == 32);     // stride 32 words: one bank
  CHECK(lds_cycles(lanes(0, 132, 4), 32) == 1);      // stride 33 words: padded, conflict-free
  CHECK(lds_cycles(lanes(0, 16, 16), 32) == 4);      // b128 contiguous: 4 phases of 8 lanes
  CHECK(lds_cycles(lanes(0, 8, 8), 32) == 2);        // b64 contiguous: 2 phases of 16 lanes
  CHECK(lds_cycles(lanes(0, 256, 16), 32) == 4 * 8); // b128, stride 64 words: 8 lanes x 4 phases
  CHECK(lds_cycles(lanes(0, 4, 4, 8), 32) == 1);     // 8 active lanes
  CHECK(lds_cycles({}, 32) == 1);                    // no lane active: still one pass
}

TEST_CASE("lds_cycles: a lane's dwords wrap around the banks") {
  // b128 at 8 bytes past a 16-byte boundary: a phase's 8 lanes take 32 consecutive dwords
  // starting at bank 2, so the last lane wraps to banks 0 and 1: still conflict-free.
  CHECK(lds_cycles(lanes(8, 16, 16), 32) == 4);
  // b128 at a 5-dword stride: lane 7 of a phase (dwords 35..38) wraps onto banks 3..6,
  // which lanes 0 and 1 (dwords 0..3, 5..8) ask for other dwords: 2 cycles per phase.
  CHECK(lds_cycles(lanes(0, 20, 16), 32) == 4 * 2);
  // The same dwords asked by two lanes of a phase are shared (broadcast within b128).
  CHECK(lds_cycles(lanes(8, 0, 16), 32) == 4);
}

TEST_CASE("coalesced_lines: 128-byte lines touched by a wave") {
  std::vector<uint64_t> scratch;
  CHECK(coalesced_lines(lanes(0x1000, 4, 4), 128, scratch) == 1);    // 32 x 4 B aligned
  CHECK(coalesced_lines(lanes(0x1040, 4, 4), 128, scratch) == 2);    // misaligned by 64 B
  CHECK(coalesced_lines(lanes(0x1000, 16, 16), 128, scratch) == 4);  // 32 x 16 B
  CHECK(coalesced_lines(lanes(0x1000, 128, 4), 128, scratch) == 32); // stride of a line
  CHECK(coalesced_lines(lanes(0x1000, 0, 4), 128, scratch) == 1);    // one address
  CHECK(coalesced_lines(lanes(0x107e, 0, 4, 1), 128, scratch) == 2); // straddles two lines
  CHECK(scratch.size() == 1 + 2 + 4 + 32 + 1 + 2);                   // appended, deduplicated
}

TEST_CASE("LineCoalescer: add_run gives the lines and address count of its add() calls") {
  // Lanes of 16-byte accesses as 4 components of 4 bytes each, ascending, descending and
  // straddling a line; and 2-byte accesses as single units.
  for (const int64_t stride : {16, -16, 40, 128, 0}) {
    for (const uint32_t unit : {4u, 2u}) {
      const uint32_t units = unit == 4 ? 4 : 1;
      LineCoalescer runs(128), singles(128);
      for (int lane = 0; lane < 32; ++lane) {
        const uint64_t addr = uint64_t(0x10000 + 0x70 + stride * lane);
        runs.add_run(addr, unit, units);
        for (uint32_t i = 0; i < units; ++i)
          singles.add(addr + i * unit, unit);
      }
      CAPTURE(stride);
      CAPTURE(unit);
      CHECK(runs.addresses() == 32 * units);
      CHECK(runs.addresses() == singles.addresses());
      CHECK(runs.lines() == singles.lines());
    }
  }
  // A 16-byte run at 0x7c covers bytes 0x7c..0x8b: lines 0 and 1.
  LineCoalescer one(128);
  one.add_run(0x7c, 4, 4);
  CHECK(one.lines() == std::vector<uint64_t>{0, 1});
  CHECK(one.addresses() == 4);
}

namespace {

// The distinct lines of `line`-byte lines that `unit` x `units` bytes at each address of the
// lanes of exec touch, computed byte range by byte range (the reference of add_lanes).
std::vector<uint64_t> reference_lines(const std::array<uint64_t, 32>& addr, uint32_t exec,
                                      uint32_t unit, uint32_t units, uint64_t line) {
  std::set<uint64_t> s;
  for (int lane = 0; lane < 32; ++lane)
    if ((exec >> lane) & 1u)
      for (uint64_t b = addr[size_t(lane)]; b < addr[size_t(lane)] + uint64_t(unit) * units; ++b)
        s.insert(b / line);
  return {s.begin(), s.end()};
}

} // namespace

TEST_CASE("LineCoalescer: add_lanes gives the lines and address count of add_run per lane") {
  // Lane address patterns: upwards, downwards, a transposed load's halves (rows 0-7 read
  // twice, then rows 8-15 twice; and all 16 rows twice), straddling lines, scattered
  // (pseudo-random), all lanes at one address.
  std::vector<std::array<uint64_t, 32>> patterns;
  auto make = [&](auto f) {
    std::array<uint64_t, 32> a{};
    for (int lane = 0; lane < 32; ++lane)
      a[size_t(lane)] = 0x100000 + f(uint64_t(lane));
    patterns.push_back(a);
  };
  make([](uint64_t l) { return l * 16; });
  make([](uint64_t l) { return (31 - l) * 16; });
  make([](uint64_t l) { return (l / 16 * 8 + l % 8) * 8192 + (l / 8 % 2) * 16; });
  make([](uint64_t l) { return (l % 16) * 8192 + l / 16 * 16; });
  make([](uint64_t l) { return l * 40 + 0x70; });
  make([](uint64_t l) { return ((l * 2654435761u) >> 7) % 4096 * 8; });
  make([](uint64_t) { return uint64_t(0x7c); });
  for (size_t p = 0; p < patterns.size(); ++p)
    for (const uint32_t exec : {~0u, 0x0000ffffu, 0xf0f0f0f1u, 0u})
      for (const auto& [unit, units] : {std::pair{4u, 4u}, std::pair{4u, 1u}, std::pair{2u, 1u},
                                        std::pair{4u, 64u}}) { // 256 bytes: the lane-by-lane way
        CAPTURE(p);
        CAPTURE(exec);
        CAPTURE(units);
        const auto& a = patterns[p];
        LineCoalescer lanes(128), runs(128);
        lanes.add_lanes(a, exec, unit, units);
        for (uint32_t m = exec; m; m &= m - 1)
          runs.add_run(a[size_t(std::countr_zero(m))], unit, units);
        CHECK(lanes.addresses() == runs.addresses());
        CHECK(lanes.addresses() == units * uint32_t(std::popcount(exec)));
        const std::vector<uint64_t> want = reference_lines(a, exec, unit, units, 128);
        CHECK(lanes.lines() == want);
        CHECK(runs.lines() == want);
        // A second call of the same instruction: the lines of both.
        lanes.add_lanes(patterns[0], ~0u, 4, 4);
        std::set<uint64_t> both(want.begin(), want.end());
        for (const uint64_t l : reference_lines(patterns[0], ~0u, 4, 4, 128))
          both.insert(l);
        CHECK(lanes.lines() == std::vector<uint64_t>(both.begin(), both.end()));
      }
  // A line size that is not a power of two: the lane-by-lane way, the same lines.
  LineCoalescer odd(96);
  odd.add_lanes(patterns[2], ~0u, 4, 4);
  CHECK(odd.lines() == reference_lines(patterns[2], ~0u, 4, 4, 96));
}

TEST_CASE("LineCoalescer: lines out of order are sorted and distinct, in few runs or many") {
  // Runs of ascending lines that overlap (merged) and more runs than the merge takes (sorted).
  for (const int runs : {2, 3, 5, 8, 9, 20}) {
    CAPTURE(runs);
    LineCoalescer c(128);
    std::set<uint64_t> want;
    for (int r = 0; r < runs; ++r)
      for (uint64_t i = 0; i < 6; ++i) {
        const uint64_t line = uint64_t(runs - r) * 3 + i * 2; // runs descend, overlap
        c.add(line * 128 + 4, 4);
        want.insert(line);
      }
    CHECK(c.lines() == std::vector<uint64_t>(want.begin(), want.end()));
    CHECK(c.addresses() == uint32_t(runs * 6));
  }
}
