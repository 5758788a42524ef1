// The memory-level estimate of the timing model (runtime/emu/timing/cache_levels.*) on
// hand-built line streams: reuse distances, first touches, and the level chosen from the
// capacities shared by the resident / running workgroups.
#include <doctest/doctest.h>

#include <runtime/emu/timing/cache_levels.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <vector>

using namespace tw::emu::timing;

TEST_CASE("cache levels: the reuse distance counts the line accesses since the last touch") {
  ReuseTracker t;
  const std::vector<uint64_t> a = {1, 2, 3};
  const LineReuse first = t.touch(a);
  CHECK(first.max_distance == 0); // nothing re-touched
  CHECK(first.min_cold_hash == std::min({spread16(0), spread16(1), spread16(2)}));
  const std::vector<uint64_t> b = {4, 1};
  const LineReuse second = t.touch(b);
  CHECK(second.max_distance == 4);            // line 1: touched at access 0, again at access 4
  CHECK(second.min_cold_hash == spread16(3)); // the fourth first touch
  const std::vector<uint64_t> c = {4};
  CHECK(t.touch(c).max_distance == 2);
  CHECK(t.touch(c).min_cold_hash == LineReuse::kNoColdLine);
  CHECK(t.footprint() == std::vector<uint64_t>{1, 2, 3, 4});
}

TEST_CASE("cache levels: the footprint is every distinct line once, sorted") {
  // Lines far apart (several radix passes), re-touched, in a scrambled order, more than the
  // table's first size.
  ReuseTracker t;
  std::set<uint64_t> expected;
  uint64_t x = 12345;
  for (int i = 0; i < 40000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t line = (i % 3 == 0 ? uint64_t(1) << 40 : 0) + (x >> 44) % 30000;
    const std::vector<uint64_t> one = {line};
    t.touch(one);
    expected.insert(line);
  }
  const std::vector<uint64_t> got = t.footprint();
  CHECK(got.size() == expected.size());
  CHECK(std::equal(got.begin(), got.end(), expected.begin(), expected.end()));
  CHECK(ReuseTracker().footprint().empty());
}

TEST_CASE("cache levels: the block table gives each line's reuse as a table of lines would") {
  // Per line its last access index, first touches counted: the reference. Streams: a GEMM
  // tile's rows (8 rows of 64 lines 8 KiB apart, two touches per line per pass), attention's
  // two-line rows, scattered lines, neighbours within one block in both orders, more blocks
  // than the table's first size.
  std::unordered_map<uint64_t, uint32_t> last;
  uint32_t clock = 0;
  uint64_t cold = 0;
  std::set<uint64_t> distinct;
  auto reference = [&](const std::vector<uint64_t>& lines) {
    LineReuse r;
    for (const uint64_t line : lines) {
      const auto it = last.find(line);
      if (it == last.end()) {
        r.min_cold_hash = std::min(r.min_cold_hash, spread16(cold++));
        distinct.insert(line);
      } else {
        r.max_distance = std::max(r.max_distance, std::max(clock - it->second, 1u));
      }
      last[line] = clock++;
    }
    return r;
  };
  ReuseTracker t;
  auto check = [&](const std::vector<uint64_t>& lines) {
    const LineReuse want = reference(lines);
    const LineReuse got = t.touch(lines);
    CHECK(got.max_distance == want.max_distance);
    CHECK(got.min_cold_hash == want.min_cold_hash);
  };
  for (uint64_t step = 0; step < 128; ++step) // a GEMM tile: each line touched twice
    for (uint64_t group = 0; group < 4; ++group) {
      std::vector<uint64_t> lines;
      for (uint64_t row = 0; row < 8; ++row)
        lines.push_back((uint64_t(1) << 24) + (group * 8 + row) * 64 + step / 2);
      check(lines);
    }
  for (uint64_t row = 0; row < 9000; row += 8) { // attention's K rows: 2 lines, 8 KiB apart
    std::vector<uint64_t> lines;
    for (uint64_t r = row; r < row + 8; ++r) {
      lines.push_back((uint64_t(2) << 24) + r * 64 + 1);
      lines.push_back((uint64_t(2) << 24) + r * 64 + 2);
    }
    check(lines);
  }
  uint64_t x = 99;
  for (int i = 0; i < 3000; ++i) { // scattered, some re-touched, blocks in both directions
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t line = (x >> 40) % 50000;
    check({line, line ^ 1, line ^ 3, line});
  }
  CHECK(t.footprint() == std::vector<uint64_t>(distinct.begin(), distinct.end()));
}

