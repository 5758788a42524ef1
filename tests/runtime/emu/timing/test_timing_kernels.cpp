// The timing model's mechanisms on small kernels with known answers
// (tests/runtime/emu/kernels/timing.hip): dependent VALU chains, WMMA occupancy, LDS bank
// conflicts and global coalescing from the real addresses, barriers, and the interfaces
// (EmuDevice::set_timing_model, --model-only sampling).
#include "../emu_test_util.hpp"
#include "workgroup0_trace.hpp"

#include <runtime/emu/timing/capture.hpp>
#include <runtime/emu/timing/launch_model.hpp>
#include <runtime/emu/timing/wgp_sim.hpp>

#include <algorithm>
#include <cstring>
#include <functional>

using namespace tw;
using namespace tw::emu::timing;

namespace {

const std::string kPath = std::string(TW_TEST_KERNEL_DIR) + "/timing.gfx1201.O3.hsaco";

// Modeled cycles of the busiest WGP for one launch.
struct Modeled {
  TimingReport report;
  uint64_t cycles() const { return report.wgp_cycles; }
};

Modeled model(const std::string& kernel, runtime::Dim3 grid, runtime::Dim3 block,
              const std::function<runtime::KernelArgs(test::EmuRun&)>& args,
              TimingOptions options = {}, uint32_t dynamic_lds = 0) {
  test::EmuRun run(kPath);
  run.dev.set_timing_model(options);
  run.launch(kernel, grid, block, args(run), dynamic_lds);
  REQUIRE(run.dev.last_timing().has_value());
  return {*run.dev.last_timing()};
}

runtime::KernelArgs in_out(test::EmuRun& run, size_t n) {
  runtime::KernelArgs a;
  a.ptr(run.upload(std::vector<float>(n, 1.0f)));
  a.ptr(run.alloc<float>(n));
  return a;
}

// The recorded memory events of one instruction (by mnemonic) of wave 0 of workgroup 0.
std::vector<MemoryEvent> recorded(const std::string& kernel, const std::string& mnemonic,
                                  int stride) {
  const auto co = emu::CodeObject::load(test::read_file_bytes(kPath));
  emu::GlobalMemory memory;
  const uint64_t in = memory.allocate(32 * 32 * 4), out = memory.allocate(32 * 4);
  emu::LaunchConfig cfg;
  cfg.block = {32, 1, 1};
  cfg.dynamic_lds = 4096;
  cfg.kernargs.resize(20);
  std::memcpy(cfg.kernargs.data(), &in, 8);
  std::memcpy(cfg.kernargs.data() + 8, &out, 8);
  std::memcpy(cfg.kernargs.data() + 16, &stride, 4);
  TimingCapture capture({{0, 0, 0}}, 128, 32);
  cfg.observer = &capture;
  emu::launch(*co, co->kernel(kernel), memory, cfg);
  const auto traces = capture.take();
  REQUIRE(traces.size() == 1);
  std::vector<MemoryEvent> out_events;
  for (const auto& e : traces[0].waves[0].memory)
    if (traces[0].program[e.instr].mnemonic == mnemonic)
      out_events.push_back(e);
  return out_events;
}

// The whole recorded trace of workgroup 0 of `kernel` (global_stride or another kernel of
// (in, out, int) with one wave); `co` keeps the decoded instructions it points to.
WorkgroupTrace global_stride_trace(int stride, std::shared_ptr<emu::CodeObject>& co,
                                   const std::string& kernel = "global_stride") {
  co = emu::CodeObject::load(test::read_file_bytes(kPath));
  emu::GlobalMemory memory;
  const uint64_t in = memory.allocate(32 * 32 * 4), out = memory.allocate(32 * 4);
  emu::LaunchConfig cfg;
  cfg.block = {32, 1, 1};
  cfg.kernargs.resize(20);
  std::memcpy(cfg.kernargs.data(), &in, 8);
  std::memcpy(cfg.kernargs.data() + 8, &out, 8);
  std::memcpy(cfg.kernargs.data() + 16, &stride, 4);
  return test::workgroup0_trace(*co, kernel, memory, cfg);
}
} // namespace

