#include <runtime/emu/timing/launch_model.hpp>
#include <runtime/emu/timing/wgp_sim.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace tw::emu::timing {

const char* queue_rule_name(QueueRule rule) {
  switch (rule) {
  case QueueRule::two_rounds:
    return "two-rounds";
  case QueueRule::turnover:
    return "turnover";
  case QueueRule::resident_half:
    return "resident-half";
  }
  return "?";
}

QueueRule parse_queue_rule(const std::string& name) {
  for (QueueRule r : {QueueRule::two_rounds, QueueRule::turnover, QueueRule::resident_half})
    if (name == queue_rule_name(r))
      return r;
  throw std::invalid_argument(fmt::format(
      "timing model: queue rule '{}' unknown (known: two-rounds, turnover, resident-half)", name));
}

uint64_t simulated_groups(QueueRule rule, int max_simulated_groups, int resident, uint64_t groups) {
  const uint64_t res = uint64_t(std::max(resident, 1));
  uint64_t n = 0;
  switch (rule) {
  case QueueRule::two_rounds:
    n = std::max<uint64_t>(uint64_t(max_simulated_groups), 2 * res);
    break;
  case QueueRule::turnover:
    n = 2 * res;
    break;
  case QueueRule::resident_half:
    n = res + std::max<uint64_t>(2, res / 2);
    break;
  }
  return std::min(groups, n);
}

void validate(const TimingOptions& o) {
  (void)machine_by_name(o.machine);
  if (o.sample < 0)
    throw std::invalid_argument(fmt::format(
        "timing model: sample {} must be >= 0 (0: one per simulated workgroup)", o.sample));
  if (o.max_simulated_groups < 1)
    throw std::invalid_argument(
        fmt::format("timing model: max_simulated_groups {} must be >= 1", o.max_simulated_groups));
  if (o.work_flops < 0 || o.work_bytes < 0)
    throw std::invalid_argument("timing model: work_flops and work_bytes must be >= 0");
  if (o.compare_plain && !o.model_only)
    throw std::invalid_argument("timing model: compare_plain needs model_only (the sampled "
                                "workgroups run twice)");
}

namespace {

int workgroup_waves(const LaunchConfig& cfg) {
  const uint64_t threads = uint64_t(cfg.block[0]) * cfg.block[1] * cfg.block[2];
  return static_cast<int>((threads + 31) / 32);
}

Occupancy launch_occupancy(const MachineModel& m, const KernelInfo& k, const LaunchConfig& cfg) {
  const int vgprs =
      static_cast<int>(k.metadata_vgpr_count ? k.metadata_vgpr_count : (k.vgpr_granules + 1) * 8);
  return compute_occupancy(m, vgprs, k.group_segment_size + cfg.dynamic_lds, workgroup_waves(cfg));
}

uint64_t grid_workgroups(const LaunchConfig& cfg) {
  return uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2];
}

uint64_t groups_per_wgp(const MachineModel& m, const LaunchConfig& cfg) {
  return (grid_workgroups(cfg) + m.wgps() - 1) / m.wgps();
}

// Resident at once: the occupancy's workgroups per WGP, capped by the WGP's share of the grid.
int resident_of(const Occupancy& occupancy, uint64_t per_wgp) {
  return static_cast<int>(std::min<uint64_t>(occupancy.workgroups_per_wgp, per_wgp));
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Peak of the matrix shape the kernel issues most, or of f32 VALU without WMMA: the WMMAs
// the sampled workgroups executed (their per-instruction counts).
std::pair<double, std::string> matching_peak(const MachineModel& m,
                                             const std::vector<WorkgroupTrace>& traces,
                                             TimingCache& cache) {
  std::unordered_map<const DecodedInstr*, uint64_t> wmma;
  for (const auto& t : traces)
    for (size_t place = 0; place < t.executed.size(); ++place)
      if (t.executed[place] > 0 && t.program[place].cls == InstrClass::Wmma)
        wmma[&t.program[place]] += t.executed[place];
  if (wmma.empty())
    return {m.valu_f32_peak(), "f32 VALU"};
  std::map<std::string, uint64_t> by_name;
  for (const auto& [in, n] : wmma)
    by_name[in->mnemonic] += n;
  const auto top = std::max_element(by_name.begin(), by_name.end(),
                                    [](auto& a, auto& b) { return a.second < b.second; });
  const DecodedInstr* in = nullptr;
  for (const auto& [i, n] : wmma)
    if (i->mnemonic == top->first)
      in = i;
  const double per_cycle = double(in->wmma_ops) / cache.get(*in).occupancy;
  return {double(m.cus) * m.simds_per_cu * per_cycle * m.clock_hz(), top->first};
}

} // namespace

