#include <runtime/emu/timing/wgp_sim.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>

namespace tw::emu::timing {

const char* stall_name(Stall s) {
  static constexpr const char* names[] = {
      "VALU dependency", "trans dependency",   "WMMA dependency", "SALU dependency", "VMEM wait",
      "LDS wait",        "SMEM wait",          "barrier",         "branch",          "s_nop",
      "pipe busy",       "issue (other waves)"};
  return s < Stall::Count ? names[static_cast<size_t>(s)] : "?";
}

const InstrTiming& TimingCache::get_slow(const DecodedInstr& in) {
  Recent& r = recent_[(reinterpret_cast<uintptr_t>(&in) >> 4) % recent_.size()];
  auto it = map_.find(&in);
  if (it == map_.end())
    it = map_.emplace(&in, classify_timing(in, m_)).first; // node-based: the address stays
  r = {&in, &it->second};
  return it->second;
}

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

struct Group {
  int slot = 0; // queue index
  int waves = 0, live = 0;
  uint64_t last_end = 0;
  std::vector<int> arrived;          // per barrier generation
  std::vector<uint64_t> arrival_max; // latest signal of the generation
};

// The completion times of a wave's operations on one counter, in issue order (non-decreasing):
// an s_wait_* allows at most 63 outstanding (6-bit counts), so the last 64 are all it reads.
struct Pending {
  std::array<uint64_t, 64> ring{};
  uint64_t n = 0; // operations so far
  uint64_t back() const { return ring[(n - 1) & 63]; }
  // Completion of operation i (one of the last 64).
  uint64_t at(uint64_t i) const { return ring[i & 63]; }
  void push(uint64_t t) { ring[n++ & 63] = t; }
};

struct Wave {
  size_t idx = 0; // its place in the scheduler's arrays (Sim::next_issue_, Sim::simd_of_)
  int simd = 0;
  size_t cu = 0; // simd / simds_per_cu (no division per instruction)
  const TraceEvents* events = nullptr;
  const InstrTiming* timing = nullptr; // of the current instruction
  size_t pc = 0;
  int group = 0;
  uint64_t start = 0;
  uint64_t base = 0;  // earliest issue from its own previous instruction
  uint64_t ready = 0; // ... and its operands / counters / barrier
  Stall reason = Stall::Issue;
  bool blocked = false, done = false;
  int signals = 0;
  std::array<uint64_t, kRegIds> reg_ready{};
  std::array<Stall, kRegIds> reg_reason{};
  std::array<uint64_t, 256> acc_ready{};  // WMMA D feeding the next WMMA's C
  std::array<Pending, kCounters> pending; // completion times per counter
};

Stall wait_reason(Counter c) {
  return c == Counter::Ds ? Stall::WaitLds : c == Counter::Km ? Stall::WaitSmem : Stall::WaitVmem;
}

class Sim {
public:
  Sim(const MachineModel& m, const std::vector<const WorkgroupTrace*>& queue, int resident,
      TimingCache& cache, const LevelModel* levels)
      : m_(m), queue_(queue), resident_(resident), cache_(cache), levels_(levels) {
    const int simds = m.simds_per_wgp();
    issue_free_.assign(simds, 0);
    valu_free_.assign(simds, 0);
    trans_free_.assign(simds, 0);
    salu_free_.assign(simds, 0);
    simd_waves_.assign(simds, 0);
    simd_list_.assign(simds, {});
    simd_best_t_.assign(simds, kNever);
    simd_best_i_.assign(simds, 0);
    simd_dirty_.assign(simds, 0);
    lds_free_.assign(simds / m.simds_per_cu, 0);
    vmem_free_.assign(simds / m.simds_per_cu, 0);
    r_.finish.assign(queue.size(), 0);
  }