TEST_CASE("timing: each dependent VALU op adds its latency, independent ones issue every cycle") {
  const MachineModel m = machine_by_name("gfx1201");
  auto args = [](test::EmuRun& r) { return in_out(r, 32); };
  const auto c64 = model("valu_chain_64", {1, 1, 1}, {32, 1, 1}, args);
  const auto c128 = model("valu_chain_128", {1, 1, 1}, {32, 1, 1}, args);
  CHECK(c128.cycles() - c64.cycles() == uint64_t(64 * m.valu_latency));
  // 5 interleaved chains: 64 more steps are 320 more instructions, one per cycle (the
  // latency of 5 is hidden by the other chains).
  const auto i64 = model("valu_independent_64", {1, 1, 1}, {32, 1, 1}, args);
  const auto i128 = model("valu_independent_128", {1, 1, 1}, {32, 1, 1}, args);
  CHECK(i128.cycles() - i64.cycles() == 64 * 5);
  // Each of the 128 dependent adds waits latency - 1 cycles for the previous one (the
  // single wave lives as long as the launch).
  double dep = 0;
  for (const auto& [name, share] : c128.report.stalls)
    if (name == "VALU dependency")
      dep = share * double(c128.cycles());
  CHECK(dep == doctest::Approx(128 * (m.valu_latency - 1)).epsilon(0.02));
}

TEST_CASE("timing: WMMA occupies the matrix pipe 16 cycles (f16) / 8 cycles (iu8)") {
  auto f16_args = [](test::EmuRun& r) {
    runtime::KernelArgs a;
    a.ptr(r.upload(std::vector<uint16_t>(64 * 8, 0x3c00)));
    a.ptr(r.alloc<float>(32 * 8));
    return a;
  };
  const auto f32 = model("wmma_f16_chain_32", {1, 1, 1}, {32, 1, 1}, f16_args);
  const auto f64 = model("wmma_f16_chain_64", {1, 1, 1}, {32, 1, 1}, f16_args);
  CHECK(f64.cycles() - f32.cycles() == 32 * 16);
  auto iu8_args = [](test::EmuRun& r) {
    runtime::KernelArgs a;
    a.ptr(r.upload(std::vector<int32_t>(64 * 2, 0x01010101)));
    a.ptr(r.alloc<int32_t>(32 * 8));
    return a;
  };
  const auto i32 = model("wmma_iu8_chain_32", {1, 1, 1}, {32, 1, 1}, iu8_args);
  const auto i64 = model("wmma_iu8_chain_64", {1, 1, 1}, {32, 1, 1}, iu8_args);
  CHECK(i64.cycles() - i32.cycles() == 32 * 8);
  // Given the work, the report converts to TFLOP/s against the f16 WMMA peak
  // (64 CUs x 2 SIMDs x 8192 FLOP / 16 cycles x 2.97 GHz).
  TimingOptions o;
  o.work_flops = 64.0 * 2 * 16 * 16 * 16;
  const auto w = model("wmma_f16_chain_64", {1, 1, 1}, {32, 1, 1}, f16_args, o);
  CHECK(w.report.peak == doctest::Approx(64.0 * 2 * 8192 / 16 * 2.97e9));
  CHECK(w.report.peak_name == "v_wmma_f32_16x16x16_f16");
  CHECK(w.report.tflops == doctest::Approx(o.work_flops / w.report.seconds / 1e12));
}