int resident_workgroups(const MachineModel& m, const KernelInfo& k, const LaunchConfig& cfg) {
  return resident_of(launch_occupancy(m, k, cfg), groups_per_wgp(m, cfg));
}

int planned_sample(const MachineModel& m, const KernelInfo& k, const LaunchConfig& cfg,
                   const TimingOptions& o) {
  if (o.sample > 0)
    return o.sample;
  const uint64_t queue = simulated_groups(o.queue_rule, o.max_simulated_groups,
                                          resident_workgroups(m, k, cfg), groups_per_wgp(m, cfg));
  return static_cast<int>(std::min<uint64_t>(std::max<uint64_t>(queue, 3), grid_workgroups(cfg)));
}

TimingReport model_launch(const MachineModel& m, const KernelInfo& k, const LaunchConfig& cfg,
                          const std::vector<WorkgroupTrace>& traces, const GlobalMemory& memory,
                          const TimingOptions& o, CacheResidency* residency) {
  if (traces.empty())
    throw std::invalid_argument("timing model: no sampled workgroup ran");
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_seconds();
  TimingReport r;
  r.machine = m.name;
  r.product = m.product;
  r.kernel = k.name;
  const int waves = workgroup_waves(cfg);
  r.occupancy = launch_occupancy(m, k, cfg);
  r.workgroups = grid_workgroups(cfg);
  r.groups_per_wgp = groups_per_wgp(m, cfg);
  r.sampled = traces.size();
  const int resident = resident_of(r.occupancy, r.groups_per_wgp);

  // Memory bounds over the whole grid from the sampled footprints.
  const double scale = double(r.workgroups) / double(traces.size());
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> regions; // base -> (size, sampled lines)
  std::vector<uint64_t> all;
  uint64_t traffic_lines = 0, other_lines = 0; // each trace's distinct lines; outside allocations
  bool merged = true; // each trace's lines are sorted (TimingCapture): merge, no sort
  for (const auto& t : traces) {
    traffic_lines += t.lines.size();
    r.l2_bytes += double(t.lines.size()) * m.cache_line * scale;
    const auto mid = static_cast<std::ptrdiff_t>(all.size());
    all.insert(all.end(), t.lines.begin(), t.lines.end());
    merged = merged && std::is_sorted(t.lines.begin(), t.lines.end());
    if (merged)
      std::inplace_merge(all.begin(), all.begin() + mid, all.end());
  }
  if (!merged)
    std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  const GlobalMemory::Region* reg = nullptr; // the sorted lines walk the regions in order
  std::pair<uint64_t, uint64_t>* entry = nullptr;
  for (uint64_t line : all) {
    const uint64_t addr = line * uint64_t(m.cache_line);
    if (!reg || addr < reg->base || addr >= reg->base + reg->size) {
      reg = memory.find(addr, 1);
      if (!reg) {
        ++other_lines;
        continue;
      }
      entry = &regions[reg->base];
      entry->first = reg->size;
    }
    ++entry->second;
  }
  // Each allocation's footprint, less what earlier launches left in the L2 / MALL.
  std::vector<AllocationBytes> touched;
  touched.reserve(regions.size());
  for (const auto& [base, e] : regions) {
    const double bytes = std::min(double(e.first), double(e.second) * m.cache_line * scale);
    const HeldBytes held = residency ? residency->held(base) : HeldBytes{};
    const double in_l2 = std::min(bytes, held.l2);
    const double in_mall = std::min(bytes - in_l2, held.mall);
    r.held_l2_bytes += in_l2;
    r.held_mall_bytes += in_mall;
    r.dram_bytes += bytes - (in_l2 + in_mall); // bytes itself when nothing is held
    touched.push_back({base, bytes});
  }
  if (residency)
    residency->record(touched);
  // Which level serves each load: compulsory misses are the grid's DRAM footprint over its
  // L2 traffic; capacities are shared by the workgroups running at once.
  r.cold_dram_fraction = r.l2_bytes > 0 ? std::min(1.0, r.dram_bytes / r.l2_bytes) : 0.0;
  r.cold_mall_fraction = r.l2_bytes > 0 ? std::min(1.0, r.held_mall_bytes / r.l2_bytes) : 0.0;
  const double cold_l2_held = r.l2_bytes > 0 ? r.held_l2_bytes / r.l2_bytes : 0.0;
  // L2 and MALL capacities are shared by the workgroups running at once, lines they share
  // held once (distinct_streams).
  r.concurrent = std::min<uint64_t>(r.workgroups, uint64_t(resident) * m.wgps());
  std::vector<RegionLines> region_lines;
  region_lines.reserve(regions.size());
  for (const auto& [base, e] : regions)
    region_lines.push_back({e.first, e.second});
  r.distinct_streams = distinct_streams(r.concurrent, traces.size(), traffic_lines, region_lines,
                                        other_lines, static_cast<uint32_t>(m.cache_line));
  const LevelModel levels(m, resident, waves, r.distinct_streams, r.cold_dram_fraction,
                          r.cold_mall_fraction, cold_l2_held);

  // The busiest WGP's queue: the sampled workgroups in turn.
  const uint64_t sim_groups =
      simulated_groups(o.queue_rule, o.max_simulated_groups, resident, r.groups_per_wgp);
  std::vector<const WorkgroupTrace*> queue;
  for (uint64_t i = 0; i < sim_groups; ++i)
    queue.push_back(&traces[i % traces.size()]);
  r.simulated = queue.size();
  TimingCache cache(m);
  const WgpSimResult sim = simulate_wgp(m, queue, resident, cache, &levels, o.fast_forward);
  r.simulated_instructions = sim.issued;
  r.skipped_instructions = sim.skipped_instructions;
  r.skipped_periods = sim.skipped_periods;
  double cycles = double(sim.cycles);
  if (r.groups_per_wgp > sim_groups) {
    std::vector<uint64_t> f = sim.finish;
    std::sort(f.begin(), f.end());
    const size_t n = f.size(), kres = static_cast<size_t>(resident);
    const double interval =
        n > kres ? double(f[n - 1] - f[kres - 1]) / double(n - kres) : double(f[n - 1]) / double(n);
    cycles += interval * double(r.groups_per_wgp - sim_groups);
  }
  r.wgp_cycles = static_cast<uint64_t>(cycles);
  r.compute_seconds = cycles / m.sustained_hz();

  r.dram_seconds = r.dram_bytes / (m.dram_gbs * 1e9);
  r.l2_seconds = r.l2_bytes / (m.l2_bytes_per_clk * m.sustained_hz());
  r.seconds = std::max({r.compute_seconds, r.dram_seconds, r.l2_seconds});

  const double simd_cycles = double(sim.cycles) * m.simds_per_wgp();
  const double cu_cycles = double(sim.cycles) * (m.simds_per_wgp() / m.simds_per_cu);
  r.utilization = {{"WMMA", sim.wmma_busy / simd_cycles},
                   {"VALU", sim.valu_busy / simd_cycles},
                   {"issue", double(sim.issued) / simd_cycles},
                   {"LDS", sim.lds_busy / cu_cycles},
                   {"VMEM bandwidth", sim.vmem_busy / cu_cycles}};
  uint64_t loads = 0;
  for (uint64_t n : sim.loads_by_level)
    loads += n;
  for (size_t l = 0; l < kLevels && loads > 0; ++l)
    r.load_levels.emplace_back(level_name(static_cast<Level>(l)),
                               double(sim.loads_by_level[l]) / double(loads));
  for (size_t s = 0; s < kStalls; ++s)
    if (sim.stall[s] > 0)
      r.stalls.emplace_back(stall_name(static_cast<Stall>(s)), sim.stall[s] / sim.wave_cycles);
  std::sort(r.stalls.begin(), r.stalls.end(), [](auto& a, auto& b) { return a.second > b.second; });

  if (r.seconds == r.dram_seconds && r.dram_seconds > r.compute_seconds) {
    r.bound = "DRAM";
  } else if (r.seconds == r.l2_seconds && r.l2_seconds > r.compute_seconds) {
    r.bound = "L2";
  } else {
    // A saturated pipe names the bound; issue only when no single pipe is saturated.
    std::pair<std::string, double> busiest{"", 0};
    for (const auto& u : r.utilization)
      if (u.first != "issue" && u.second > busiest.second)
        busiest = u;
    if (busiest.second >= 0.7) {
      r.bound = busiest.first;
    } else if (double(sim.issued) / simd_cycles >= 0.7) {
      r.bound = "issue";
    } else {
      std::string top = "dependency";
      for (const auto& [name, f] : r.stalls) {
        if (name == std::string(stall_name(Stall::Issue)) ||
            name == std::string(stall_name(Stall::PipeBusy)))
          continue;
        top = name == stall_name(Stall::WaitVmem)  ? "VMEM latency"
              : name == stall_name(Stall::WaitLds) ? "LDS latency"
              : name == stall_name(Stall::Barrier) ? "barrier"
                                                   : "dependency";
        break;
      }
      r.bound = r.occupancy.waves_per_simd < 4 ? "occupancy (" + top + ")" : top;
    }
  }

  const auto [peak, peak_name] = matching_peak(m, traces, cache);
  if (o.work_flops > 0) {
    r.tflops = o.work_flops / r.seconds / 1e12;
    r.peak = peak;
    r.peak_name = peak_name;
    r.peak_fraction = o.work_flops / r.seconds / peak;
  } else if (o.work_bytes > 0) {
    r.gbs = o.work_bytes / r.seconds / 1e9;
    r.peak = m.dram_gbs * 1e9;
    r.peak_name = "DRAM";
    r.peak_fraction = o.work_bytes / r.seconds / r.peak;
  }
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.host_cpu_seconds = thread_cpu_seconds() - cpu0;
  return r;
}

