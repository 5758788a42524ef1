#include <runtime/emu/timing/wgp_sim.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
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

namespace {
// SimOp::reads: a WMMA's C register (read through the accumulator path).
constexpr uint16_t kAccRead = 0x8000;
static_assert(kRegIds < kAccRead, "register ids below the accumulator flag");
} // namespace

const TimingCache::Entry& TimingCache::get_slow(const DecodedInstr& in) {
  auto it = map_.find(&in);
  if (it == map_.end()) {
    it = map_.emplace(&in, Entry{}).first;
    Entry& e = it->second;
    e.timing = classify_timing(in, m_);
    const InstrTiming& t = e.timing;
    for (uint16_t reg : t.reads) // a WMMA's C through the accumulator path
      e.regs.push_back(t.unit == Unit::Wmma && reg >= t.wmma_c_begin && reg < t.wmma_c_end
                           ? static_cast<uint16_t>(kAccRead | reg)
                           : reg);
    // The simulation reads a WMMA's D as the next WMMA's C wmma_result_latency earlier than
    // its latency: every WMMA's latency must be its occupancy plus that.
    if (t.unit == Unit::Wmma && int(t.latency) != int(t.occupancy) + m_.wmma_result_latency)
      throw std::logic_error("timing model: a WMMA latency is not its occupancy plus the result "
                             "latency");
    e.regs.insert(e.regs.end(), t.writes.begin(), t.writes.end());
    if (e.regs.size() >= 0xffff)
      throw std::runtime_error("timing model: an instruction with 65535 or more registers");
    e.id = static_cast<uint32_t>(ops_.size());
    instrs_.push_back(&in);
    SimOp& o = ops_.emplace_back();
    o.unit = t.unit;
    o.pipe = t.unit == Unit::Valu || t.unit == Unit::Wmma ? 1
             : t.unit == Unit::Trans                      ? 2
             : t.unit == Unit::Salu                       ? 3
                                                          : 0;
    o.counter = t.counter;
    o.barrier_signal = t.barrier_signal;
    o.barrier_wait = t.barrier_wait;
    o.occupancy = t.occupancy;
    o.latency = t.latency;
    o.wait = t.wait;
    o.waits = std::any_of(t.wait.begin(), t.wait.end(), [](int16_t w) { return w >= 0; });
    o.n_reads = static_cast<uint16_t>(t.reads.size());
    o.n_writes = static_cast<uint16_t>(t.writes.size());
    o.reads = e.regs.data();
    o.writes = e.regs.data() + t.reads.size();
  }
  if (map_.size() == 1)
    front_base_ = reinterpret_cast<uintptr_t>(&in);
  const size_t slot = front_slot(in);
  if (slot < kMaxFront) {
    if (slot >= by_pc_.size())
      by_pc_.resize(std::max<size_t>(slot + 1, 2 * by_pc_.size()));
    by_pc_[slot] = {&in, &it->second};
  }
  return it->second;
}

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// A register's readiness: the cycle it can be read (low 56 bits) and the stall reason of its
// writer (high 8 bits), one load per register read.
constexpr unsigned kReasonShift = 56;
constexpr uint64_t kCycleMask = (uint64_t(1) << kReasonShift) - 1;
uint64_t packed(uint64_t cycle, Stall why) {
  return uint64_t(why) << kReasonShift | cycle;
}
// The scheduler compares (issue cycle, wave index) as one key, cycle << 16 | index: the
// simulated cycles stay below 2^47 (issue checks) and the waves below 2^16 (admit checks).
constexpr unsigned kIndexBits = 16;
constexpr uint64_t kMaxCycle = uint64_t(1) << 47;
// A wave that cannot issue (kNever) has a key at or above this one.
constexpr uint64_t kNeverKey = kNever << kIndexBits;
// prepare() orders (ready cycle, place among the registers) as cycle << 16 | (0xffff - place):
// register readiness stays below 2^48 (write_regs checks), a SimOp has < 0xffff registers.
constexpr unsigned kPlaceBits = 16;
constexpr uint64_t kPlaceMask = (uint64_t(1) << kPlaceBits) - 1;
constexpr uint64_t kMaxReady = uint64_t(1) << 48;

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
  size_t cu = 0;                     // simd / simds_per_cu (no division per instruction)
  const uint32_t* program = nullptr; // its trace's words: per instruction its place (and taken)
  const uint32_t* mem = nullptr;     // per memory instruction its pipe / level (build_programs)
  size_t mem_pc = 0;
  size_t n_events = 0;
  const SimOp* op = nullptr; // of the current instruction
  size_t pc = 0;
  int group = 0;
  uint64_t start = 0;
  uint64_t load_horizon = 0; // the latest ready cycle a load (VMEM / LDS) wrote so far
  uint64_t base = 0;         // earliest issue from its own previous instruction
  uint64_t ready = 0;        // ... and its operands / counters / barrier
  Stall reason = Stall::Issue;
  bool blocked = false, done = false;
  int signals = 0;
  // Per register id its packed readiness. A WMMA reading a register as C (kAccRead) that a
  // WMMA wrote (reason DepWmma) reads it wmma_result_latency earlier: a WMMA's D feeds the
  // next WMMA's C without the extra latency.
  std::array<uint64_t, kRegIds> reg{};
  std::array<Pending, kCounters> pending; // completion times per counter
};