TEST_CASE("timing: a WMMA stream at full occupancy runs near the WMMA peak") {
  // 8192 one-wave workgroups of 64 chained WMMAs: 16 waves per SIMD keep the matrix pipe
  // busy; only the loads, the stores and the ramp are not WMMA.
  TimingOptions o;
  o.model_only = true;
  o.work_flops = 8192.0 * 64 * 2 * 16 * 16 * 16;
  const auto w = model(
      "wmma_f16_chain_64", {8192, 1, 1}, {32, 1, 1},
      [](test::EmuRun& r) {
        runtime::KernelArgs a;
        a.ptr(r.upload(std::vector<uint16_t>(64 * 8, 0x3c00)));
        a.ptr(r.alloc<float>(32 * 8));
        return a;
      },
      o);
  CHECK(w.report.bound == "WMMA");
  CHECK(w.report.occupancy.waves_per_simd == 16);
  // The peak is the published one (boost clock); modeled time runs at the sustained clock.
  const MachineModel m = machine_by_name("gfx1201");
  const double clocks = m.sustained_clock_ghz / m.clock_ghz;
  // Per SIMD 64 waves x 64 WMMAs x 16 cycles; what is not WMMA is the ramp: the first
  // round's loads wait for DRAM (lockstep first touches), the stores for L2, and the two
  // simulated rounds' ramps enter the extrapolated interval: at most two (DRAM + L2).
  const double wmma = 64.0 * 64 * 16, ramp = 2.0 * (m.dram_latency + m.l2_latency);
  CHECK(w.report.peak_fraction > clocks * wmma / (wmma + ramp));
  CHECK(w.report.peak_fraction <= clocks);
}

TEST_CASE("timing: LDS bank conflicts come from the real addresses") {
  const auto free = recorded("lds_stride", "ds_load_b32", 1);
  const auto conflict = recorded("lds_stride", "ds_load_b32", 32);
  REQUIRE(free.size() == 16);
  REQUIRE(conflict.size() == 16);
  for (size_t i = 0; i < 16; ++i) {
    CHECK(free[i].lds_cycles == 1);
    CHECK(conflict[i].lds_cycles == 32);
  }
  auto args = [](int stride) {
    return [stride](test::EmuRun& r) {
      runtime::KernelArgs a = in_out(r, 32 * 32);
      a.add<int32_t>(stride);
      return a;
    };
  };
  const auto t1 = model("lds_stride", {1, 1, 1}, {32, 1, 1}, args(1), {}, 4096);
  const auto t32 = model("lds_stride", {1, 1, 1}, {32, 1, 1}, args(32), {}, 4096);
  // 16 waited loads (+ the store ahead of them) each 31 cycles longer.
  CHECK(t32.cycles() - t1.cycles() >= 16 * 31);
  CHECK(t32.cycles() - t1.cycles() <= 17 * 31);
}

TEST_CASE("timing: each dependent cross-lane swizzle costs an LDS round trip") {
  // swizzle_chain_N: N x (ds_swizzle_b32 x, x; s_wait_dscnt 0). A swizzle holds the CU's LDS
  // pipe 1 cycle and its result arrives the LDS latency later; the wait issues then (after
  // `latency` cycles of LDS wait), the next swizzle the cycle after: latency + 2 cycles per
  // step, whatever the latency.
  std::shared_ptr<emu::CodeObject> co32, co64;
  const WorkgroupTrace t32 = global_stride_trace(0, co32, "swizzle_chain_32");
  const WorkgroupTrace t64 = global_stride_trace(0, co64, "swizzle_chain_64");
  for (const int latency : {20, 100}) {
    MachineModel m = machine_by_name("gfx1201");
    m.lds_latency = latency;
    TimingCache cache(m);
    const WgpSimResult r32 = simulate_wgp(m, {&t32}, 1, cache);
    const WgpSimResult r64 = simulate_wgp(m, {&t64}, 1, cache);
    CAPTURE(latency);
    CHECK(r64.cycles - r32.cycles == 32 * uint64_t(latency + 2));
    const double lds_wait = r64.stall[static_cast<size_t>(Stall::WaitLds)] -
                            r32.stall[static_cast<size_t>(Stall::WaitLds)];
    CHECK(lds_wait == doctest::Approx(32.0 * latency).epsilon(0.01));
  }
}