  WgpSimResult run() {
    for (int i = 0; i < resident_ && next_ < queue_.size(); ++i)
      admit(0);
    // The earliest issue cycle, the oldest wave on ties (indices are in admission order):
    // each SIMD keeps the earliest of its own waves, recomputed only when one of them changed
    // (the SIMD that issued: its pipes moved on, so all its waves are refreshed; a barrier
    // release or an admission elsewhere); the choice is the earliest of the SIMDs' picks.
    while (true) {
      size_t best_i = 0;
      uint64_t best_t = kNever;
      for (size_t s = 0; s < simd_list_.size(); ++s) {
        if (simd_dirty_[s])
          rescan(s, false);
        if (simd_best_t_[s] < best_t ||
            (simd_best_t_[s] == best_t && best_t != kNever && simd_best_i_[s] < best_i)) {
          best_t = simd_best_t_[s];
          best_i = simd_best_i_[s];
        }
      }
      if (best_t == kNever) {
        if (live_groups_ == 0)
          break;
        throw std::runtime_error("timing model: the waves of a workgroup deadlock at a barrier");
      }
      Wave& best = *waves_[best_i];
      const size_t simd = static_cast<size_t>(best.simd);
      issue(best, best_t);
      if (finished_ > 0) { // drop the waves of finished workgroups from the scan
        size_t kept = 0;
        for (size_t i = 0; i < waves_.size(); ++i)
          if (!waves_[i]->done) {
            waves_[kept] = std::move(waves_[i]);
            waves_[kept]->idx = kept;
            next_issue_[kept] = next_issue_[i];
            ready_of_[kept] = ready_of_[i];
            unit_of_[kept] = unit_of_[i];
            simd_of_[kept] = simd_of_[i];
            ++kept;
          }
        waves_.resize(kept);
        next_issue_.resize(kept);
        ready_of_.resize(kept);
        unit_of_.resize(kept);
        simd_of_.resize(kept);
        for (auto& l : simd_list_)
          l.clear();
        for (size_t i = 0; i < kept; ++i)
          simd_list_[static_cast<size_t>(simd_of_[i])].push_back(static_cast<uint32_t>(i));
        std::fill(simd_dirty_.begin(), simd_dirty_.end(), char(1));
        finished_ = 0;
      }
      rescan(simd, true);
    }
    return r_;
  }

private:
  const InstrTiming& cur(const Wave& w) const { return *w.timing; }

  // The earliest issue among SIMD s's waves (the first in admission order on ties),
  // refreshing each first when its SIMD's pipes moved.
  void rescan(size_t s, bool refresh_all) {
    // Each unit's earliest issue on this SIMD from its pipes (issue_time without the wave).
    std::array<uint64_t, static_cast<size_t>(Unit::Count)> from; // set below when used
    if (refresh_all) {
      const uint64_t issue = issue_free_[s], valu = std::max(issue, valu_free_[s]);
      from.fill(issue);
      from[static_cast<size_t>(Unit::Valu)] = from[static_cast<size_t>(Unit::Wmma)] = valu;
      from[static_cast<size_t>(Unit::Trans)] = std::max(valu, trans_free_[s]);
      from[static_cast<size_t>(Unit::Salu)] = std::max(issue, salu_free_[s]);
    }
    uint64_t t = kNever;
    size_t at = 0;
    for (const uint32_t i : simd_list_[s]) {
      if (refresh_all && ready_of_[i] != kNever) // not done, not at a barrier
        next_issue_[i] = std::max(ready_of_[i], from[unit_of_[i]]);
      if (next_issue_[i] < t) {
        t = next_issue_[i];
        at = i;
      }
    }
    simd_best_t_[s] = t;
    simd_best_i_[s] = at;
    simd_dirty_[s] = 0;
  }

  // After every change of a wave's readiness, instruction or state: its issue cycle, and
  // what rescan needs to recompute it (contiguous: no visit of the wave itself).
  void refresh(const Wave& w) {
    const bool waits = w.done || w.blocked;
    next_issue_[w.idx] = waits ? kNever : issue_time(w);
    ready_of_[w.idx] = waits ? kNever : w.ready;
    unit_of_[w.idx] = waits ? uint8_t(0) : static_cast<uint8_t>(cur(w).unit);
    simd_dirty_[static_cast<size_t>(w.simd)] = 1;
  }

