// LDS bank cycles and global coalescing from lane addresses (runtime/emu/timing/memory_cost).
#include <runtime/emu/timing/memory_cost.hpp>

#include <doctest/doctest.h>

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