TEST_CASE("timing: a strided global load touches 32 lines, a coalesced one 1") {
  const auto coalesced = recorded("global_stride", "global_load_b32", 1);
  const auto strided = recorded("global_stride", "global_load_b32", 32);
  REQUIRE(coalesced.size() == 1);
  REQUIRE(strided.size() == 1);
  CHECK(coalesced[0].lines == 1);
  CHECK(strided[0].lines == 32);
  auto args = [](int stride) {
    return [stride](test::EmuRun& r) {
      runtime::KernelArgs a = in_out(r, 32 * 32);
      a.add<int32_t>(stride);
      return a;
    };
  };
  const auto t1 = model("global_stride", {1, 1, 1}, {32, 1, 1}, args(1));
  const auto t32 = model("global_stride", {1, 1, 1}, {32, 1, 1}, args(32));
  // The CU's vector memory path: one line per cycle, and 32 lane addresses at
  // vmem_addresses_per_clk (the coalesced load's 8 cycles at 4 per cycle).
  const MachineModel m = machine_by_name("gfx1201");
  CHECK(double(t32.cycles() - t1.cycles()) == 32 - 32 / m.vmem_addresses_per_clk);
}

TEST_CASE("timing: a barrier ping-pong serialises two waves that otherwise overlap") {
  const MachineModel m = machine_by_name("gfx1201");
  auto args = [](test::EmuRun& r) {
    runtime::KernelArgs a;
    a.ptr(r.upload(std::vector<float>(64, 1.0f)));
    a.add<int32_t>(8);
    return a;
  };
  const auto pp = model("barrier_ping_pong", {1, 1, 1}, {64, 1, 1}, args);
  const auto nb = model("no_barrier_pair", {1, 1, 1}, {64, 1, 1}, args);
  // 8 rounds: each wave's 32-op chain (32 x 5 cycles) once per round, in turn vs at once.
  const double chain = 32.0 * m.valu_latency, extra = double(pp.cycles()) - double(nb.cycles());
  CHECK(extra >= 8 * chain);
  CHECK(extra <= 8 * chain * 1.25);
  const auto barrier = std::find_if(pp.report.stalls.begin(), pp.report.stalls.end(),
                                    [](auto& s) { return s.first == "barrier"; });
  REQUIRE(barrier != pp.report.stalls.end());
  CHECK(barrier->second > 0.3);
}

TEST_CASE("timing: --model-only runs only the sampled workgroups and the grid scales the time") {
  auto args = [](test::EmuRun& r) { return in_out(r, 32 * 4096); };
  TimingOptions o;
  o.sample = 3;
  o.model_only = true;
  test::EmuRun run(kPath);
  run.dev.set_timing_model(o);
  run.launch("valu_chain_64", {4096, 1, 1}, {32, 1, 1}, args(run));
  CHECK(run.stats().workgroups == 3);
  const TimingReport big = *run.dev.last_timing();
  CHECK(big.sampled == 3);
  CHECK(big.workgroups == 4096);
  CHECK(big.groups_per_wgp == 128); // 4096 over 32 WGPs
  const auto small = model("valu_chain_64", {32, 1, 1}, {32, 1, 1}, args);
  CHECK(small.report.groups_per_wgp == 1);
  // 128 one-wave workgroups on one WGP's 4 SIMDs: 32 waves per SIMD (two rounds of 16)
  // issue their 64-op chains one op per cycle, the chains' latency hidden by the other
  // waves: at least 32 x 64 cycles, at most that plus two rounds of one workgroup's latency.
  CHECK(big.wgp_cycles > 32 * 64);
  CHECK(big.wgp_cycles < 32 * 64 + 2 * small.cycles());
  // Each workgroup's one load misses to DRAM (all first touches of the grid are compulsory
  // misses here) and waits 1800 cycles before its 320-cycle chain: latency binds.
  CHECK(big.bound == "VMEM latency");
  // The DRAM bound scales each allocation's sampled lines to the grid (capped by its size):
  // one line read and one written per sampled workgroup. (These workgroups all touch the
  // same two lines, which the estimator cannot know: docs/timing.md.)
  CHECK(big.dram_bytes == doctest::Approx(2 * 128.0 * 4096 / 3));
  CHECK(big.to_json().find("\"bound\"") != std::string::npos);
}