Stall wait_reason(Counter c) {
  return c == Counter::Ds ? Stall::WaitLds : c == Counter::Km ? Stall::WaitSmem : Stall::WaitVmem;
}

// kFastForward: with the steady-state fast-forward (without it the issue loop has no trace
// of it).
template <bool kFastForward>
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
    simd_best_.assign(simds, kNever);
    four_simds_ = simds == 4;
    if (simds > 64)
      throw std::invalid_argument("simulate_wgp: at most 64 SIMDs per WGP");
    lds_free_.assign(simds / m.simds_per_cu, 0);
    vmem_free_.assign(simds / m.simds_per_cu, 0);
    r_.finish.assign(queue.size(), 0);
    // Every queued trace's words index one decoded program: its executed instructions are
    // classified once, into a SimOp table by place, which the words index as they are.
    const DecodedInstr* program = queue.empty() ? nullptr : queue[0]->program;
    const size_t program_size = queue.empty() ? 0 : queue[0]->program_size;
    op_by_place_.resize(program_size);
    std::vector<uint8_t> classified(program_size, 0);
    for (const WorkgroupTrace* tr : queue) {
      if (tr->program != program || tr->program_size != program_size ||
          tr->executed.size() != program_size)
        throw std::invalid_argument("simulate_wgp: the queued traces are not of one decoded "
                                    "program (WorkgroupTrace::program, executed)");
      if (programs_.find(tr) != programs_.end())
        continue;
      for (size_t place = 0; place < program_size; ++place)
        if (tr->executed[place] > 0 && !classified[place]) {
          op_by_place_[place] = cache_.ops()[cache_.id(program[place])];
          classified[place] = 1;
        }
      build_programs(*tr);
    }
    // The register lists in place order, next to each other like the ops (the cache's lists
    // are scattered over the heap): a loop reads neighbouring lists.
    size_t total = 0;
    for (size_t place = 0; place < program_size; ++place)
      if (classified[place])
        total += size_t(op_by_place_[place].n_reads) + op_by_place_[place].n_writes;
    regs_.resize(total);
    size_t at = 0;
    for (size_t place = 0; place < program_size; ++place)
      if (classified[place]) {
        SimOp& o = op_by_place_[place];
        const size_t n = size_t(o.n_reads) + o.n_writes; // the writes follow the reads (SimOp)
        std::copy(o.reads, o.reads + n, regs_.data() + at);
        o.reads = regs_.data() + at;
        o.writes = o.reads + o.n_reads;
        at += n;
      }
    ops_ = op_by_place_.data();
    acc_early_ = static_cast<uint64_t>(std::max(m.wmma_result_latency, 0));
  }

  WgpSimResult run() {
    for (int i = 0; i < resident_ && next_ < queue_.size(); ++i)
      admit(0);
    // The earliest issue cycle, the oldest wave on ties (indices are in admission order):
    // each SIMD keeps the earliest of its own waves, recomputed only when one of them changed
    // (the SIMD that issued: its pipes moved on, so all its waves are refreshed; a barrier
    // release or an admission elsewhere); the choice is the earliest of the SIMDs' picks.
    // Keys (cycle << 16 | wave index) order exactly so: a minimum, no tie test.
    while (true) {
      for (uint64_t d = dirty_; d; d &= d - 1)
        rescan(static_cast<size_t>(std::countr_zero(d)), false);
      uint64_t best = kNever;
      const uint64_t* b = simd_best_.data();
      if (four_simds_) // both machines: 2 CUs x 2 SIMDs
        best = std::min(std::min(b[0], b[1]), std::min(b[2], b[3]));
      else
        for (size_t s = 0; s < simd_best_.size(); ++s)
          best = std::min(best, b[s]);
      if (best >= kNeverKey) { // every wave done or at a barrier
        if (live_groups_ == 0)
          break;
        throw std::runtime_error("timing model: the waves of a workgroup deadlock at a barrier");
      }
      Wave& w = *waves_[best & ((uint64_t(1) << kIndexBits) - 1)];
      const size_t simd = static_cast<size_t>(w.simd);
      const uint64_t at = best >> kIndexBits;
      issue(w, at);
      if (finished_ > 0) { // drop the waves of finished workgroups from the scan
        size_t kept = 0;
        for (size_t i = 0; i < waves_.size(); ++i)
          if (!waves_[i]->done) {
            waves_[kept] = std::move(waves_[i]);
            waves_[kept]->idx = kept;
            next_issue_[kept] = next_issue_[i];
            unit_of_[kept] = unit_of_[i];
            simd_of_[kept] = simd_of_[i];
            ++kept;
          }
        waves_.resize(kept);
        next_issue_.resize(kept);
        unit_of_.resize(kept);
        simd_of_.resize(kept);
        for (auto& l : simd_list_)
          l.clear();
        for (size_t i = 0; i < kept; ++i)
          simd_list_[static_cast<size_t>(simd_of_[i])].push_back(static_cast<uint32_t>(i));
        dirty_ = simd_best_.size() == 64 ? ~uint64_t(0) : (uint64_t(1) << simd_best_.size()) - 1;
        finished_ = 0;
        if constexpr (kFastForward)
          detector_.clear(); // other waves: the marks before are not comparable
      }
      rescan(simd, true);
      // A period mark: the oldest wave's taken branch (pc moved past it; a wave of a finished
      // workgroup may have moved in its place).
      if constexpr (kFastForward)
        if (waves_[0].get() == &w && !w.done && (w.program[w.pc - 1] & kTaken)) [[unlikely]]
          fast_forward(at);
    }
    WgpSimResult out = r_;
    for (size_t s = 0; s < kStalls; ++s) // integer sums below 2^53: exact as doubles
      out.stall[s] = double(stall_[s]);
    out.wave_cycles = double(wave_cycles_);
    return out;
  }