std::string TimingReport::to_string() const {
  std::string s = fmt::format("modeled on {} ({}): {:.3f} us, bound: {}\n", machine, product,
                              seconds * 1e6, bound);
  if (tflops > 0)
    s += fmt::format("  {:.1f} TFLOP/s modeled, {:.1f}% of the {} peak ({:.1f} TFLOP/s)\n", tflops,
                     100 * peak_fraction, peak_name, peak / 1e12);
  if (gbs > 0)
    s +=
        fmt::format("  {:.1f} GB/s modeled, {:.1f}% of DRAM bandwidth\n", gbs, 100 * peak_fraction);
  s += fmt::format("  compute {:.3f} us, DRAM bound {:.3f} us ({:.1f} MB), L2 bound {:.3f} us "
                   "({:.1f} MB)\n",
                   compute_seconds * 1e6, dram_seconds * 1e6, dram_bytes / 1e6, l2_seconds * 1e6,
                   l2_bytes / 1e6);
  s += fmt::format("  occupancy {} waves/SIMD ({} workgroups/WGP, {} VGPRs allocated, limit: {})\n",
                   occupancy.waves_per_simd, occupancy.workgroups_per_wgp,
                   occupancy.vgprs_allocated, occupancy.limiter);
  s += fmt::format("  {} workgroups, {} on the busiest WGP ({} cycles); {} sampled, {} simulated\n",
                   workgroups, groups_per_wgp, wgp_cycles, sampled, simulated);
  s += "  utilization:";
  for (const auto& [n, f] : utilization)
    s += fmt::format(" {} {:.0f}%,", n, 100 * f);
  s.back() = '\n';
  if (!load_levels.empty()) {
    s += "  vector loads served by:";
    for (const auto& [n, f] : load_levels)
      s += fmt::format(" {} {:.0f}%,", n, 100 * f);
    s += fmt::format(" (compulsory DRAM misses: {:.0f}% of first touches; L2 / MALL shared by "
                     "{} running workgroups as {:.1f} with disjoint data)\n",
                     100 * cold_dram_fraction, concurrent, distinct_streams);
  }
  if (held_l2_bytes + held_mall_bytes > 0)
    s += fmt::format("  held from earlier launches (not moved by DRAM): {:.1f} MB in L2, {:.1f} MB "
                     "in the Infinity Cache\n",
                     held_l2_bytes / 1e6, held_mall_bytes / 1e6);
  s += "  stalls (share of wave-cycles):";
  for (const auto& [n, f] : stalls)
    s += fmt::format(" {} {:.1f}%,", n, 100 * f);
  s.back() = '\n';
  return s;
}