  uint64_t issue_time(const Wave& w) const {
    const InstrTiming& t = cur(w);
    uint64_t e = std::max(w.ready, issue_free_[w.simd]);
    if (t.unit == Unit::Valu || t.unit == Unit::Wmma || t.unit == Unit::Trans)
      e = std::max(e, valu_free_[w.simd]);
    if (t.unit == Unit::Trans)
      e = std::max(e, trans_free_[w.simd]);
    if (t.unit == Unit::Salu)
      e = std::max(e, salu_free_[w.simd]);
    return e;
  }

  void admit(uint64_t at) {
    const int slot = static_cast<int>(next_++);
    const WorkgroupTrace& tr = *queue_[static_cast<size_t>(slot)];
    Group g;
    g.slot = slot;
    g.waves = g.live = static_cast<int>(tr.waves.size());
    groups_.push_back(g);
    const int gi = static_cast<int>(groups_.size()) - 1;
    ++live_groups_;
    for (const auto& ev : tr.waves) {
      auto w = std::make_unique<Wave>();
      w->events = &ev;
      w->group = gi;
      w->simd = static_cast<int>(std::min_element(simd_waves_.begin(), simd_waves_.end()) -
                                 simd_waves_.begin());
      w->cu = static_cast<size_t>(w->simd / m_.simds_per_cu);
      w->idx = waves_.size();
      ++simd_waves_[static_cast<size_t>(w->simd)];
      w->start = w->base = w->ready = at;
      Wave& added = *w;
      waves_.push_back(std::move(w));
      next_issue_.push_back(kNever);
      ready_of_.push_back(kNever);
      unit_of_.push_back(0);
      simd_of_.push_back(added.simd);
      simd_list_[static_cast<size_t>(added.simd)].push_back(static_cast<uint32_t>(added.idx));
      simd_dirty_[static_cast<size_t>(added.simd)] = 1;
      if (ev.empty()) {
        added.done = true;
        end_wave(added, at);
      } else {
        prepare(added);
      }
    }
  }

  // Computes the wave's readiness for its current instruction.
  void prepare(Wave& w) {
    w.timing = &cache_.get(*(*w.events)[w.pc].in);
    const InstrTiming& t = *w.timing;
    w.ready = w.base;
    w.reason = Stall::Issue;
    auto need = [&](uint64_t at, Stall why) {
      if (at > w.ready) {
        w.ready = at;
        w.reason = why;
      }
    };
    for (uint16_t r : t.reads) {
      if (t.unit == Unit::Wmma && r >= t.wmma_c_begin && r < t.wmma_c_end)
        need(w.acc_ready[r], w.reg_reason[r]);
      else
        need(w.reg_ready[r], w.reg_reason[r]);
    }
    for (uint16_t r : t.writes) // a load still in flight into this register
      if (w.reg_reason[r] == Stall::WaitVmem || w.reg_reason[r] == Stall::WaitLds)
        need(w.reg_ready[r], w.reg_reason[r]);
    for (size_t c = 0; c < kCounters; ++c) {
      if (t.wait[c] < 0)
        continue;
      const Pending& q = w.pending[c];
      const uint64_t allowed = static_cast<uint64_t>(t.wait[c]); // < 64
      if (q.n > allowed)
        need(q.at(q.n - 1 - allowed), wait_reason(static_cast<Counter>(c)));
    }
    if (t.barrier_wait) {
      if (t.barrier_signal && w.signals == barrier_index(w)) // s_barrier: signal and wait
        signal(w, w.base);
      check_barrier(w);
    }
    refresh(w);
  }

  int barrier_index(const Wave& w) const { return w.signals; }

  void signal(Wave& w, uint64_t at) {
    Group& g = groups_[static_cast<size_t>(w.group)];
    const size_t gen = static_cast<size_t>(w.signals++);
    if (g.arrived.size() <= gen) {
      g.arrived.resize(gen + 1, 0);
      g.arrival_max.resize(gen + 1, 0);
    }
    ++g.arrived[gen];
    g.arrival_max[gen] = std::max(g.arrival_max[gen], at);
    release_waiters(w.group);
  }

