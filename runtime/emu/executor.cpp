// Wave execution: initial register state (AMDHSA ABI), the fetch/dispatch loop, the
// barrier scheduler of a workgroup, and workgroups in parallel on the host's cores.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/launch.hpp>
#include <runtime/emu/valu/vop.hpp>
#include <runtime/emu/workgroup.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <iostream>
#include <mutex>
#include <thread>

namespace tw::emu {

void WaveContext::fail(const DecodedInstr& in, std::string_view what) const {
  throw EmuError(fmt::format("{} at pc 0x{:x} in kernel {} (workgroup ({},{},{}), wave {}): {}",
                             what, in.pc - kernel.image_base, kernel.name, group.id[0], group.id[1],
                             group.id[2], wave.wave_id, in.asm_text));
}

bool memcheck_default() {
  const char* v = std::getenv("TILEWAVE_EMU_CHECK");
  return !(v && std::string_view(v) == "0");
}

namespace {

void unimplemented_handler(WaveContext& c, const DecodedInstr& in) {
  if (in.mnemonic == "<undecodable>")
    c.fail(in, "undecodable instruction word");
  if (in.mnemonic == kRegisterOutOfRange)
    c.fail(in, "the instruction names registers past the register file (256 VGPRs, s0..s105 "
               "and the special SGPRs)");
  c.fail(in, "unimplemented instruction '" + in.mnemonic + "'");
}

struct LaunchShared {
  const CodeObject& co;
  const KernelInfo& k;
  GlobalMemory& memory;
  const LaunchConfig& cfg;
  uint64_t kernarg_addr = 0, dispatch_addr = 0, queue_addr = 0;
  uint64_t kernarg_bytes = 0; // the segment's size (padded)
  uint32_t lds_bytes = 0, scratch_bytes = 0;
  int waves_per_group = 0;
};

// Initial SGPRs/VGPRs of one wave (AMDHSA ABI, gfx12: architected workgroup ids in
// ttmp9 = x, ttmp7 = y | z << 16; packed work-item ids in v0 = x | y << 10 | z << 20).
void init_wave(const LaunchShared& L, const Workgroup& g, int wave_index, WaveState& w) {
  const KernelInfo& k = L.k;
  w.reset();
  w.wave_id = wave_index;
  w.pc = k.entry;
  w.mode = k.initial_mode;
  unsigned s = 0;
  auto put64 = [&](uint64_t v) {
    w.sgpr[s++] = static_cast<uint32_t>(v);
    w.sgpr[s++] = static_cast<uint32_t>(v >> 32);
  };
  if (k.sgpr_private_segment_buffer)
    s += 4; // no buffer-resource scratch on gfx12 (architected flat scratch)
  if (k.sgpr_dispatch_ptr)
    put64(L.dispatch_addr);
  if (k.sgpr_queue_ptr)
    put64(L.queue_addr);
  if (k.sgpr_kernarg_ptr)
    put64(L.kernarg_addr);
  if (k.sgpr_dispatch_id)
    put64(0);
  if (k.sgpr_flat_scratch_init)
    put64(0);
  if (k.sgpr_private_segment_size)
    w.sgpr[s++] = L.scratch_bytes;
  s = std::max(s, k.user_sgpr_count);
  for (int d = 0; d < 3; ++d)
    if (k.sgpr_workgroup_id[d])
      w.sgpr[s++] = g.id[d];
  if (k.sgpr_workgroup_info)
    w.sgpr[s++] = static_cast<uint32_t>(L.waves_per_group);
  w.sgpr[sreg::kTtmp0 + 9] = g.id[0];
  w.sgpr[sreg::kTtmp0 + 7] = (g.id[1] & 0xffff) | (g.id[2] << 16);
  const auto& b = L.cfg.block;
  const uint32_t threads = b[0] * b[1] * b[2];
  uint32_t exec = 0;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const uint32_t t = static_cast<uint32_t>(wave_index) * kWaveSize + lane;
    if (t >= threads)
      continue;
    exec |= 1u << lane;
    const uint32_t x = t % b[0], y = (t / b[0]) % b[1], z = t / (b[0] * b[1]);
    w.vgpr[0][lane] = x | (y << 10) | (z << 20);
  }
  w.set_exec(exec);
}

struct TraceState {
  std::ostream* out;
  std::array<uint32_t, sreg::kFileSize> sgpr;
  bool scc;
  std::vector<std::array<uint32_t, kWaveSize>> vgpr;
};

std::string sreg_name(unsigned r) {
  if (r < sreg::kNumSgprs)
    return fmt::format("s{}", r);
  if (r == sreg::kVccLo)
    return "vcc_lo";
  if (r == sreg::kVccHi)
    return "vcc_hi";
  if (r >= sreg::kTtmp0 && r < sreg::kTtmp0 + 16)
    return fmt::format("ttmp{}", r - sreg::kTtmp0);
  if (r == sreg::kM0)
    return "m0";
  if (r == sreg::kExecLo)
    return "exec_lo";
  if (r == sreg::kExecHi)
    return "exec_hi";
  return fmt::format("sreg{}", r);
}

void trace_after(TraceState& t, const WaveState& w, const DecodedInstr& in, uint64_t base) {
  std::string line = fmt::format("0x{:x}: {}", in.pc - base, in.asm_text);
  for (unsigned r = 0; r < sreg::kFileSize; ++r)
    if (w.sgpr[r] != t.sgpr[r])
      line += fmt::format("\n    {} = 0x{:08x}", sreg_name(r), w.sgpr[r]);
  if (w.scc != t.scc)
    line += fmt::format("\n    scc = {}", int(w.scc));
  for (int r = 0; r < kMaxVgprs; ++r) {
    if (w.vgpr[r] == t.vgpr[r])
      continue;
    line += fmt::format("\n    v{} =", r);
    for (int l = 0; l < kWaveSize; ++l)
      line += w.vgpr[r][l] != t.vgpr[r][l] ? fmt::format(" {}:{:08x}", l, w.vgpr[r][l]) : "";
  }
  *t.out << line << "\n";
  t.sgpr = w.sgpr;
  t.scc = w.scc;
  t.vgpr = w.vgpr;
}

enum class WaveStop { Ended, Barrier, Yield };

// Waves of a workgroup take turns in slices of this many instructions, so a wave that
// spins on a flag another wave of its workgroup sets (through LDS or memory) makes progress.
constexpr uint64_t kTimeSlice = 4096;

WaveStop run_wave(const LaunchShared& L, WaveContext& c, uint64_t& executed_total,
                  TraceState* trace) {
  WaveState& w = c.wave;
  // Held in locals for the loop (handlers run between their uses, and the compiler would
  // reload them from c after every call).
  LaunchStats& stats = c.stats;
  WaveObserver* const observer = c.observer;
  const Workgroup& group = c.group;
  const int wave_id = w.wave_id;
  const uint64_t limit = L.cfg.max_instructions_per_wave;
  uint64_t executed = executed_total;
  const uint64_t slice_end = executed + kTimeSlice;
  // The instruction after one that did not branch is the next entry of the program (when its
  // pc follows): no look-up of the pc on the common path.
  const DecodedInstr* const program_end = L.co.program().data() + L.co.program().size();
  const DecodedInstr* in = L.co.at(w.pc);
  while (true) {
    if (!in)
      throw EmuError(fmt::format("pc 0x{:x} is not an instruction of the code object in kernel {} "
                                 "(workgroup ({},{},{}), wave {})",
                                 w.pc - L.k.image_base, L.k.name, c.group.id[0], c.group.id[1],
                                 c.group.id[2], w.wave_id));
    const uint64_t fallthrough = in->pc + in->size;
    w.pc = fallthrough;
    if (observer) {
      InstructionLog& log = observer->log;
      if (!log.slow_next && log.next != log.end &&
          !((log.slow_classes >> static_cast<unsigned>(in->cls)) & 1u)) {
        const auto place = static_cast<uint32_t>(in - log.program);
        *log.next++ = place;
        ++log.executed[place];
      } else {
        observer->on_instruction(*in);
      }
    }
    ++stats.instructions[static_cast<size_t>(in->cls)];
    stats.wmma_ops += in->wmma_ops;
    // An instruction without effect leaves the wave running (it was, to execute it).
    const bool effect = in->handler != &no_effect;
    if (effect)
      in->handler(c, *in);
    if (trace)
      trace_after(*trace, w, *in, L.k.image_base);
    if (++executed > limit) {
      executed_total = executed;
      c.fail(*in, fmt::format("wave executed more than {} instructions (endless loop?)", limit));
    }
    if (effect) {
      if (w.ended) {
        executed_total = executed;
        return WaveStop::Ended;
      }
      if (group.waiting(wave_id)) {
        executed_total = executed;
        return WaveStop::Barrier;
      }
    }
    if (executed >= slice_end) {
      executed_total = executed;
      return WaveStop::Yield;
    }
    const DecodedInstr* next = in + 1;
    in = w.pc == fallthrough && next != program_end && next->pc == fallthrough ? next
                                                                               : L.co.at(w.pc);
  }
}

void run_workgroup(const LaunchShared& L, std::array<uint32_t, 3> id, Workgroup& g,
                   std::vector<WaveState>& waves, LaunchStats& stats) {
  const int n = L.waves_per_group;
  g.reset(id, n, L.lds_bytes, L.scratch_bytes);
  waves.resize(static_cast<size_t>(n));
  std::vector<uint64_t> executed(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i)
    init_wave(L, g, i, waves[i]);
  const auto& tc = L.cfg.trace;
  const bool trace_this = tc.enabled && tc.workgroup == id;
  TraceState trace{tc.out ? tc.out : &std::cerr, {}, false, {}};
  if (trace_this && tc.wave < n) {
    trace.sgpr = waves[tc.wave].sgpr;
    trace.scc = waves[tc.wave].scc;
    trace.vgpr = waves[tc.wave].vgpr;
  }
  std::vector<WaveObserver*> observers;
  if (L.cfg.observer)
    observers = L.cfg.observer->begin_workgroup(id, n);
  int live = n;
  while (live > 0) {
    bool ran = false;
    for (int i = 0; i < n; ++i) {
      WaveState& w = waves[i];
      if (w.ended || g.waiting(i))
        continue;
      WaveContext c{w, g, L.memory, stats, L.k, L.cfg.memcheck};
      c.kernarg_begin = L.kernarg_addr;
      c.kernarg_end = L.kernarg_addr + L.kernarg_bytes;
      if (!observers.empty())
        c.observer = observers[i];
      ran = true;
      if (run_wave(L, c, executed[i], trace_this && i == tc.wave ? &trace : nullptr) ==
          WaveStop::Ended) {
        g.wave_ended(i);
        --live;
      }
    }
    if (live > 0 && !g.try_release(live) && !ran)
      throw EmuError(fmt::format("barrier deadlock in kernel {} (workgroup ({},{},{})): some "
                                 "waves wait at s_barrier_wait while others never signal",
                                 L.k.name, id[0], id[1], id[2]));
  }
  if (L.cfg.observer)
    L.cfg.observer->end_workgroup(id);
  ++stats.workgroups;
  stats.waves += static_cast<uint64_t>(n);
}

void fill_hidden_args(const KernelInfo& k, const LaunchConfig& cfg, std::vector<uint8_t>& ka) {
  auto put = [&](const KernelArgMeta& a, uint64_t v) {
    if (a.offset + a.size <= ka.size())
      std::memcpy(ka.data() + a.offset, &v, std::min<uint32_t>(a.size, 8));
  };
  for (const auto& a : k.args) {
    const std::string& kind = a.value_kind;
    if (kind.rfind("hidden_", 0) != 0)
      continue;
    for (int d = 0; d < 3; ++d) {
      const char xyz = "xyz"[d];
      if (kind == fmt::format("hidden_block_count_{}", xyz))
        put(a, cfg.grid[d]);
      else if (kind == fmt::format("hidden_group_size_{}", xyz))
        put(a, cfg.block[d]);
      else if (kind == fmt::format("hidden_remainder_{}", xyz) ||
               kind == fmt::format("hidden_global_offset_{}", xyz))
        put(a, 0);
    }
    if (kind == "hidden_grid_dims")
      put(a,
          cfg.grid[2] > 1 || cfg.block[2] > 1 ? 3 : (cfg.grid[1] > 1 || cfg.block[1] > 1 ? 2 : 1));
    else if (kind == "hidden_dynamic_lds_size")
      put(a, cfg.dynamic_lds);
  }
}

} // namespace

