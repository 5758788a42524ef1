// The memory-level estimate of the timing model (runtime/emu/timing/cache_levels.*) on
// hand-built line streams: reuse distances, first touches, and the level chosen from the
// capacities shared by the resident / running workgroups.
#include <doctest/doctest.h>

#include <runtime/emu/timing/cache_levels.hpp>

#include <algorithm>
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