  // A wave at s_barrier_wait after its n-th signal waits for generation n - 1.
  void check_barrier(Wave& w) {
    const Group& g = groups_[static_cast<size_t>(w.group)];
    const size_t gen = static_cast<size_t>(std::max(w.signals, 1) - 1);
    const int ended = g.waves - g.live;
    if (w.signals == 0 || (gen < g.arrived.size() && g.arrived[gen] + ended >= g.waves)) {
      w.blocked = false;
      if (w.signals > 0) {
        const uint64_t release =
            std::max(g.arrival_max[gen], ended ? g.last_end : 0) + uint64_t(m_.barrier_latency);
        if (release > w.ready) {
          w.ready = release;
          w.reason = Stall::Barrier;
        }
      }
    } else {
      w.blocked = true;
    }
    refresh(w);
  }

  void release_waiters(int group) {
    for (auto& wp : waves_)
      if (wp->group == group && wp->blocked && !wp->done)
        check_barrier(*wp);
  }

  void end_wave(Wave& w, uint64_t at) {
    Group& g = groups_[static_cast<size_t>(w.group)];
    --g.live;
    --simd_waves_[static_cast<size_t>(w.simd)];
    g.last_end = std::max(g.last_end, at);
    r_.wave_cycles += double(at - w.start);
    if (g.live == 0) {
      r_.finish[static_cast<size_t>(g.slot)] = g.last_end;
      r_.cycles = std::max(r_.cycles, g.last_end);
      --live_groups_;
      ++finished_;
      if (next_ < queue_.size())
        admit(g.last_end);
    } else {
      release_waiters(w.group);
    }
  }

