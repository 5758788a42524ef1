#pragma once
// The modeled time of a whole launch: the sampled workgroups' traces are replayed on one
// WGP (wgp_sim) as the busiest WGP's queue of workgroups (round-robin dispatch over the
// WGPs, occupancy-many resident at a time, steady state extrapolated past the simulated
// part); the grid's DRAM footprint and L2 traffic bound it from below.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/global_memory.hpp>
#include <runtime/emu/launch.hpp>
#include <runtime/emu/timing/cache_residency.hpp>
#include <runtime/emu/timing/capture.hpp>
#include <runtime/emu/timing/machine.hpp>
#include <runtime/emu/timing/occupancy.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tw::emu::timing {

// How many workgroups of the busiest WGP's queue the simulation replays before the
// steady-state interval between workgroup ends is extrapolated (docs/timing.md, What is
// modeled, 4). `resident`: workgroups resident on the WGP at once.
enum class QueueRule {
  two_rounds,    // max(TimingOptions::max_simulated_groups, 2 x resident) (the default)
  turnover,      // 2 x resident: every slot turned over once past the first round
  resident_half, // resident + max(2, resident / 2)
};
const char* queue_rule_name(QueueRule rule);
// "two-rounds", "turnover" or "resident-half"; throws std::invalid_argument naming the
// accepted names.
QueueRule parse_queue_rule(const std::string& name);
// The number of workgroups simulated for a WGP's queue of `groups` (never more than it).
uint64_t simulated_groups(QueueRule rule, int max_simulated_groups, int resident, uint64_t groups);

struct TimingOptions {
  std::string machine = "gfx1201"; // gfx1201 (RX 9070 XT) or gfx1200 (RX 9060 XT)
  int sample = 0;                  // workgroups recorded in detail: 0 (the default) records
                                   // one per workgroup the WGP simulation replays, at least
                                   // 3 (planned_sample); n >= 1 records n, which the queue
                                   // replays in turn when it is longer
  bool model_only = false;         // run only the sampled workgroups (outputs incomplete)
  int max_simulated_groups = 6;    // queue length simulated before extrapolating (>= 1; at
                                   // least two rounds of resident workgroups are simulated)
  double work_flops = 0;           // the caller's useful work, for TFLOP/s ...
  double work_bytes = 0;           // ... or bytes, for GB/s (0: not reported)
  bool compare_plain = false;      // also emulate the sampled workgroups once without
                                   // recording, to report the model's own cost against that
                                   // (TimingReport::*_cpu_seconds; needs model_only: the
                                   // sampled workgroups then run twice)
  bool fast_forward = false;       // jump over the periods of an exactly periodic steady
                                   // state in the WGP simulation (steady_state.hpp): the
                                   // modeled figures are identical. Off by default: the
                                   // shipped GEMMs and attention never reach such a state
                                   // and its hooks cost ~4% of their modeling (docs/timing.md,
                                   // Cost, twelfth session)
  // How many workgroups the WGP simulation replays (QueueRule). The cheaper rules moved
  // modeled figures by up to 79% (docs/timing.md, Cost, "Cheaper queue rules"): for
  // measurements only.
  QueueRule queue_rule = QueueRule::two_rounds;
};

struct TimingReport {
  std::string machine, product, kernel;
  double seconds = 0;         // modeled time of the launch
  double compute_seconds = 0; // the WGP simulation, scaled to the grid
  double dram_seconds = 0, l2_seconds = 0;
  double dram_bytes = 0, l2_bytes = 0;
  std::string bound;          // what limits it: WMMA, VALU, issue, LDS, VMEM bandwidth,
                              // VMEM latency, LDS latency, barrier, dependency, occupancy,
                              // DRAM, L2
  double tflops = 0, gbs = 0; // achieved (when the work was given)
  double peak = 0;            // matching peak (FLOP/s or B/s)
  std::string peak_name;
  double peak_fraction = 0;
  Occupancy occupancy;
  uint64_t workgroups = 0, groups_per_wgp = 0, sampled = 0, simulated = 0;
  uint64_t wgp_cycles = 0;     // busiest WGP, extrapolated
  double host_seconds = 0;     // wall time of the modeling (after the recorded launch)
  double host_cpu_seconds = 0; // CPU time of the modeling (one thread)
  // Host statistics (not in exact()): instructions of the WGP simulation, those the
  // fast-forward jumped over among them, and in how many periods.
  uint64_t simulated_instructions = 0, skipped_instructions = 0, skipped_periods = 0;
  // With TimingOptions::compare_plain (else 0): CPU seconds (all threads) of the recorded
  // launch and of the same sampled workgroups emulated without recording.
  double recording_cpu_seconds = 0, plain_cpu_seconds = 0;
  std::vector<std::pair<std::string, double>> utilization; // fraction of the simulated WGP
  std::vector<std::pair<std::string, double>> stalls;      // fraction of wave-cycles
  std::vector<std::pair<std::string, double>> load_levels; // vector loads by serving level
  double cold_dram_fraction = 0; // first touches of a workgroup that miss to DRAM
  // Residency across launches (CacheResidency; 0 for a launch on cold caches): bytes of the
  // footprint that earlier launches left in the L2 / the MALL (not in dram_bytes), and the
  // share of first touches the MALL serves for them.
  double held_l2_bytes = 0, held_mall_bytes = 0;
  double cold_mall_fraction = 0;
  uint64_t concurrent = 0;     // workgroups running at once on the chip
  double distinct_streams = 0; // ... as workgroups with disjoint data (L2 / MALL shares)

  std::string to_string() const; // human readable, several lines (no host timing)
  std::string to_json() const;   // one JSON object
  // Every modeled figure at full precision (doubles as hexadecimal floats, one per line; no
  // host timing): two builds model a launch identically iff their exact() strings are equal
  // (scripts/check_timing_exact.sh compares them for changes that must not move a figure).
  std::string exact() const;
};

// Workgroups of the WGP that runs the most of them resident at once (occupancy, capped by
// its share of the grid).
int resident_workgroups(const MachineModel& m, const KernelInfo& kernel, const LaunchConfig& cfg);
// How many workgroups a launch records: TimingOptions::sample when set, else one per
// workgroup of the simulated queue (simulated_groups), at least 3 (the first, an interior
// and the last tile for the grid's memory footprint), never more than the grid.
int planned_sample(const MachineModel& m, const KernelInfo& kernel, const LaunchConfig& cfg,
                   const TimingOptions& options);

// `traces`: the sampled workgroups (TimingCapture::take()). Throws std::invalid_argument if
// none ran. `residency` (optional): what earlier launches left in the caches; the bytes of an
// allocation it holds are not charged to DRAM, and the launch's footprint is recorded in it.
// Without it (or with it empty) the launch is modeled on cold caches.
TimingReport model_launch(const MachineModel& m, const KernelInfo& kernel, const LaunchConfig& cfg,
                          const std::vector<WorkgroupTrace>& traces, const GlobalMemory& memory,
                          const TimingOptions& options, CacheResidency* residency = nullptr);

// Checks the options (machine name, sample, queue length); throws std::invalid_argument
// naming the bad one.
void validate(const TimingOptions& options);

} // namespace tw::emu::timing
