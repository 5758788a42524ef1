#include <runtime/emu/timing/capture.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace tw::emu::timing {

std::vector<WorkgroupId> sample_workgroups(std::array<uint32_t, 3> grid, int n) {
  const uint64_t total = uint64_t(grid[0]) * grid[1] * grid[2];
  const uint64_t count = std::min<uint64_t>(total, static_cast<uint64_t>(std::max(n, 1)));
  std::vector<uint64_t> idx;
  if (count == 1)
    idx.push_back(0);
  else
    for (uint64_t i = 0; i < count; ++i) // first, last and spaced between
      idx.push_back(i * (total - 1) / (count - 1));
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  std::vector<WorkgroupId> out;
  for (uint64_t i : idx)
    out.push_back({static_cast<uint32_t>(i % grid[0]),
                   static_cast<uint32_t>((i / grid[0]) % grid[1]),
                   static_cast<uint32_t>(i / (uint64_t(grid[0]) * grid[1]))});
  return out;
}

namespace {
uint16_t saturate16(size_t n) {
  return static_cast<uint16_t>(std::min<size_t>(n, 0xffff));
}

// A workgroup's caches of LDS bank counts (TimingCapture::Recorder::on_lds_accesses and
// counted_list), shared by the recorders of its waves (which run on one thread, one at a
// time): ~165 KB, kept in a pool between workgroups, since a fresh one per workgroup and
// launch cost its zeroing and ~40 page faults. Taken empty (every entry's instruction
// cleared). A cached count is the count of its key (the bank cycles are a function of it),
// so what hits or misses moves no figure. (Before the fourteenth session one cache per wave:
// the waves of a workgroup run the same ds_* instructions with the same lane patterns, and
// four or eight caches' entries missed the CPU cache where one workgroup's hits.)
struct alignas(64) LdsPattern {     // three CPU cache lines: the differences, then the rest
  std::array<uint32_t, 32> delta{}; // per lane: address - base, 0 for a lane outside exec
  const DecodedInstr* in = nullptr;
  uint32_t exec = 0, bytes = 0, base = 0;
  uint16_t cycles = 0;
};
static_assert(sizeof(LdsPattern) == 192, "LdsPattern: three cache lines");
struct LdsList {
  const DecodedInstr* in = nullptr;
  uint64_t base = 0;
  uint16_t cycles = 0;
  std::vector<LaneAccess> rel; // addresses relative to base
};
struct LdsCaches {
  std::array<LdsPattern, 1024> patterns{};
  std::array<LdsList, 256> lists{};
};

class LdsCachePool {
public:
  std::unique_ptr<LdsCaches> take() {
    std::unique_ptr<LdsCaches> c;
    {
      std::lock_guard lock(mu_);
      if (!free_.empty()) {
        c = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!c)
      return std::make_unique<LdsCaches>();
    for (LdsPattern& p : c->patterns)
      p.in = nullptr;
    for (LdsList& l : c->lists)
      l.in = nullptr;
    return c;
  }
  void give(std::unique_ptr<LdsCaches> c) {
    std::lock_guard lock(mu_);
    if (free_.size() < kKept)
      free_.push_back(std::move(c));
  }

private:
  static constexpr size_t kKept = 64; // a launch records a few workgroups' waves at a time
  std::mutex mu_;
  std::vector<std::unique_ptr<LdsCaches>> free_;
};

LdsCachePool& lds_cache_pool() {
  static LdsCachePool* p = new LdsCachePool; // never destroyed: recorders may end during exit
  return *p;
}

class LdsCachesLease {
public:
  LdsCachesLease() : c_(lds_cache_pool().take()) {}
  ~LdsCachesLease() { release(); }
  // Back to the pool (the next workgroup takes it, warm).
  void release() {
    if (c_)
      lds_cache_pool().give(std::move(c_));
  }
  LdsCachesLease(const LdsCachesLease&) = delete;
  LdsCachesLease& operator=(const LdsCachesLease&) = delete;
  LdsCaches& operator*() const { return *c_; }

private:
  std::unique_ptr<LdsCaches> c_;
};
} // namespace

class TimingCapture::Recorder final : public WaveObserver {
public:
  Recorder(WaveTrace& trace, uint64_t* executed, const DecodedInstr* program, size_t program_size,
           ReuseTracker& reuse, LdsCaches& lds_caches, uint32_t line_bytes, int banks)
      : words_(trace.words), memory_(trace.memory), executed_(executed), program_(program),
        program_size_(program_size), reuse_(reuse), global_(line_bytes), banks_(banks),
        lds_patterns_(lds_caches.patterns), lds_lists_(lds_caches.lists) {
    // The executor logs the instructions of the classes that touch no memory and need nothing
    // of the previous one itself (WaveObserver::log); the others come to on_instruction.
    words_.resize(words_.capacity()); // uninitialised: the log's cursor fills it
    log.next = words_.data();
    log.end = words_.data() + words_.size();
    log.executed = executed;
    log.program = program;
    log.slow_classes = ~(class_bit(InstrClass::Valu) | class_bit(InstrClass::Wmma) |
                         class_bit(InstrClass::Salu) | class_bit(InstrClass::Wait));
    log.slow_next = false;
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  // An instruction the executor did not log itself: its word (the previous one's taken bit),
  // its count and, for an LDS / vector memory instruction, its MemoryEvent. The previous
  // instruction is summarised only when it accessed memory or is an LDS instruction
  // (`pending_`).
  void on_instruction(const DecodedInstr& in) override {
    if (pending_)
      flush();
    summarized_ = false;
    const size_t place = static_cast<size_t>(&in - program_);
    if (place >= program_size_) // the executor runs the program it told begin_launch
      throw std::logic_error("timing capture: an instruction outside the launch's program");
    if (const DecodedInstr* prev = current();
        prev && prev->cls == InstrClass::Branch && in.pc != prev->pc + prev->size)
      log.next[-1] |= kTakenBranch;
    if (log.next == log.end)
      grow();
    *log.next++ = static_cast<uint32_t>(place);
    ++executed_[place];
    if (in.cls == InstrClass::Vmem || in.cls == InstrClass::Lds) {
      memory_.push_back({static_cast<uint32_t>(place), 0, 0, 0, {}});
      event_ = &memory_.back();
    } else {
      event_ = &scratch_; // written, never read
    }
    pending_ = in.cls == InstrClass::Lds;
    // The next instruction comes here as well after a branch (its taken bit) and after a
    // memory instruction (its summary, event_ back to scratch_), unless the instruction's
    // fast-path report summarised it (summarize_now).
    log.slow_next =
        in.cls == InstrClass::Branch || in.cls == InstrClass::Vmem || in.cls == InstrClass::Lds;
  }
  // After the wave's last instruction: its summary, the words trimmed to those written.
  void finish() {
    flush();
    words_.resize(static_cast<size_t>(log.next - words_.data()));
    log = {};
  }
  void on_access(int lane, uint64_t addr, uint32_t bytes, bool lds) override {
    pending_ = true;
    log.slow_next = true;
    if (lds)
      lds_.push_back({lane, addr, bytes});
    else
      global_.add(addr, bytes);
  }
  // The executor's fast paths: one call per instruction instead of one per component.
  // A fast path's report is the whole instruction's (WaveObserver::on_global_accesses): it is
  // summarised at once, and the next instruction need not come to on_instruction.
  void on_global_accesses(const std::array<uint64_t, 32>& addr, uint32_t exec, uint32_t unit,
                          uint32_t units) override {
    if (summarized_)
      throw std::logic_error("timing capture: an instruction reported accesses after the "
                             "executor's fast path reported all of them");
    global_.add_lanes(addr, exec, unit, units);
    if (pending_ || !current()) { // the general path reported part of it: summarised with that
      log.slow_next = true;
      return;
    }
    summarize_now();
  }
  // An LDS instruction's bank cycles depend only on which lanes access how many bytes, the
  // lanes' address differences and the first address modulo the bank row (banks x 4 bytes):
  // a loop that runs one ds_* instruction with the same pattern at a shifted base (the next
  // buffer stage) reuses the count (a small cache per recorder, keyed by the instruction and
  // the base within the bank row).
  void on_lds_accesses(const std::array<uint32_t, 32>& addr, uint32_t exec,
                       uint32_t bytes) override {
    pending_ = true;
    log.slow_next = true;
    auto push_all = [&] {
      for (uint32_t m = exec; m; m &= m - 1) {
        const int lane = std::countr_zero(m);
        lds_.push_back({lane, addr[static_cast<size_t>(lane)], bytes});
      }
    };
    const DecodedInstr* in = current();
    if (exec == 0 || !lds_.empty() || lds_counted_ || !in) {
      push_all(); // not the whole instruction in one call (the executor makes one): flush counts
      lds_counted_ = false;
      return;
    }
    const uint32_t base = addr[static_cast<size_t>(std::countr_zero(exec))];
    const uint32_t row = uint32_t(banks_) * 4;
    // Keyed by the instruction and the base within the bank row: an instruction alternating
    // between buffer stages at different offsets within the row keeps one entry per stage.
    LdsPattern& p = lds_patterns_[slot(in, base % row / 4, lds_patterns_.size())];
    // Every lane's difference at once (no loop over the set bits of exec: the compiler
    // vectorises both loops).
    std::array<uint32_t, 32> delta;
    if (exec == ~0u) {
      for (size_t lane = 0; lane < 32; ++lane)
        delta[lane] = addr[lane] - base;
    } else {
      for (uint32_t lane = 0; lane < 32; ++lane)
        delta[lane] = (addr[lane] - base) & (0u - ((exec >> lane) & 1u));
    }
    uint32_t differ = 0;
    for (size_t lane = 0; lane < 32; ++lane)
      differ |= p.delta[lane] ^ delta[lane];
    if (differ != 0 || p.in != in || p.exec != exec || p.bytes != bytes ||
        p.base % row != base % row) {
      push_all();
      p.in = in;
      p.exec = exec;
      p.bytes = bytes;
      p.base = base;
      p.delta = delta;
      p.cycles = saturate16(lds_cycles(lds_, banks_));
      lds_.clear();
    }
    event_->lds_cycles = p.cycles;
    lds_counted_ = true;
    if (global_.addresses() == 0) // nothing else to summarise
      summarize_now();
  }
  // Summarises the accesses of the last instruction (into its MemoryEvent; an instruction of
  // another class has none, but its global lines count for the reuse all the same).
  void flush() {
    pending_ = false;
    const DecodedInstr* cur = current();
    if (!cur)
      return;
    MemoryEvent& e = *event_;
    summarize_global(*cur, e);
    if (lds_counted_) {
      lds_counted_ = false;
    } else if (!lds_.empty() || cur->cls == InstrClass::Lds) {
      e.lds_cycles = counted_list(cur);
      lds_.clear();
    }
  }

private:
  // The global lines of the current instruction `cur` into its event `e` (none: nothing).
  void summarize_global(const DecodedInstr& cur, MemoryEvent& e) {
    if (global_.addresses() == 0)
      return;
    const std::vector<uint64_t>& lines = global_.lines();
    e.lines = saturate16(lines.size());
    e.addresses = saturate16(global_.addresses());
    if (cur.cls == InstrClass::Smem) // the scalar cache: not vector L0 traffic
      e.lines = 0;
    else
      e.reuse = reuse_.touch(lines);
    global_.clear();
  }
  // A fast path reported the whole current instruction: its summary now (its LDS cycles are
  // set), instead of in flush() when the next instruction comes to on_instruction.
  void summarize_now() {
    summarize_global(*current(), *event_);
    lds_counted_ = false;
    pending_ = false;
    log.slow_next = false;
    summarized_ = true;
  }
  static uint32_t class_bit(InstrClass c) { return uint32_t(1) << static_cast<unsigned>(c); }
  // The current instruction: the last word's (the executor may have logged it).
  const DecodedInstr* current() const {
    return log.next == words_.data() ? nullptr : program_ + (log.next[-1] & ~kTakenBranch);
  }
  // The words are full: twice the room (the cursor moves to the new buffer).
  void grow() {
    const size_t n = static_cast<size_t>(log.next - words_.data());
    words_.resize(n);
    words_.reserve(std::max<size_t>(2 * n, size_t(1) << 16));
    words_.resize(words_.capacity());
    log.next = words_.data() + n;
    log.end = words_.data() + words_.size();
  }
  // The cache slot of (instruction, dword of the base within the bank row) among n (a power
  // of two): a multiplicative hash of the instruction's pc plus the dword, so the dwords of
  // one instruction take neighbouring slots and different instructions land apart. (Before,
  // (DecodedInstr address / 16) x 31 + dword modulo 256: the decoded program is one array of
  // 528-byte entries, so the next instruction's slot was one lower and instruction k + 1 at
  // dword d + 1 evicted instruction k at dword d: 41% of mxfp8 GEMM's LDS instructions
  // counted their banks again.)
  static size_t slot(const DecodedInstr* in, uint64_t dword, size_t n) {
    const uint64_t h = (in->pc >> 2) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>((h >> 40) + dword) & (n - 1);
  }
  // The bank cycles of lds_ (the accesses of the general path, e.g. the two-address ds_*
  // forms), reused like on_lds_accesses' patterns when the instruction repeats the same list
  // of (lane, address - first address, bytes) at a first address equal modulo the bank row.
  uint16_t counted_list(const DecodedInstr* in) {
    if (lds_.empty())
      return saturate16(lds_cycles(lds_, banks_));
    const uint64_t base = lds_[0].addr;
    const uint64_t row = uint64_t(banks_) * 4;
    LdsList& p = lds_lists_[slot(in, base % row / 4, lds_lists_.size())];
    bool same = p.in == in && p.base % row == base % row && p.rel.size() == lds_.size();
    for (size_t i = 0; i < lds_.size() && same; ++i)
      same = p.rel[i].lane == lds_[i].lane && p.rel[i].bytes == lds_[i].bytes &&
             p.rel[i].addr == lds_[i].addr - base;
    if (!same) {
      p.in = in;
      p.base = base;
      p.rel.assign(lds_.begin(), lds_.end());
      for (LaneAccess& a : p.rel)
        a.addr -= base;
      p.cycles = saturate16(lds_cycles(lds_, banks_));
    }
    return p.cycles;
  }

  TraceWords& words_;
  MemoryEvents& memory_;
  uint64_t* executed_; // WorkgroupTrace::executed (the workgroup's waves run on one thread)
  const DecodedInstr* program_;
  size_t program_size_;
  MemoryEvent* event_ = &scratch_; // the current instruction's MemoryEvent (or scratch_)
  MemoryEvent scratch_;
  ReuseTracker& reuse_;
  LineCoalescer global_;
  int banks_;
  std::vector<LaneAccess> lds_;
  bool lds_counted_ = false; // the current instruction's LDS cycles are set (on_lds_accesses)
  bool pending_ = false;     // the current instruction has something for flush()
  bool summarized_ = false;  // the current instruction was summarised by summarize_now()
  std::array<LdsPattern, 1024>& lds_patterns_;
  std::array<LdsList, 256>& lds_lists_;
};

struct TimingCapture::Entry {
  WorkgroupTrace trace;
  ReuseTracker reuse;
  LdsCachesLease lds; // the LDS count caches of the workgroup's recorders
  std::vector<std::unique_ptr<Recorder>> recorders;
  bool done = false;
};

TimingCapture::TimingCapture(std::vector<WorkgroupId> sample, uint32_t line_bytes, int lds_banks)
    : sample_(std::move(sample)), line_bytes_(line_bytes), lds_banks_(lds_banks) {
  entries_.resize(sample_.size());
}

TimingCapture::~TimingCapture() = default;

void TimingCapture::begin_launch(const DecodedInstr* program, size_t size) {
  program_ = program;
  program_size_ = size;
}

std::vector<WaveObserver*> TimingCapture::begin_workgroup(WorkgroupId id, int waves) {
  const auto it = std::find(sample_.begin(), sample_.end(), id);
  if (it == sample_.end())
    return {};
  if (!program_)
    throw std::logic_error("timing capture: a workgroup began before begin_launch told the "
                           "decoded program");
  auto e = std::make_unique<Entry>();
  e->trace.id = id;
  e->trace.program = program_;
  e->trace.program_size = program_size_;
  e->trace.executed.assign(program_size_, 0);
  e->trace.waves.resize(static_cast<size_t>(waves));
  std::vector<WaveObserver*> out;
  // Reserved address space is not memory until written, so a generous reserve costs nothing
  // and spares the regrowth copies of a long wave.
  const size_t reserve = std::max<size_t>(longest_wave_.load(), size_t(1) << 18);
  const size_t reserve_memory = std::max<size_t>(longest_memory_.load(), size_t(1) << 15);
  for (int w = 0; w < waves; ++w) {
    WaveTrace& wt = e->trace.waves[static_cast<size_t>(w)];
    wt.words.reserve(reserve);
    wt.memory.reserve(reserve_memory);
    e->recorders.push_back(std::make_unique<Recorder>(wt, e->trace.executed.data(), program_,
                                                      program_size_, e->reuse, *e->lds, line_bytes_,
                                                      lds_banks_));
    out.push_back(e->recorders.back().get());
  }
  std::lock_guard lock(mu_);
  entries_[static_cast<size_t>(it - sample_.begin())] = std::move(e);
  return out;
}

void TimingCapture::end_workgroup(WorkgroupId id) {
  const auto it = std::find(sample_.begin(), sample_.end(), id);
  if (it == sample_.end())
    return;
  std::lock_guard lock(mu_);
  Entry& e = *entries_[static_cast<size_t>(it - sample_.begin())];
  for (auto& r : e.recorders)
    r->finish();
  e.recorders.clear();
  e.lds.release();
  auto raise = [](std::atomic<size_t>& longest, size_t n) {
    for (size_t seen = longest.load(); n > seen;)
      if (longest.compare_exchange_weak(seen, n))
        break;
  };
  for (const auto& w : e.trace.waves) {
    raise(longest_wave_, w.words.size());
    raise(longest_memory_, w.memory.size());
  }
  e.trace.lines = e.reuse.footprint();
  e.done = true;
}

std::vector<WorkgroupTrace> TimingCapture::take() {
  std::lock_guard lock(mu_);
  std::vector<WorkgroupTrace> out;
  for (auto& e : entries_)
    if (e && e->done)
      out.push_back(std::move(e->trace));
  for (auto& e : entries_)
    e.reset();
  return out;
}

} // namespace tw::emu::timing