  void issue(Wave& w, uint64_t at) {
    const TraceEvent& ev = (*w.events)[w.pc];
    const InstrTiming& t = *w.timing;
    // Stall accounting: from the wave's own earliest cycle to its issue.
    r_.stall[static_cast<size_t>(w.reason)] += double(w.ready - w.base);
    if (at > w.ready) {
      const bool pipe = (t.unit == Unit::Valu || t.unit == Unit::Wmma || t.unit == Unit::Trans ||
                         t.unit == Unit::Salu) &&
                        at > issue_free_[w.simd];
      r_.stall[static_cast<size_t>(pipe ? Stall::PipeBusy : Stall::Issue)] += double(at - w.ready);
    }
    ++r_.issued;
    issue_free_[w.simd] = at + 1;
    uint64_t next_base = at + 1;
    const size_t cu = w.cu;
    auto write_regs = [&](uint64_t ready, Stall why) {
      for (uint16_t r : t.writes) {
        w.reg_ready[r] = ready;
        w.reg_reason[r] = why;
        if (r < 256)
          w.acc_ready[r] = ready; // a WMMA reading it as C waits the same (WMMA: below)
      }
    };
    auto complete = [&](Counter c, uint64_t done) {
      Pending& q = w.pending[static_cast<size_t>(c)];
      q.push(q.n == 0 ? done : std::max(done, q.back()));
      return q.back();
    };
    switch (t.unit) {
    case Unit::Valu:
      valu_free_[w.simd] = at + t.occupancy;
      r_.valu_busy += t.occupancy;
      write_regs(at + t.latency, Stall::DepValu);
      break;
    case Unit::Trans:
      valu_free_[w.simd] = at + 1;
      trans_free_[w.simd] = at + t.occupancy;
      r_.trans_busy += t.occupancy;
      write_regs(at + t.latency, Stall::DepTrans);
      break;
    case Unit::Wmma:
      valu_free_[w.simd] = at + t.occupancy;
      r_.wmma_busy += t.occupancy;
      write_regs(at + t.latency, Stall::DepWmma);
      for (uint16_t r : t.writes)
        if (r < 256)
          w.acc_ready[r] = at + t.occupancy;
      break;
    case Unit::Salu:
      salu_free_[w.simd] = at + 1;
      write_regs(at + t.latency, Stall::DepSalu);
      break;
    case Unit::Smem:
      write_regs(complete(Counter::Km, at + uint64_t(m_.smem_latency)), Stall::WaitSmem);
      break;
    case Unit::Vmem: {
      const uint64_t start = std::max(at, vmem_free_[cu]);
      // The address processing or the lines, whichever takes longer.
      const double cycles = std::max(double(ev.lines) / m_.vmem_lines_per_clk,
                                     double(ev.addresses) / m_.vmem_addresses_per_clk);
      const uint64_t busy = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(cycles)));
      vmem_free_[cu] = start + busy;
      r_.vmem_busy += busy;
      uint64_t latency = uint64_t(m_.l2_latency);
      if (t.counter == Counter::Load && levels_ && ev.lines > 0) {
        const bool first_round = groups_[static_cast<size_t>(w.group)].slot < resident_;
        const Level l = levels_->level(ev.reuse, first_round);
        ++r_.loads_by_level[static_cast<size_t>(l)];
        latency = uint64_t(levels_->latency(l));
      }
      const uint64_t done = complete(t.counter, start + busy + latency);
      write_regs(done, Stall::WaitVmem);
      break;
    }
    case Unit::Lds: {
      const uint64_t start = std::max(at, lds_free_[cu]);
      const uint64_t busy = std::max<uint32_t>(1, ev.lds_cycles);
      lds_free_[cu] = start + busy;
      r_.lds_busy += busy;
      write_regs(complete(Counter::Ds, start + busy + uint64_t(m_.lds_latency)), Stall::WaitLds);
      break;
    }
    case Unit::Branch:
      if (w.pc + 1 < w.events->size() && (*w.events)[w.pc + 1].in->pc != ev.in->pc + ev.in->size) {
        next_base = at + uint64_t(m_.branch_taken);
        r_.stall[static_cast<size_t>(Stall::Branch)] += double(m_.branch_taken - 1);
      }
      break;
    case Unit::Nop:
      next_base = at + t.occupancy;
      r_.stall[static_cast<size_t>(Stall::Nop)] += double(t.occupancy - 1);
      break;
    case Unit::Barrier:
      if (t.barrier_signal && !t.barrier_wait)
        signal(w, at);
      break;
    default:
      break;
    }
    if (t.unit == Unit::End || ++w.pc >= w.events->size()) {
      w.done = true;
      next_issue_[w.idx] = kNever;
      ready_of_[w.idx] = kNever;
      simd_dirty_[static_cast<size_t>(w.simd)] = 1;
      end_wave(w, at + 1);
      return;
    }
    w.base = next_base;
    prepare(w);
  }

  const MachineModel& m_;
  const std::vector<const WorkgroupTrace*>& queue_;
  int resident_;
  TimingCache& cache_;
  const LevelModel* levels_;
  size_t next_ = 0;
  int live_groups_ = 0, finished_ = 0;
  std::vector<std::unique_ptr<Wave>> waves_; // in admission order
  std::vector<uint64_t> next_issue_;         // per wave: earliest issue cycle (kNever: done
                                             // or at a barrier)
  std::vector<int> simd_of_;                 // per wave: its SIMD
  std::vector<uint64_t> ready_of_;           // per wave: Wave::ready (kNever: done or at a barrier)
  std::vector<uint8_t> unit_of_;             // per wave: the unit of its current instruction
  std::vector<std::vector<uint32_t>> simd_list_; // per SIMD: its waves' indices, oldest first
  std::vector<uint64_t> simd_best_t_;            // per SIMD: its earliest issue cycle
  std::vector<size_t> simd_best_i_;              // ... and that wave's index
  std::vector<char> simd_dirty_;                 // per SIMD: a wave's issue cycle changed
  std::vector<Group> groups_;
  std::vector<uint64_t> issue_free_, valu_free_, trans_free_, salu_free_, lds_free_, vmem_free_;
  std::vector<int> simd_waves_;
  WgpSimResult r_;
};

} // namespace

WgpSimResult simulate_wgp(const MachineModel& m, const std::vector<const WorkgroupTrace*>& queue,
                          int resident, TimingCache& cache, const LevelModel* levels) {
  if (resident < 1)
    throw std::invalid_argument("simulate_wgp: resident workgroups must be >= 1");
  return Sim(m, queue, resident, cache, levels).run();
}

} // namespace tw::emu::timing
