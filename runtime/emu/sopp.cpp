// Program control (SOPP): branches, s_endpgm, barriers, and the wait / hint instructions
// that are no-ops here because every memory operation completes in program order.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/workgroup.hpp>

namespace tw::emu {
namespace {

// SOPP branch target: next pc + 4 * simm16.
uint64_t branch_target(const DecodedInstr& in) {
  const int16_t simm = static_cast<int16_t>(in.op(0).value & 0xffff);
  return in.pc + 4 + static_cast<int64_t>(simm) * 4;
}

template <auto Cond>
void cbranch(WaveContext& c, const DecodedInstr& in) {
  if (Cond(c.wave))
    c.jump(branch_target(in));
}

} // namespace

void no_effect(WaveContext&, const DecodedInstr&) {}

void register_sopp_handlers(HandlerTable& t) {
  t.add("s_endpgm", [](WaveContext& c, const DecodedInstr&) { c.wave.ended = true; });
  t.add("s_branch", [](WaveContext& c, const DecodedInstr& in) { c.jump(branch_target(in)); });
  t.add("s_cbranch_scc0", cbranch<[](const WaveState& w) { return !w.scc; }>);
  t.add("s_cbranch_scc1", cbranch<[](const WaveState& w) { return w.scc; }>);
  t.add("s_cbranch_vccz", cbranch<[](const WaveState& w) { return w.vcc() == 0; }>);
  t.add("s_cbranch_vccnz", cbranch<[](const WaveState& w) { return w.vcc() != 0; }>);
  t.add("s_cbranch_execz", cbranch<[](const WaveState& w) { return w.exec() == 0; }>);
  t.add("s_cbranch_execnz", cbranch<[](const WaveState& w) { return w.exec() != 0; }>);
  t.add("s_call_b64", [](WaveContext& c, const DecodedInstr& in) {
    c.wave.swrite64(in.op(0), in.pc + in.size);
    const int16_t simm = static_cast<int16_t>(in.op(1).value & 0xffff);
    c.jump(in.pc + 4 + static_cast<int64_t>(simm) * 4);
  });
  // Barrier: signal with the workgroup barrier (-1); wait blocks until all live waves signaled.
  t.add("s_barrier_signal",
        [](WaveContext& c, const DecodedInstr&) { c.group.barrier_signal(c.wave.wave_id); });
  t.add("s_barrier_signal_isfirst", [](WaveContext& c, const DecodedInstr&) {
    c.wave.scc = c.group.barrier_signal(c.wave.wave_id);
  });
  t.add("s_barrier_wait",
        [](WaveContext& c, const DecodedInstr&) { c.group.barrier_wait(c.wave.wave_id); });
  // Memory counters: the emulator completes every access before the next instruction,
  // so waiting is always already satisfied.
  t.add_all(
      {
          "s_wait_loadcnt",
          "s_wait_storecnt",
          "s_wait_dscnt",
          "s_wait_kmcnt",
          "s_wait_expcnt",
          "s_wait_samplecnt",
          "s_wait_bvhcnt",
          "s_wait_loadcnt_dscnt",
          "s_wait_storecnt_dscnt",
          "s_wait_alu",
          "s_wait_idle",
          "s_wait_event",
          "s_waitcnt",
          "s_nop",
          "s_delay_alu",
          "s_clause",
          "s_sleep",
          "s_setprio",
          "s_icache_inv",
          "s_sendmsg",
          "s_sendmsghalt",
          "s_ttracedata",
          "s_version",
          "s_prefetch_data",
          "s_prefetch_inst",
          "s_prefetch_data_pc_rel",
          "s_prefetch_inst_pc_rel",
          "s_dcache_inv",
      },
      no_effect);
  t.add("s_code_end", [](WaveContext& c, const DecodedInstr& in) {
    c.fail(in, "executed s_code_end padding (control ran past the end of the kernel)");
  });
  t.add("s_trap", [](WaveContext& c, const DecodedInstr& in) { c.fail(in, "s_trap executed"); });
  t.add("s_sethalt",
        [](WaveContext& c, const DecodedInstr& in) { c.fail(in, "s_sethalt executed"); });
}

} // namespace tw::emu