std::string TimingReport::to_json() const {
  auto list = [](const std::vector<std::pair<std::string, double>>& v) {
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i)
      s += fmt::format("{}\"{}\": {:.6g}", i ? ", " : "", v[i].first, v[i].second);
    return s + "}";
  };
  return fmt::format(
      "{{\"machine\": \"{}\", \"kernel\": \"{}\", \"seconds\": {:.6g}, \"bound\": \"{}\", "
      "\"compute_seconds\": {:.6g}, \"dram_seconds\": {:.6g}, \"l2_seconds\": {:.6g}, "
      "\"dram_bytes\": {:.6g}, \"l2_bytes\": {:.6g}, \"tflops\": {:.6g}, \"gbs\": {:.6g}, "
      "\"peak\": {:.6g}, \"peak_name\": \"{}\", \"peak_fraction\": {:.6g}, "
      "\"occupancy\": {{\"waves_per_simd\": {}, \"workgroups_per_wgp\": {}, "
      "\"vgprs_allocated\": {}, \"limiter\": \"{}\"}}, \"workgroups\": {}, "
      "\"groups_per_wgp\": {}, \"wgp_cycles\": {}, \"sampled\": {}, \"simulated\": {}, "
      "\"utilization\": {}, \"stalls\": {}, \"load_levels\": {}, "
      "\"cold_dram_fraction\": {:.6g}, \"concurrent\": {}, \"distinct_streams\": {:.6g}, "
      "\"held_l2_bytes\": {:.6g}, \"held_mall_bytes\": {:.6g}, \"cold_mall_fraction\": {:.6g}}}",
      machine, kernel, seconds, bound, compute_seconds, dram_seconds, l2_seconds, dram_bytes,
      l2_bytes, tflops, gbs, peak, peak_name, peak_fraction, occupancy.waves_per_simd,
      occupancy.workgroups_per_wgp, occupancy.vgprs_allocated, occupancy.limiter, workgroups,
      groups_per_wgp, wgp_cycles, sampled, simulated, list(utilization), list(stalls),
      list(load_levels), cold_dram_fraction, concurrent, distinct_streams, held_l2_bytes,
      held_mall_bytes, cold_mall_fraction);
}