TEST_CASE("cache levels: a reused line hits the first level whose share holds its distance") {
  const MachineModel m = machine_by_name("gfx1201"); // 32 KiB L0, 8 MiB L2, 64 MiB MALL
  // One one-wave workgroup on the chip: all of one L0, L2 and MALL.
  const LevelModel one(m, 1, 1, 1, 0.0);
  auto reused = [](uint64_t bytes) {
    LineReuse r;
    r.max_distance = static_cast<uint32_t>(bytes / 128);
    return r;
  };
  CHECK(one.level(reused(32 << 10)) == Level::L0);
  CHECK(one.level(reused((32 << 10) + 128)) == Level::L2);
  CHECK(one.level(reused(8 << 20)) == Level::L2);
  CHECK(one.level(reused((8 << 20) + 128)) == Level::Mall);
  CHECK(one.level(reused((64u << 20) + 128)) == Level::Dram);
  // 4 resident 4-wave workgroups share the WGP's two L0s (16 KiB each); 256 running
  // workgroups share L2 (32 KiB each) and MALL (256 KiB each).
  const LevelModel busy(m, 4, 4, 256, 0.0);
  CHECK(busy.level(reused(16 << 10)) == Level::L0);
  CHECK(busy.level(reused(20 << 10)) == Level::L2);
  CHECK(busy.level(reused(200 << 10)) == Level::Mall);
  CHECK(busy.level(reused(300 << 10)) == Level::Dram);
  CHECK(busy.latency(Level::Dram) == m.dram_latency);
}

TEST_CASE("cache levels: first touches miss to DRAM with the compulsory fraction, else hit L2") {
  const MachineModel m = machine_by_name("gfx1201");
  LineReuse cold;
  cold.min_cold_hash = 0x4000; // a quarter of the hash range
  CHECK(LevelModel(m, 1, 1, 1, 0.5).level(cold) == Level::Dram);
  CHECK(LevelModel(m, 1, 1, 1, 0.2).level(cold) == Level::L2);
  CHECK(LevelModel(m, 1, 1, 1, 1.0).level(cold) == Level::Dram);
  CHECK(LevelModel(m, 1, 1, 1, 0.0).level(cold) == Level::L2);
  // The slowest line decides: a cold L2 line and a line reused past the MALL.
  cold.max_distance = (65u << 20) / 128;
  CHECK(LevelModel(m, 1, 1, 1, 0.0).level(cold) == Level::Dram);
  // Over many lines the DRAM share matches the fraction.
  int dram = 0;
  for (uint64_t k = 0; k < 20000; ++k) {
    LineReuse r;
    r.min_cold_hash = spread16(k);
    dram += LevelModel(m, 1, 1, 1, 0.3).level(r) == Level::Dram;
  }
  CHECK(dram / 20000.0 == doctest::Approx(0.3).epsilon(0.05));
}

TEST_CASE("cache levels: lockstep first touches of the first round wait for DRAM") {
  // Workgroups that start with the launch walk shared lines together: a first touch merges
  // into the fill another one started, whatever the compulsory fraction.
  const MachineModel m = machine_by_name("gfx1201");
  LineReuse cold;
  cold.min_cold_hash = 0x8000;
  const LevelModel shared(m, 1, 1, 64, 0.0); // no compulsory misses: all lines shared
  CHECK(shared.level(cold) == Level::L2);
  CHECK(shared.level(cold, true) == Level::Dram);
  // Re-touched lines keep their level: the workgroup itself brought them in.
  LineReuse reused;
  reused.max_distance = 4;
  CHECK(shared.level(reused, true) == Level::L0);
}