TEST_CASE("timing: the default sample records one workgroup per workgroup the WGP simulation "
          "replays") {
  auto args = [](test::EmuRun& r) { return in_out(r, 32 * 4096); };
  TimingOptions o;
  o.model_only = true; // sample 0: the default
  test::EmuRun run(kPath);
  run.dev.set_timing_model(o);
  run.launch("valu_chain_64", {4096, 1, 1}, {32, 1, 1}, args(run));
  const TimingReport r = *run.dev.last_timing();
  // 128 workgroups per WGP, resident by occupancy: two rounds of them are simulated, each
  // from its own recorded workgroup (none replayed twice).
  const uint64_t resident = std::min<uint64_t>(r.occupancy.workgroups_per_wgp, 128);
  CHECK(r.simulated == std::min<uint64_t>(128, std::max<uint64_t>(6, 2 * resident)));
  CHECK(r.sampled == r.simulated);
  CHECK(run.stats().workgroups == r.sampled);
  // At least 3 (first, interior, last) where the queue is shorter, never more than the grid.
  CHECK(model("valu_chain_64", {32, 1, 1}, {32, 1, 1}, args, o).report.sampled == 3);
  CHECK(model("valu_chain_64", {2, 1, 1}, {32, 1, 1}, args, o).report.sampled == 2);
  // An explicit sample is recorded as asked, the queue replaying it in turn.
  o.sample = 2;
  const TimingReport two = model("valu_chain_64", {4096, 1, 1}, {32, 1, 1}, args, o).report;
  CHECK(two.sampled == 2);
  CHECK(two.simulated == r.simulated);
}

TEST_CASE("timing: bad options are refused with the rule") {
  test::EmuRun run(kPath);
  TimingOptions o;
  o.machine = "gfx942";
  CHECK_THROWS_WITH_AS(run.dev.set_timing_model(o), doctest::Contains("gfx1201"),
                       runtime::DeviceError);
  o = {};
  o.sample = -1;
  CHECK_THROWS_WITH_AS(run.dev.set_timing_model(o), doctest::Contains("sample -1 must be >= 0"),
                       runtime::DeviceError);
  o = {};
  o.compare_plain = true; // would run the sampled workgroups twice over the real outputs
  CHECK_THROWS_WITH_AS(run.dev.set_timing_model(o), doctest::Contains("needs model_only"),
                       runtime::DeviceError);
  run.dev.set_timing_model(std::nullopt);
  run.launch("valu_chain_64", {1, 1, 1}, {32, 1, 1}, in_out(run, 32));
  CHECK_FALSE(run.dev.last_timing().has_value());
}

namespace {

// Modeled cycles of `laps` laps of a pointer chase whose lap touches `lines_per_lap` lines
// (32 lanes x steps, each lane on its own line per step).
uint64_t chase_cycles(uint32_t steps_per_lap, int laps, TimingReport* report = nullptr) {
  const size_t words = size_t(steps_per_lap) * 32 * 32;
  std::vector<uint32_t> next(words, 0);
  for (uint32_t k = 0; k < steps_per_lap; ++k)
    for (uint32_t lane = 0; lane < 32; ++lane)
      next[(size_t(k) * 32 + lane) * 32] = ((k + 1) % steps_per_lap * 32 + lane) * 32;
  const int steps = static_cast<int>(steps_per_lap) * laps;
  const auto m = model("pointer_chase", {1, 1, 1}, {32, 1, 1}, [&](test::EmuRun& r) {
    runtime::KernelArgs a;
    a.ptr(r.upload(next));
    a.ptr(r.alloc<uint32_t>(32));
    a.add<int32_t>(steps);
    return a;
  });
  if (report)
    *report = m.report;
  return m.cycles();
}

// Cycles per step of the re-read laps: (3 laps - 1 lap) / 2 laps.
double reread_step_cycles(uint32_t steps_per_lap) {
  return double(chase_cycles(steps_per_lap, 3) - chase_cycles(steps_per_lap, 1)) /
         double(2 * steps_per_lap);
}

} // namespace