std::string TimingReport::exact() const {
  std::string s = fmt::format("machine {} kernel {} bound {} peak_name {}\n", machine, kernel,
                              bound, peak_name);
  auto num = [&](const char* name, double v) { s += fmt::format("{} {:a}\n", name, v); };
  num("seconds", seconds);
  num("compute_seconds", compute_seconds);
  num("dram_seconds", dram_seconds);
  num("l2_seconds", l2_seconds);
  num("dram_bytes", dram_bytes);
  num("l2_bytes", l2_bytes);
  num("tflops", tflops);
  num("gbs", gbs);
  num("peak", peak);
  num("peak_fraction", peak_fraction);
  num("cold_dram_fraction", cold_dram_fraction);
  num("distinct_streams", distinct_streams);
  // Residency across launches: printed only when something was held (a launch on cold
  // caches prints what it printed before these figures existed).
  if (held_l2_bytes + held_mall_bytes > 0) {
    num("held_l2_bytes", held_l2_bytes);
    num("held_mall_bytes", held_mall_bytes);
    num("cold_mall_fraction", cold_mall_fraction);
  }
  s += fmt::format("concurrent {}\n", concurrent);
  s += fmt::format("occupancy {} {} {} {}\n", occupancy.waves_per_simd,
                   occupancy.workgroups_per_wgp, occupancy.vgprs_allocated, occupancy.limiter);
  s += fmt::format("workgroups {} groups_per_wgp {} sampled {} simulated {} wgp_cycles {}\n",
                   workgroups, groups_per_wgp, sampled, simulated, wgp_cycles);
  for (const auto* list : {&utilization, &stalls, &load_levels})
    for (const auto& [name, v] : *list)
      num(name.c_str(), v);
  return s;
}

} // namespace tw::emu::timing
