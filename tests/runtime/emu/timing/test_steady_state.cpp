// The exact fast-forward of a periodic steady state (runtime/emu/timing/steady_state.*): its
// parts on hand-made data, and the WGP simulation of small loop kernels
// (tests/runtime/emu/kernels/timing.hip) with it on and off: identical results, and periods
// actually jumped over.
#include "../emu_test_util.hpp"
#include "workgroup0_trace.hpp"

#include <runtime/emu/timing/capture.hpp>
#include <runtime/emu/timing/launch_model.hpp>
#include <runtime/emu/timing/steady_state.hpp>
#include <runtime/emu/timing/wgp_sim.hpp>

#include <cstring>
#include <functional>
#include <stdexcept>

using namespace tw;
using namespace tw::emu::timing;

namespace {

const std::string kPath = std::string(TW_TEST_KERNEL_DIR) + "/timing.gfx1201.O3.hsaco";

StateSnapshot snapshot(uint64_t now, std::vector<int64_t> shape, uint64_t position, uint64_t sum) {
  StateSnapshot s;
  s.now = now;
  s.shape = std::move(shape);
  s.positions = {position};
  s.sums = {sum};
  return s;
}

// One launch of `kernel` (one workgroup) modeled with the fast-forward on or off.
TimingReport model(const std::string& kernel, uint32_t threads, bool fast_forward,
                   const std::function<runtime::KernelArgs(test::EmuRun&)>& args,
                   uint32_t dynamic_lds) {
  test::EmuRun run(kPath);
  TimingOptions o;
  o.fast_forward = fast_forward;
  run.dev.set_timing_model(o);
  run.launch(kernel, {1, 1, 1}, {threads, 1, 1}, args(run), dynamic_lds);
  REQUIRE(run.dev.last_timing().has_value());
  return *run.dev.last_timing();
}

// The kernel modeled both ways: every modeled figure identical, and the fast-forward jumped
// over periods (only when on).
void check_identical_and_skipped(const std::string& kernel, uint32_t threads,
                                 const std::function<runtime::KernelArgs(test::EmuRun&)>& args,
                                 uint32_t dynamic_lds = 0) {
  const TimingReport on = model(kernel, threads, true, args, dynamic_lds);
  const TimingReport off = model(kernel, threads, false, args, dynamic_lds);
  CHECK(on.exact() == off.exact());
  CHECK(on.wgp_cycles == off.wgp_cycles);
  CHECK(on.simulated_instructions == off.simulated_instructions);
  CHECK(on.skipped_periods > 0);
  CHECK(on.skipped_instructions > 0);
  CHECK(on.skipped_instructions < on.simulated_instructions);
  CHECK(off.skipped_periods == 0);
  CHECK(off.skipped_instructions == 0);
}

runtime::KernelArgs rounds_args(test::EmuRun& r, int rounds) {
  runtime::KernelArgs a;
  a.ptr(r.upload(std::vector<float>(64, 1.0f)));
  a.add<int32_t>(rounds);
  return a;
}

// Workgroup 0's trace of `kernel` (`threads` threads); `args` allocates its buffers and
// returns its kernel arguments. `co` keeps the decoded instructions the trace points to.
WorkgroupTrace trace_of(const std::string& kernel, uint32_t threads,
                        const std::function<std::vector<uint8_t>(emu::GlobalMemory&)>& args,
                        std::shared_ptr<emu::CodeObject>& co) {
  co = emu::CodeObject::load(test::read_file_bytes(kPath));
  emu::GlobalMemory memory;
  emu::LaunchConfig cfg;
  cfg.block = {threads, 1, 1};
  cfg.kernargs = args(memory);
  return test::workgroup0_trace(*co, kernel, memory, cfg);
}

// Kernel arguments: the pointers, then one 4-byte int.
std::vector<uint8_t> pointers_and_int(std::vector<uint64_t> pointers, int32_t value) {
  std::vector<uint8_t> bytes(pointers.size() * 8 + 4);
  std::memcpy(bytes.data(), pointers.data(), pointers.size() * 8);
  std::memcpy(bytes.data() + pointers.size() * 8, &value, 4);
  return bytes;
}

// pointer_chase's `next` words: each lane follows a chain of `lap` lines of its own.
std::vector<uint32_t> chase_chains(uint32_t lap) {
  std::vector<uint32_t> next(size_t(lap) * 32 * 32, 0);
  for (uint32_t k = 0; k < lap; ++k)
    for (uint32_t lane = 0; lane < 32; ++lane)
      next[(size_t(k) * 32 + lane) * 32] = ((k + 1) % lap * 32 + lane) * 32;
  return next;
}

void check_same(const WgpSimResult& a, const WgpSimResult& b) {
  CHECK(a.cycles == b.cycles);
  CHECK(a.finish == b.finish);
  CHECK(a.stall == b.stall);
  CHECK(a.wave_cycles == b.wave_cycles);
  CHECK(a.issued == b.issued);
  CHECK(a.valu_busy == b.valu_busy);
  CHECK(a.wmma_busy == b.wmma_busy);
  CHECK(a.trans_busy == b.trans_busy);
  CHECK(a.lds_busy == b.lds_busy);
  CHECK(a.vmem_busy == b.vmem_busy);
  CHECK(a.loads_by_level == b.loads_by_level);
}

} // namespace