TEST_CASE("timing: a pointer chase re-read from L0, L2, the Infinity Cache or DRAM takes that "
          "level's latency") {
  const MachineModel m = machine_by_name("gfx1201");
  // A lap of 4 steps touches 128 lines (16 KiB: fits one CU's 32 KiB L0), 64 steps 256 KiB
  // (L2), 4096 steps 16 MiB (Infinity Cache), 20480 steps 80 MiB (DRAM). Only the
  // latency of the serving level differs between them.
  const double l0 = reread_step_cycles(4), l2 = reread_step_cycles(64);
  CHECK(l2 - l0 == doctest::Approx(m.l2_latency - m.l0_latency));
  const double mall = reread_step_cycles(4096);
  CHECK(mall - l2 == doctest::Approx(m.mall_latency - m.l2_latency));
  const double dram = reread_step_cycles(20480);
  CHECK(dram - mall == doctest::Approx(m.dram_latency - m.mall_latency));
  // The first lap misses to DRAM (a single workgroup: every first touch is compulsory).
  TimingReport r;
  chase_cycles(64, 1, &r);
  CHECK(r.cold_dram_fraction == 1.0);
  REQUIRE(r.load_levels.size() == 4);
  CHECK(r.load_levels[3].first == "DRAM");
  CHECK(r.load_levels[3].second == doctest::Approx(1.0)); // the lap, all first touches
  chase_cycles(64, 3, &r);
  CHECK(r.load_levels[1].first == "L2");
  CHECK(r.load_levels[1].second == doctest::Approx(2.0 / 3.0)); // two re-read laps of three
}

TEST_CASE("timing: first-round workgroups wait for DRAM on shared first touches, later ones "
          "hit L2") {
  // Two workgroups in turn on one WGP (one resident): the first starts with the launch, so
  // its first touch of the shared line merges into a DRAM fill (lockstep first touches);
  // the second starts when the first ended and finds the line in L2. Nothing else differs.
  const MachineModel m = machine_by_name("gfx1201");
  std::shared_ptr<emu::CodeObject> co;
  const WorkgroupTrace t = global_stride_trace(1, co);
  const LevelModel levels(m, 1, 1, 64, 0.0); // no compulsory misses: the line is shared
  TimingCache cache(m);
  const WgpSimResult r = simulate_wgp(m, {&t, &t}, 1, cache, &levels);
  REQUIRE(r.finish.size() == 2);
  CHECK(r.loads_by_level[static_cast<size_t>(Level::Dram)] == 1);
  CHECK(r.loads_by_level[static_cast<size_t>(Level::L2)] == 1);
  const uint64_t first = r.finish[0], second = r.finish[1] - r.finish[0];
  CHECK(first - second == uint64_t(m.dram_latency - m.l2_latency));
}

TEST_CASE("timing: compare_plain reports the model's cost against the plain emulation") {
  TimingOptions o;
  o.model_only = true;
  o.compare_plain = true;
  const auto w = model(
      "valu_chain_128", {64, 1, 1}, {32, 1, 1}, [](test::EmuRun& r) { return in_out(r, 64 * 32); },
      o);
  CHECK(w.report.sampled == 3);
  CHECK(w.report.plain_cpu_seconds > 0);
  CHECK(w.report.recording_cpu_seconds > 0);
  CHECK(w.report.host_cpu_seconds > 0);
}