TEST_CASE("cache levels: first touches of lines held from an earlier launch hit the MALL or L2") {
  // Fractions of first touches: 1/4 to DRAM, 1/2 held by the MALL only, 1/4 held by the L2:
  // thresholds 0x4000, 0xc000 and 0x10000 of the 16-bit spread.
  const MachineModel m = machine_by_name("gfx1201");
  const LevelModel held(m, 1, 1, 64, 0.25, 0.5, 0.25);
  const LevelModel mall_only(m, 1, 1, 64, 0.25, 0.5, 0.0);
  LineReuse cold;
  for (const bool first_round : {false, true}) {
    cold.min_cold_hash = 0x3fff;
    CHECK(held.level(cold, first_round) == Level::Dram);
    cold.min_cold_hash = 0x4000;
    CHECK(held.level(cold, first_round) == Level::Mall); // held lines: no fill to merge into
    cold.min_cold_hash = 0xbfff;
    CHECK(held.level(cold, first_round) == Level::Mall);
    cold.min_cold_hash = 0xc000;
    CHECK(held.level(cold, first_round) == Level::L2);
  }
  // Not held: the L2 only for a later workgroup, DRAM for the lockstep first round.
  CHECK(mall_only.level(cold) == Level::L2);
  CHECK(mall_only.level(cold, true) == Level::Dram);
}

TEST_CASE("cache levels: workgroups sharing an allocation count once in the L2 and MALL shares") {
  const uint32_t line = 128;
  // 64 workgroups run at once; 2 were sampled, each touched the same 100 lines of a
  // 100-line allocation (12 800 bytes, K of one head): together they hold 100 lines,
  // one workgroup's worth.
  const std::vector<RegionLines> shared = {{100 * line, 100}};
  CHECK(distinct_streams(64, 2, 200, shared, 0, line) == 1.0);
  // Each touched 100 lines of its own in a 6 400-line allocation (64 x 100): no sharing.
  const std::vector<RegionLines> own = {{6400 * line, 200}};
  CHECK(distinct_streams(64, 2, 200, own, 0, line) == 64.0);
  // Both: 100 private lines each (Q) and the same 100 shared lines (K): the 64 workgroups
  // touch 64 x 100 + 100 distinct lines of 64 x 200 touched, 32.5 workgroups' worth.
  const std::vector<RegionLines> mixed = {{6400 * line, 200}, {100 * line, 100}};
  CHECK(distinct_streams(64, 2, 400, mixed, 0, line) == doctest::Approx(32.5));
  // Lines outside every allocation count as unshared.
  CHECK(distinct_streams(64, 2, 200, {}, 200, line) == 64.0);
  CHECK_THROWS_AS(distinct_streams(0, 2, 200, own, 0, line), std::invalid_argument);
  CHECK_THROWS_AS(distinct_streams(64, 0, 200, own, 0, line), std::invalid_argument);
}

TEST_CASE("cache levels: a line re-read by all workgroups of a head stays in L2") {
  // 1024 workgroups running at once, each re-reading a line after 160 other lines
  // (20 KiB): as 1024 workgroups with disjoint data each has 8 KiB of L2 and 64 KiB of
  // MALL (the line is served by the MALL); when they are 16 heads' worth of shared data,
  // each stream has 512 KiB of L2.
  const MachineModel m = machine_by_name("gfx1201");
  LineReuse r;
  r.max_distance = 160;
  CHECK(LevelModel(m, 32, 1, 1024, 0.0).level(r) == Level::Mall);
  CHECK(LevelModel(m, 32, 1, 16, 0.0).level(r) == Level::L2);
  // Past 8 MiB the chip's whole L2 does not hold it, shared or not.
  r.max_distance = (8u << 20) / 128 + 1;
  CHECK(LevelModel(m, 32, 1, 1, 0.0).level(r) == Level::Mall);
}