TEST_CASE("steady state: repeated_periods counts the whole periods of repeating words") {
  const std::vector<uint32_t> w = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 4};
  // From word 3, period 3: words 3..10 repeat those 3 earlier, word 11 does not.
  CHECK(repeated_periods(w.data(), w.size(), 3, 3, 0, 100) == 2); // 8 words: 2 periods
  CHECK(repeated_periods(w.data(), w.size(), 3, 3, 1, 100) == 2); // 2 x 3 + 1 <= 8
  CHECK(repeated_periods(w.data(), w.size(), 3, 3, 3, 100) == 1); // 1 x 3 + 3 <= 8
  CHECK(repeated_periods(w.data(), w.size(), 3, 3, 0, 1) == 1);   // the limit
  CHECK(repeated_periods(w.data(), w.size(), 6, 3, 0, 100) == 1);
  CHECK(repeated_periods(w.data(), w.size(), 9, 3, 0, 100) == 0);
  // Bits the simulation does not read may differ.
  const std::vector<uint32_t> v = {0x10, 0x20, 0x110, 0x220, 0x310, 0x420};
  CHECK(repeated_periods(v.data(), v.size(), 2, 2, 0, 100) == 0);
  CHECK(repeated_periods(v.data(), v.size(), 2, 2, 0, 100, 0xff) == 2);
  // The array's end bounds the periods.
  const std::vector<uint32_t> same(10, 7);
  CHECK(repeated_periods(same.data(), same.size(), 2, 2, 1, 100) == 3); // 2 + 3 x 2 + 1 <= 10
  CHECK_THROWS_AS(repeated_periods(w.data(), w.size(), 2, 3, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(repeated_periods(w.data(), w.size(), 2, 0, 0, 1), std::invalid_argument);
}

TEST_CASE("steady state: a period is confirmed over two marks with equal shape and detail") {
  PeriodDetector d;
  int details = 0;
  auto detail = [&](int64_t value) {
    return [&details, value](std::vector<int64_t>& out) {
      ++details;
      out.push_back(value);
    };
  };
  // The first mark: nothing to compare with, no detail asked.
  CHECK_FALSE(d.offer(snapshot(100, {1, 2}, 10, 5), detail(7)).has_value());
  CHECK(details == 0);
  // The shape matches: the detail is taken, but the first mark has none yet.
  CHECK_FALSE(d.offer(snapshot(150, {1, 2}, 13, 9), detail(7)).has_value());
  CHECK(details == 1);
  // Shape and detail match the mark before: one period of 50 cycles, +3 and +4.
  const auto p = d.offer(snapshot(200, {1, 2}, 16, 13), detail(7));
  REQUIRE(p.has_value());
  CHECK(details == 2);
  CHECK(p->cycles == 50);
  CHECK(p->positions == std::vector<uint64_t>{3});
  CHECK(p->sums == std::vector<uint64_t>{4});
  // Another detail: no period. Another shape: no detail asked.
  CHECK_FALSE(d.offer(snapshot(250, {1, 2}, 19, 17), detail(8)).has_value());
  CHECK(details == 3);
  CHECK_FALSE(d.offer(snapshot(300, {1, 3}, 22, 21), detail(7)).has_value());
  CHECK(details == 3);
  // A period may span several marks: this state equals the one two marks back (t = 250).
  const auto q = d.offer(snapshot(330, {1, 2}, 25, 30), detail(8));
  REQUIRE(q.has_value());
  CHECK(q->cycles == 80);
  CHECK(q->positions == std::vector<uint64_t>{6});
  CHECK(q->sums == std::vector<uint64_t>{13});
  // A position that went back is no period.
  d.clear();
  CHECK_FALSE(d.offer(snapshot(100, {5}, 10, 5), detail(1)).has_value());
  CHECK_FALSE(d.offer(snapshot(150, {5}, 12, 5), detail(1)).has_value());
  CHECK_FALSE(d.offer(snapshot(200, {5}, 11, 5), detail(1)).has_value());
}

TEST_CASE("steady state: marks are thinned out while no shape matches, all taken after one") {
  PeriodDetector d;
  auto none = [](std::vector<int64_t>&) {};
  auto skipped_before_next = [&d]() {
    int skipped = 0;
    while (!d.take_mark())
      ++skipped;
    return skipped;
  };
  CHECK(d.take_mark());
  uint64_t now = 100;
  for (int expected : {1, 3, 7, 7}) { // gaps 2, 4, 8, 8 (kMaxGap)
    d.offer(snapshot(now, {int64_t(now)}, 0, 0), none);
    CHECK(skipped_before_next() == expected);
    now += 100;
  }
  d.offer(snapshot(now, {100}, 0, 0), none); // the first mark's shape: every mark again
  CHECK(d.take_mark());
  d.clear();
  CHECK(d.take_mark());
}

TEST_CASE("steady state: a dependent VALU chain loop models the same with the fast-forward") {
  check_identical_and_skipped("no_barrier_pair", 32,
                              [](test::EmuRun& r) { return rounds_args(r, 64); });
  check_identical_and_skipped("no_barrier_pair", 64,
                              [](test::EmuRun& r) { return rounds_args(r, 64); });
}

TEST_CASE("steady state: two waves in a barrier ping-pong model the same with the fast-forward") {
  check_identical_and_skipped("barrier_ping_pong", 64,
                              [](test::EmuRun& r) { return rounds_args(r, 64); });
}

TEST_CASE("steady state: a WMMA loop fed from LDS models the same with the fast-forward") {
  check_identical_and_skipped(
      "wmma_lds_loop", 32,
      [](test::EmuRun& r) {
        runtime::KernelArgs a;
        a.ptr(r.upload(std::vector<uint16_t>(64 * 8, 0x3c00)));
        a.ptr(r.alloc<float>(32 * 8));
        a.add<int32_t>(64);
        return a;
      },
      2048);
}

TEST_CASE("steady state: dependent loads with waits model the same with the fast-forward") {
  // pointer_chase: each lane follows a chain of 4 lines, 64 laps (the first lap misses to
  // DRAM, the re-read laps hit the L0: the same words each step from the second lap on).
  constexpr uint32_t kLap = 4;
  const std::vector<uint32_t> next = chase_chains(kLap);
  check_identical_and_skipped("pointer_chase", 32, [&](test::EmuRun& r) {
    runtime::KernelArgs a;
    a.ptr(r.upload(next));
    a.ptr(r.alloc<uint32_t>(32));
    a.add<int32_t>(int32_t(kLap) * 64);
    return a;
  });
}

TEST_CASE("steady state: a queue of workgroups in turn simulates the same with the fast-forward") {
  // Three workgroups of two waves, one or two resident: each runs its loop alone or beside
  // another, and the next is admitted after a jump.
  const MachineModel m = machine_by_name("gfx1201");
  std::shared_ptr<emu::CodeObject> co;
  const WorkgroupTrace t = trace_of(
      "no_barrier_pair", 64,
      [](emu::GlobalMemory& mem) { return pointers_and_int({mem.allocate(64 * 4)}, 48); }, co);
  for (int resident : {1, 2}) {
    CAPTURE(resident);
    TimingCache cache(m);
    const WgpSimResult on = simulate_wgp(m, {&t, &t, &t}, resident, cache, nullptr, true);
    const WgpSimResult off = simulate_wgp(m, {&t, &t, &t}, resident, cache, nullptr, false);
    check_same(on, off);
    CHECK(on.skipped_periods > 0);
    CHECK(off.skipped_periods == 0);
  }
}

TEST_CASE("steady state: later-round loads read their own level words, and jump the same") {
  // pointer_chase (laps of 4 lines, 32 laps) three times in turn on one WGP with 2% of the
  // first touches missing to DRAM: the first workgroup's first lap reads the first-round
  // levels (all DRAM), the later ones' the later-round levels (DRAM or L2 per load); the
  // re-read laps hit the L0 in every round. Identical on and off, and jumps in each round.
  const MachineModel m = machine_by_name("gfx1201");
  std::shared_ptr<emu::CodeObject> co;
  const std::vector<uint32_t> next = chase_chains(4);
  const WorkgroupTrace t = trace_of(
      "pointer_chase", 32,
      [&](emu::GlobalMemory& mem) {
        const uint64_t n = mem.allocate(next.size() * 4);
        std::memcpy(reinterpret_cast<void*>(n), next.data(), next.size() * 4); // host memory
        return pointers_and_int({n, mem.allocate(32 * 4)}, 4 * 32);
      },
      co);
  const LevelModel levels(m, 1, 1, 1.0, 0.02); // a load's 32 first touches: ~half of them
                                               // have one below the DRAM threshold
  TimingCache cache(m);
  const WgpSimResult on = simulate_wgp(m, {&t, &t, &t}, 1, cache, &levels, true);
  const WgpSimResult off = simulate_wgp(m, {&t, &t, &t}, 1, cache, &levels, false);
  check_same(on, off);
  CHECK(on.loads_by_level[static_cast<size_t>(Level::L0)] > 0);
  CHECK(on.loads_by_level[static_cast<size_t>(Level::Dram)] > 0);
  CHECK(on.loads_by_level[static_cast<size_t>(Level::L2)] > 0); // later rounds only
  // The later workgroups jump too (not only the first, which jumps as it does alone; they a
  // few periods later: their first lap's loads complete at other times).
  const WgpSimResult alone = simulate_wgp(m, {&t}, 1, cache, &levels, true);
  CHECK(alone.skipped_periods > 0);
  CHECK(on.skipped_periods > 2 * alone.skipped_periods);
  CHECK(on.skipped_periods <= 3 * alone.skipped_periods);
  CHECK(off.skipped_periods == 0);
}