void CodeObject::bind_handlers() {
  const HandlerTable& table = HandlerTable::instance();
  auto bind = [&](DecodedInstr& d) {
    d.handler = table.find(d.mnemonic);
    d.vop_spec = valu::find_spec(d.mnemonic);
    if (d.vop_spec)
      d.vop_plan = valu::make_plan(d, *d.vop_spec);
    if (!d.handler)
      d.handler = unimplemented_handler;
  };
  for (auto& d : program_) {
    bind(d);
    for (auto& half : d.vopd)
      bind(half);
  }
}

LaunchStats launch(const CodeObject& co, const KernelInfo& k, GlobalMemory& memory,
                   const LaunchConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto& b = cfg.block;
  const uint64_t threads = uint64_t(b[0]) * b[1] * b[2];
  if (threads == 0 || threads > 1024)
    throw EmuError(fmt::format("launch of {}: block {}x{}x{} must have 1..1024 work-items", k.name,
                               b[0], b[1], b[2]));
  if (k.max_flat_workgroup_size && threads > k.max_flat_workgroup_size)
    throw EmuError(fmt::format("launch of {}: block of {} work-items exceeds the kernel's "
                               ".max_flat_workgroup_size {}",
                               k.name, threads, k.max_flat_workgroup_size));
  for (int d = 0; d < 3; ++d)
    if (uint64_t(cfg.grid[d]) * b[d] > UINT32_MAX)
      throw EmuError(fmt::format("launch of {}: grid {} x block {} in dimension {} exceeds the "
                                 "2^32 - 1 work-items a dispatch packet holds",
                                 k.name, cfg.grid[d], b[d], "xyz"[d]));
  if (cfg.grid[0] == 0 || cfg.grid[1] == 0 || cfg.grid[2] == 0 || cfg.grid[1] > 65535 ||
      cfg.grid[2] > 65535)
    throw EmuError(fmt::format("launch of {}: grid {}x{}x{} must be >= 1 (y, z <= 65535)", k.name,
                               cfg.grid[0], cfg.grid[1], cfg.grid[2]));
  const uint64_t lds = uint64_t(k.group_segment_size) + cfg.dynamic_lds;
  if (lds > 65536)
    throw EmuError(fmt::format("launch of {}: LDS {} (static {} + dynamic {}) exceeds 64 KiB",
                               k.name, lds, k.group_segment_size, cfg.dynamic_lds));

  if (cfg.trace.enabled) {
    const auto& t = cfg.trace;
    const uint64_t waves = (threads + kWaveSize - 1) / kWaveSize;
    if (t.workgroup[0] >= cfg.grid[0] || t.workgroup[1] >= cfg.grid[1] ||
        t.workgroup[2] >= cfg.grid[2] || t.wave < 0 || uint64_t(t.wave) >= waves)
      throw EmuError(fmt::format("trace: wave {} of workgroup ({},{},{}) is not part of the launch "
                                 "(grid {}x{}x{}, {} waves per workgroup)",
                                 t.wave, t.workgroup[0], t.workgroup[1], t.workgroup[2],
                                 cfg.grid[0], cfg.grid[1], cfg.grid[2], waves));
  }
  LaunchShared L{co, k, memory, cfg};
  L.lds_bytes = static_cast<uint32_t>(lds);
  L.scratch_bytes = (k.private_segment_size + 15) & ~15u;
  if (k.uses_dynamic_stack)
    L.scratch_bytes += 16384;
  L.waves_per_group = static_cast<int>((threads + kWaveSize - 1) / kWaveSize);

  uint32_t explicit_end = 0;
  for (const auto& a : k.args)
    if (a.value_kind.rfind("hidden_", 0) != 0)
      explicit_end = std::max(explicit_end, a.offset + a.size);
  if (cfg.kernargs.size() < explicit_end)
    throw EmuError(fmt::format("launch of {}: {} bytes of kernel arguments given, its explicit "
                               "arguments need {} (see the code object's .args metadata)",
                               k.name, cfg.kernargs.size(), explicit_end));
  std::vector<uint8_t> ka = cfg.kernargs;
  // Padded to a multiple of 64 bytes, as real runtimes allocate it: the compiler may merge the
  // last scalar kernarg loads into one wider s_load that ends past .kernarg_segment_size (e.g.
  // s_load_b256 at 0x20 of a 56-byte segment, seen with clang's HIP output).
  ka.resize((std::max<size_t>(ka.size(), k.kernarg_size) + 63) / 64 * 64, 0);
  fill_hidden_args(k, cfg, ka);
  L.kernarg_addr = memory.allocate(std::max<size_t>(ka.size(), 1), "kernarg segment");
  L.kernarg_bytes = ka.size();
  std::memcpy(reinterpret_cast<void*>(L.kernarg_addr), ka.data(), ka.size());
  L.queue_addr = memory.allocate(256, "queue");
  L.dispatch_addr = memory.allocate(64, "dispatch packet");
  {
    uint8_t* p = reinterpret_cast<uint8_t*>(L.dispatch_addr);
    auto put16 = [&](int off, uint16_t v) { std::memcpy(p + off, &v, 2); };
    auto put32 = [&](int off, uint32_t v) { std::memcpy(p + off, &v, 4); };
    auto put64 = [&](int off, uint64_t v) { std::memcpy(p + off, &v, 8); };
    put16(2, cfg.grid[2] > 1 || b[2] > 1 ? 3 : (cfg.grid[1] > 1 || b[1] > 1 ? 2 : 1));
    for (int d = 0; d < 3; ++d) {
      put16(4 + 2 * d, static_cast<uint16_t>(b[d]));
      put32(12 + 4 * d, cfg.grid[d] * b[d]);
    }
    put32(24, L.scratch_bytes);
    put32(28, L.lds_bytes);
    put64(32, k.descriptor_address);
    put64(40, L.kernarg_addr);
  }
  struct Cleanup {
    GlobalMemory& m;
    uint64_t a, b, c;
    ~Cleanup() {
      m.free(a);
      m.free(b);
      m.free(c);
    }
  } cleanup{memory, L.kernarg_addr, L.queue_addr, L.dispatch_addr};

  for (const auto& id : cfg.only_workgroups)
    if (id[0] >= cfg.grid[0] || id[1] >= cfg.grid[1] || id[2] >= cfg.grid[2])
      throw EmuError(fmt::format("launch of {}: workgroup ({},{},{}) to run is outside the grid "
                                 "{}x{}x{}",
                                 k.name, id[0], id[1], id[2], cfg.grid[0], cfg.grid[1],
                                 cfg.grid[2]));
  const uint64_t total = cfg.only_workgroups.empty()
                             ? uint64_t(cfg.grid[0]) * cfg.grid[1] * cfg.grid[2]
                             : cfg.only_workgroups.size();
  unsigned nthreads = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
  if (cfg.trace.enabled)
    nthreads = 1; // trace output in program order
  nthreads = static_cast<unsigned>(std::min<uint64_t>(nthreads, total));

  if (cfg.observer)
    cfg.observer->begin_launch(co.program().data(), co.program().size());
  std::atomic<uint64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  // Clock checks only when a progress line or a time limit asks for them.
  using Clock = std::chrono::steady_clock;
  const bool watch_clock = cfg.progress || cfg.time_limit_seconds > 0;
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(cfg.progress_interval_seconds, 0.01)));
  std::atomic<Clock::rep> next_report{(t0 + interval).time_since_epoch().count()};
  auto after_workgroup = [&] {
    const uint64_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (!watch_clock)
      return;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - t0).count();
    if (cfg.time_limit_seconds > 0 && seconds > cfg.time_limit_seconds && finished < total)
      throw EmuError(fmt::format("launch of {}: stopped after {:.1f} s (the time limit of {} s) "
                                 "with {} of {} workgroups done",
                                 k.name, seconds, cfg.time_limit_seconds, finished, total));
    Clock::rep due = next_report.load(std::memory_order_relaxed);
    if (cfg.progress && now.time_since_epoch().count() >= due &&
        next_report.compare_exchange_strong(due, (now + interval).time_since_epoch().count()))
      cfg.progress(finished, total, seconds);
  };
  std::exception_ptr first_error;
  std::mutex mu;
  LaunchStats merged;
  auto worker = [&] {
    LaunchStats stats;
    Workgroup g;
    std::vector<WaveState> waves;
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        const uint64_t i = next.fetch_add(1);
        if (i >= total)
          break;
        const std::array<uint32_t, 3> id =
            cfg.only_workgroups.empty()
                ? std::array<uint32_t, 3>{static_cast<uint32_t>(i % cfg.grid[0]),
                                          static_cast<uint32_t>((i / cfg.grid[0]) % cfg.grid[1]),
                                          static_cast<uint32_t>(
                                              i / (uint64_t(cfg.grid[0]) * cfg.grid[1]))}
                : cfg.only_workgroups[i];
        run_workgroup(L, id, g, waves, stats);
        after_workgroup();
      }
    } catch (...) {
      std::lock_guard lock(mu);
      if (!first_error)
        first_error = std::current_exception();
      stop = true;
    }
    std::lock_guard lock(mu);
    merged.merge(stats);
  };
  if (nthreads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nthreads; ++t)
      pool.emplace_back(worker);
    for (auto& t : pool)
      t.join();
  }
  if (first_error)
    std::rethrow_exception(first_error);
  merged.wmma_instructions = merged.count(InstrClass::Wmma);
  merged.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return merged;
}

} // namespace tw::emu