private:
  // A wave's program words are its recorded words (capture.hpp: the instruction's place in
  // the decoded program, ops_'s index, and kTakenBranch); per LDS / vector memory instruction
  // in order, a memory word: its pipe cycles (bits 0-26) and for a load the level serving it
  // when its workgroup is in the first round (bits 27-28) and later (29-30), bit 31 set when
  // it counts as a load served by a level. Built once per trace from its MemoryEvents (a
  // queue repeats the sampled traces): replaying reads 4 bytes per instruction, 4 per memory
  // instruction and the op table.
  static constexpr uint32_t kTaken = kTakenBranch;
  static constexpr uint32_t kBusyMask = (uint32_t(1) << 27) - 1;
  static constexpr unsigned kFirstShift = 27, kLaterShift = 29;
  static constexpr uint32_t kCountsLevel = uint32_t(1) << 31;
  void build_programs(const WorkgroupTrace& tr) {
    std::vector<std::vector<uint32_t>>& progs = programs_[&tr];
    progs.resize(tr.waves.size());
    for (size_t wv = 0; wv < tr.waves.size(); ++wv) {
      std::vector<uint32_t>& mem = progs[wv];
      mem.reserve(tr.waves[wv].memory.size());
      for (const MemoryEvent& ev : tr.waves[wv].memory) {
        if (ev.instr >= op_by_place_.size())
          throw std::invalid_argument("simulate_wgp: a memory event outside the program");
        const SimOp& t = op_by_place_[ev.instr];
        uint64_t busy = 0;
        uint32_t level = 0;
        if (t.unit == Unit::Vmem) {
          // The address processing or the lines, whichever takes longer.
          const double cycles = std::max(double(ev.lines) / m_.vmem_lines_per_clk,
                                         double(ev.addresses) / m_.vmem_addresses_per_clk);
          busy = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(cycles)));
          if (t.counter == Counter::Load && levels_ && ev.lines > 0)
            level = kCountsLevel | uint32_t(levels_->level(ev.reuse, true)) << kFirstShift |
                    uint32_t(levels_->level(ev.reuse, false)) << kLaterShift;
        } else if (t.unit == Unit::Lds) {
          busy = std::max<uint32_t>(1, ev.lds_cycles);
        } else {
          throw std::invalid_argument("simulate_wgp: a memory event of an instruction neither "
                                      "LDS nor vector memory");
        }
        if (busy > kBusyMask)
          throw std::runtime_error("timing model: a memory instruction's pipe cycles exceed 2^27");
        mem.push_back(static_cast<uint32_t>(busy) | level);
      }
    }
  }

  // The earliest issue among SIMD s's waves as a key (the first in admission order on ties),
  // refreshing each first when its SIMD's pipes moved.
  void rescan(size_t s, bool refresh_all) {
    // Each unit's earliest issue on this SIMD from its pipes (issue_time without the wave).
    // By the pipe class of the wave's instruction (SimOp::pipe).
    std::array<uint64_t, 4> from; // set below when used
    if (refresh_all) {
      const uint64_t issue = issue_free_[s], valu = std::max(issue, valu_free_[s]);
      from = {issue, valu, std::max(valu, trans_free_[s]), std::max(issue, salu_free_[s])};
    }
    // A wave's issue cycle is max(ready, from[pipe]) (issue_time); the pipes only move later,
    // so the new one is the maximum of the old one and the new from[pipe] (the issuing wave's
    // refresh left its ready cycle there). A wave that cannot issue has next_issue_ = kNever
    // (refresh), which the maximum keeps, and a key at or above kNeverKey.
    uint64_t best = kNever;
    uint64_t* next = next_issue_.data();
    const uint8_t* unit = unit_of_.data();
    const std::vector<uint32_t>& list = simd_list_[s];
    if (refresh_all) {
      // The maximum without a branch, the store unconditional: written as std::max the
      // compiler skips the store when the wave's cycle is already later, a branch that
      // mispredicted on a quarter of the simulation's mispredictions (callgrind, f16 GEMM).
      for (const uint32_t i : list) {
        const uint64_t a = next[i], b = from[unit[i]];
        const uint64_t t = a ^ ((a ^ b) & (uint64_t(0) - uint64_t(a < b)));
        next[i] = t;
        best = std::min(best, t << kIndexBits | i);
      }
    } else {
      for (const uint32_t i : list)
        best = std::min(best, next[i] << kIndexBits | i);
    }
    simd_best_[s] = best;
    dirty_ &= ~(uint64_t(1) << s);
  }

  // After every change of a wave's readiness, instruction or state: its issue cycle, and
  // what rescan needs to recompute it (contiguous: no visit of the wave itself). Without
  // `issue_cycle` the caller rescans the wave's SIMD with refresh_all, which completes its
  // ready cycle to the issue cycle.
  void refresh(const Wave& w, bool issue_cycle = true) {
    const bool waits = w.done || w.blocked;
    next_issue_[w.idx] = waits ? kNever : issue_cycle ? issue_time(w) : w.ready;
    unit_of_[w.idx] = waits ? uint8_t(0) : w.op->pipe;
    dirty_ |= uint64_t(1) << w.simd;
  }

  uint64_t issue_time(const Wave& w) const {
    const Unit u = w.op->unit;
    uint64_t e = std::max(w.ready, issue_free_[w.simd]);
    if (u == Unit::Valu || u == Unit::Wmma || u == Unit::Trans)
      e = std::max(e, valu_free_[w.simd]);
    if (u == Unit::Trans)
      e = std::max(e, trans_free_[w.simd]);
    if (u == Unit::Salu)
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
    const std::vector<std::vector<uint32_t>>& progs = programs_.at(&tr);
    for (size_t wv = 0; wv < tr.waves.size(); ++wv) {
      const TraceWords& ev = tr.waves[wv].words;
      if (waves_.size() >= (size_t(1) << kIndexBits))
        throw std::runtime_error("timing model: more than 65536 waves resident on one WGP");
      auto w = std::make_unique<Wave>();
      w->n_events = ev.size();
      w->program = ev.data();
      w->mem = progs[wv].data();
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
      unit_of_.push_back(0);
      simd_of_.push_back(added.simd);
      simd_list_[static_cast<size_t>(added.simd)].push_back(static_cast<uint32_t>(added.idx));
      dirty_ |= uint64_t(1) << added.simd;
      if (ev.empty()) {
        added.done = true;
        end_wave(added, at);
      } else {
        prepare(added);
      }
    }
  }

  // Computes the wave's readiness for its current instruction (issue_cycle: see refresh).
  [[gnu::always_inline]] void prepare(Wave& w, bool issue_cycle = true) {
    w.op = &ops_[w.program[w.pc] & ~kTaken];
    const SimOp& t = *w.op;
    // The latest of the base, the sources and the loads still in flight into a destination,
    // the first of them on ties (its reason counts): as keys cycle << 16 | (0xffff - place)
    // (the base at place 0, then the reads, then the writes), whose maximum is that one,
    // without a branch per register.
    uint64_t best = w.base << kPlaceBits | kPlaceMask;
    const uint16_t* regs = t.reads; // the writes follow the reads (SimOp)
    if (t.unit == Unit::Wmma) {     // only a WMMA reads through the accumulator path
      for (uint32_t i = 0; i < t.n_reads; ++i) {
        const uint16_t r = regs[i];
        const uint64_t v = w.reg[r & ~kAccRead];
        const bool acc = (r & kAccRead) && static_cast<Stall>(v >> kReasonShift) == Stall::DepWmma;
        const uint64_t at = (v & kCycleMask) - (acc ? acc_early_ : 0);
        best = std::max(best, at << kPlaceBits | (kPlaceMask - 1 - i));
      }
    } else {
      for (uint32_t i = 0; i < t.n_reads; ++i)
        best = std::max(best, (w.reg[regs[i]] & kCycleMask) << kPlaceBits | (kPlaceMask - 1 - i));
    }
    // A destination only counts when its load completes after that maximum (its place
    // comes after the reads'): never when no load of the wave completes that late.
    if (w.load_horizon > best >> kPlaceBits)
      for (uint32_t i = t.n_reads; i < uint32_t(t.n_reads) + t.n_writes; ++i) {
        const uint64_t v = w.reg[regs[i]];
        const Stall why = static_cast<Stall>(v >> kReasonShift);
        const uint64_t key = (v & kCycleMask) << kPlaceBits | (kPlaceMask - 1 - i);
        best = std::max(best, why == Stall::WaitVmem || why == Stall::WaitLds ? key : 0);
      }
    uint64_t ready = best >> kPlaceBits;
    const uint32_t place = static_cast<uint32_t>(kPlaceMask - (best & kPlaceMask));
    Stall reason = place == 0
                       ? Stall::Issue
                       : static_cast<Stall>(w.reg[regs[place - 1] & ~kAccRead] >> kReasonShift);
    auto need = [&](uint64_t at, Stall why) {
      if (at > ready) {
        ready = at;
        reason = why;
      }
    };
    if (t.waits)
      for (size_t c = 0; c < kCounters; ++c) {
        if (t.wait[c] < 0)
          continue;
        const Pending& q = w.pending[c];
        const uint64_t allowed = static_cast<uint64_t>(t.wait[c]); // < 64
        if (q.n > allowed)
          need(q.at(q.n - 1 - allowed), wait_reason(static_cast<Counter>(c)));
      }
    w.ready = ready;
    w.reason = reason;
    if (t.barrier_wait) {
      if (t.barrier_signal && w.signals == barrier_index(w)) // s_barrier: signal and wait
        signal(w, w.base);
      check_barrier(w);
    }
    refresh(w, issue_cycle);
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
    wave_cycles_ += at - w.start;
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
    if (at >= kMaxCycle)
      throw std::runtime_error("timing model: the simulated WGP ran past 2^47 cycles");
    const SimOp& t = *w.op;
    // Stall accounting: from the wave's own earliest cycle to its issue.
    stall_[static_cast<size_t>(w.reason)] += w.ready - w.base;
    { // at > ready: the pipe (VALU, WMMA, trans, SALU) or another wave held it. Without a
      // branch (adds 0 when it issued at its ready cycle): these branches mispredicted often.
      static_assert(size_t(Stall::PipeBusy) + 1 == size_t(Stall::Issue));
      const uint64_t pipe = uint64_t(t.pipe != 0) & uint64_t(at > issue_free_[w.simd]);
      const uint64_t late = (at - w.ready) & (uint64_t(0) - uint64_t(at > w.ready));
      stall_[size_t(Stall::Issue) - pipe] += late;
    }
    ++r_.issued;
    issue_free_[w.simd] = at + 1;
    uint64_t next_base = at + 1;
    const size_t cu = w.cu;
    auto write_regs = [&](uint64_t ready, Stall why) {
      if (ready >= kMaxReady)
        throw std::runtime_error("timing model: a register's ready cycle passed 2^48");
      const uint64_t v = packed(ready, why);
      for (uint16_t i = 0; i < t.n_writes; ++i)
        w.reg[t.writes[i]] = v;
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
    case Unit::Wmma: {
      valu_free_[w.simd] = at + t.occupancy;
      r_.wmma_busy += t.occupancy;
      write_regs(at + t.latency, Stall::DepWmma); // as C for the next WMMA: at + occupancy
      break;
    }
    case Unit::Salu:
      salu_free_[w.simd] = at + 1;
      write_regs(at + t.latency, Stall::DepSalu);
      break;
    case Unit::Smem:
      write_regs(complete(Counter::Km, at + uint64_t(m_.smem_latency)), Stall::WaitSmem);
      break;
    case Unit::Vmem: {
      const uint32_t mem = w.mem[w.mem_pc++];
      const uint64_t start = std::max(at, vmem_free_[cu]);
      const uint64_t busy = mem & kBusyMask;
      vmem_free_[cu] = start + busy;
      r_.vmem_busy += busy;
      uint64_t latency = uint64_t(m_.l2_latency);
      if (mem & kCountsLevel) {
        const bool first_round = groups_[static_cast<size_t>(w.group)].slot < resident_;
        const Level l = static_cast<Level>((mem >> (first_round ? kFirstShift : kLaterShift)) & 3);
        ++r_.loads_by_level[static_cast<size_t>(l)];
        latency = uint64_t(levels_->latency(l));
      }
      const uint64_t done = complete(t.counter, start + busy + latency);
      write_regs(done, Stall::WaitVmem);
      w.load_horizon = std::max(w.load_horizon, done);
      break;
    }
    case Unit::Lds: {
      const uint64_t start = std::max(at, lds_free_[cu]);
      const uint64_t busy = w.mem[w.mem_pc++] & kBusyMask;
      lds_free_[cu] = start + busy;
      r_.lds_busy += busy;
      const uint64_t done = complete(Counter::Ds, start + busy + uint64_t(m_.lds_latency));
      write_regs(done, Stall::WaitLds);
      w.load_horizon = std::max(w.load_horizon, done);
      break;
    }
    case Unit::Branch:
      if (w.program[w.pc] & kTaken) {
        next_base = at + uint64_t(m_.branch_taken);
        stall_[static_cast<size_t>(Stall::Branch)] += uint64_t(m_.branch_taken - 1);
      }
      break;
    case Unit::Nop:
      next_base = at + t.occupancy;
      stall_[static_cast<size_t>(Stall::Nop)] += uint64_t(t.occupancy - 1);
      break;
    case Unit::Barrier:
      if (t.barrier_signal && !t.barrier_wait)
        signal(w, at);
      break;
    default:
      break;
    }
    if (t.unit == Unit::End || ++w.pc >= w.n_events) {
      w.done = true;
      next_issue_[w.idx] = kNever;
      dirty_ |= uint64_t(1) << w.simd;
      end_wave(w, at + 1);
      return;
    }
    w.base = next_base;
    prepare(w, false); // run() rescans w's SIMD with refresh_all next
  }

  // The fast-forward (steady_state.hpp) at a period mark of cycle `now`, after the mark's
  // rescan (every wave's next_issue_ is complete then). The state is written relative to
  // `now`, and a time that can no longer matter is clamped to one value: every later issue,
  // register read, counter wait and pipe start compares a time against a cycle at or above
  // the earliest base of a live wave (`floor`; a wave's base never decreases, an admitted
  // wave starts at a wave's end), so any time below it acts as any other (a barrier's
  // arrival or end: below it minus the barrier latency, which the release adds).
  struct Floors {
    int64_t now = 0, time = 0, barrier = 0;
    int64_t rel(uint64_t t) const { return int64_t(t) - now; }
    int64_t clamped(uint64_t t) const { return std::max(int64_t(t), time) - now; }
    int64_t clamped_barrier(uint64_t t) const { return std::max(int64_t(t), barrier) - now; }
  };
  static constexpr size_t kWavePositions = 3 + kCounters; // pc, mem_pc, signals, counts
  static constexpr size_t kSumIssued = kStalls;           // r_.issued among the sums

  // Per group: the oldest barrier generation a live wave of it may still read (kNever for a
  // finished group).
  std::vector<uint64_t> generation_floors() const {
    std::vector<uint64_t> low(groups_.size(), kNever);
    for (const auto& wp : waves_)
      if (!wp->done) {
        uint64_t& l = low[static_cast<size_t>(wp->group)];
        l = std::min(l, uint64_t(std::max(wp->signals, 1) - 1));
      }
    return low;
  }

  [[gnu::noinline, gnu::cold]] void fast_forward(uint64_t now) {
    if (!detector_.take_mark())
      return;
    uint64_t floor = kNever;
    for (const auto& wp : waves_)
      if (!wp->done)
        floor = std::min(floor, wp->base);
    if (floor == kNever)
      return;
    Floors f;
    f.now = int64_t(now);
    f.time = int64_t(floor) - 1;
    f.barrier = f.time - int64_t(m_.barrier_latency);
    const std::vector<uint64_t> gen_low = generation_floors();
    StateSnapshot s;
    s.now = now;
    std::vector<int64_t>& sh = s.shape;
    sh.insert(sh.end(), {int64_t(next_), int64_t(live_groups_), int64_t(waves_.size())});
    for (size_t i = 0; i < issue_free_.size(); ++i)
      sh.insert(sh.end(),
                {f.clamped(issue_free_[i]), f.clamped(valu_free_[i]), f.clamped(trans_free_[i]),
                 f.clamped(salu_free_[i]), int64_t(simd_waves_[i])});
    for (size_t i = 0; i < lds_free_.size(); ++i)
      sh.insert(sh.end(), {f.clamped(lds_free_[i]), f.clamped(vmem_free_[i])});
    for (const auto& wp : waves_) {
      const Wave& w = *wp;
      sh.insert(sh.end(), {int64_t(reinterpret_cast<uintptr_t>(w.program)), int64_t(w.done)});
      if (w.done)
        continue;
      const uint64_t next = next_issue_[w.idx];
      sh.insert(sh.end(),
                {int64_t(w.blocked), int64_t(w.group), int64_t(w.simd), int64_t(w.program[w.pc]),
                 int64_t(w.reason), f.rel(w.base), f.rel(w.ready), f.clamped(w.load_horizon),
                 next == kNever ? std::numeric_limits<int64_t>::max() : f.rel(next),
                 int64_t(unit_of_[w.idx]),
                 int64_t(w.signals) - int64_t(gen_low[static_cast<size_t>(w.group)])});
      s.positions.insert(s.positions.end(), {w.pc, w.mem_pc, uint64_t(w.signals)});
      for (const Pending& q : w.pending)
        s.positions.push_back(q.n);
    }
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      const Group& g = groups_[gi];
      if (g.live == 0)
        continue;
      sh.insert(sh.end(), {int64_t(gi), int64_t(g.slot), int64_t(g.waves), int64_t(g.live),
                           int64_t(g.arrived.size()) - int64_t(gen_low[gi])});
      s.positions.push_back(gen_low[gi]);
    }
    s.sums.assign(stall_.begin(), stall_.end());
    s.sums.insert(s.sums.end(), {r_.issued, r_.valu_busy, r_.wmma_busy, r_.trans_busy, r_.lds_busy,
                                 r_.vmem_busy, wave_cycles_});
    s.sums.insert(s.sums.end(), r_.loads_by_level.begin(), r_.loads_by_level.end());

    auto detail = [&](std::vector<int64_t>& d) {
      for (const auto& wp : waves_) {
        const Wave& w = *wp;
        if (w.done)
          continue;
        for (const uint64_t v : w.reg) { // the writer's reason matters only for a later time
          const int64_t c = f.clamped(v & kCycleMask);
          d.push_back(c == f.time - f.now ? c : c * 256 + int64_t(v >> kReasonShift));
        }
        for (const Pending& q : w.pending)
          for (uint64_t j = 0; j < 64; ++j) // the last 64 completions, a missing one as a past
            d.push_back(j < q.n ? f.clamped(q.at(q.n - 1 - j)) : f.time - f.now);
      }
      for (size_t gi = 0; gi < groups_.size(); ++gi) {
        const Group& g = groups_[gi];
        if (g.live == 0)
          continue;
        d.push_back(g.waves > g.live ? f.clamped_barrier(g.last_end) : 0);
        for (size_t gen = static_cast<size_t>(gen_low[gi]); gen < g.arrived.size(); ++gen)
          d.insert(d.end(), {int64_t(g.arrived[gen]), f.clamped_barrier(g.arrival_max[gen])});
      }
    };
    const std::optional<Period> period = detector_.offer(std::move(s), detail);
    if (!period)
      return;
    // Whole periods while every wave's instruction and memory words repeat (the words a
    // period reads: its instructions and the next one's, its memory instructions').
    uint64_t k = (kMaxCycle - now) / period->cycles;
    size_t pos = 0;
    for (const auto& wp : waves_) {
      const Wave& w = *wp;
      if (w.done)
        continue;
      const uint64_t dpc = period->positions[pos], dmem = period->positions[pos + 1];
      pos += kWavePositions;
      if (dpc > 0)
        k = std::min(k, repeated_periods(w.program, w.n_events, w.pc, dpc, 1, k));
      if (dmem > 0) { // a load reads the level of its workgroup's round only
        const bool first_round = groups_[static_cast<size_t>(w.group)].slot < resident_;
        const uint32_t read = ~(uint32_t(3) << (first_round ? kLaterShift : kFirstShift));
        k = std::min(k, repeated_periods(w.mem, memory_words(w), w.mem_pc, dmem, 0, k, read));
      }
      if (k == 0)
        return;
    }
    advance(k, *period, gen_low);
  }

  // The length of the wave's memory words (not kept in Wave: the issue loop's data stays as
  // it was).
  size_t memory_words(const Wave& w) const {
    const WorkgroupTrace* tr = queue_[static_cast<size_t>(groups_[size_t(w.group)].slot)];
    for (size_t wv = 0; wv < tr->waves.size(); ++wv)
      if (tr->waves[wv].words.data() == w.program)
        return programs_.at(tr)[wv].size();
    throw std::logic_error("simulate_wgp: a wave without its program");
  }

  // Moves the state k periods on: every time by k x the period's cycles (clamped times too:
  // they stay below the moved floor), every position and sum by k x its increment.
  void advance(uint64_t k, const Period& p, const std::vector<uint64_t>& gen_low) {
    const uint64_t shift = k * p.cycles;
    for (auto* v : {&issue_free_, &valu_free_, &trans_free_, &salu_free_, &lds_free_, &vmem_free_})
      for (uint64_t& t : *v)
        t += shift;
    size_t pos = 0;
    for (const auto& wp : waves_) {
      Wave& w = *wp;
      if (w.done)
        continue;
      const uint64_t* d = p.positions.data() + pos;
      pos += kWavePositions;
      w.base += shift;
      w.ready += shift;
      w.load_horizon += shift;
      for (uint64_t& v : w.reg) {
        if ((v & kCycleMask) + shift >= kMaxReady)
          throw std::runtime_error("timing model: a register's ready cycle passed 2^48");
        v += shift; // the cycle bits: below 2^48, no carry into the reason
      }
      w.pc += static_cast<size_t>(k * d[0]);
      w.mem_pc += static_cast<size_t>(k * d[1]);
      w.signals += static_cast<int>(k * d[2]);
      for (size_t c = 0; c < kCounters; ++c) {
        Pending& q = w.pending[c];
        Pending moved;
        moved.n = q.n + k * d[3 + c];
        for (uint64_t j = 0; j < 64 && j < q.n; ++j)
          moved.ring[(moved.n - 1 - j) & 63] = q.at(q.n - 1 - j) + shift;
        q = moved;
      }
      w.op = &ops_[w.program[w.pc] & ~kTaken];
      if (next_issue_[w.idx] != kNever)
        next_issue_[w.idx] += shift;
    }
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      Group& g = groups_[gi];
      if (g.live == 0)
        continue;
      const size_t moved = static_cast<size_t>(k * p.positions[pos++]);
      const size_t low = static_cast<size_t>(gen_low[gi]), n = g.arrived.size();
      g.last_end += shift;
      g.arrived.resize(n + moved, g.waves);
      g.arrival_max.resize(n + moved, 0);
      for (size_t gen = n; gen-- > low;) { // the live generations, moved up
        g.arrived[gen + moved] = g.arrived[gen];
        g.arrival_max[gen + moved] = g.arrival_max[gen] + shift;
      }
      for (size_t gen = low; gen < low + moved && gen < n; ++gen) { // passed: never read again
        g.arrived[gen] = g.waves;
        g.arrival_max[gen] = 0;
      }
    }
    for (size_t i = 0; i < kStalls; ++i)
      stall_[i] += k * p.sums[i];
    uint64_t* sums[] = {&r_.issued,   &r_.valu_busy, &r_.wmma_busy, &r_.trans_busy,
                        &r_.lds_busy, &r_.vmem_busy, &wave_cycles_};
    for (size_t i = 0; i < std::size(sums); ++i)
      *sums[i] += k * p.sums[kStalls + i];
    for (size_t l = 0; l < kLevels; ++l)
      r_.loads_by_level[l] += k * p.sums[kStalls + std::size(sums) + l];
    r_.skipped_periods += k;
    r_.skipped_instructions += k * p.sums[kSumIssued];
    dirty_ = simd_best_.size() == 64 ? ~uint64_t(0) : (uint64_t(1) << simd_best_.size()) - 1;
    detector_.clear();
  }

  const MachineModel& m_;
  const std::vector<const WorkgroupTrace*>& queue_;
  int resident_;
  TimingCache& cache_;
  const LevelModel* levels_;
  // Per distinct trace, per wave: its memory words.
  std::unordered_map<const WorkgroupTrace*, std::vector<std::vector<uint32_t>>> programs_;
  std::vector<SimOp> op_by_place_; // per place in the decoded program (executed ones classified)
  std::vector<uint16_t> regs_;     // their register lists, in place order
  const SimOp* ops_ = nullptr;     // op_by_place_.data()
  bool four_simds_ = false;
  uint64_t acc_early_ = 0; // wmma_result_latency: a WMMA's D is C for the next that early
  size_t next_ = 0;
  int live_groups_ = 0, finished_ = 0;
  std::vector<std::unique_ptr<Wave>> waves_;     // in admission order
  std::vector<uint64_t> next_issue_;             // per wave: earliest issue cycle (kNever: done
                                                 // or at a barrier)
  std::vector<int> simd_of_;                     // per wave: its SIMD
  std::vector<uint8_t> unit_of_;                 // per wave: SimOp::pipe of its current instruction
  std::vector<std::vector<uint32_t>> simd_list_; // per SIMD: its waves' indices, oldest first
  std::vector<uint64_t> simd_best_;              // per SIMD: its earliest issue key
  uint64_t dirty_ = 0; // bit per SIMD: one of its waves' issue cycle changed
  std::vector<Group> groups_;
  std::vector<uint64_t> issue_free_, valu_free_, trans_free_, salu_free_, lds_free_, vmem_free_;
  std::vector<int> simd_waves_;
  std::array<uint64_t, kStalls> stall_{}; // wave-cycles by reason (WgpSimResult::stall)
  uint64_t wave_cycles_ = 0;
  WgpSimResult r_;
  PeriodDetector detector_;
};

} // namespace

WgpSimResult simulate_wgp(const MachineModel& m, const std::vector<const WorkgroupTrace*>& queue,
                          int resident, TimingCache& cache, const LevelModel* levels,
                          bool fast_forward) {
  if (resident < 1)
    throw std::invalid_argument("simulate_wgp: resident workgroups must be >= 1");
  return fast_forward ? Sim<true>(m, queue, resident, cache, levels).run()
                      : Sim<false>(m, queue, resident, cache, levels).run();
}

} // namespace tw::emu::timing
