// The timing capture's compact recording (runtime/emu/timing/capture.hpp): per executed
// instruction a word with its place in the launch's decoded program and a taken-branch bit,
// per LDS / vector memory instruction a MemoryEvent, per instruction of the program its
// execution count; checked against the instructions themselves (their classes and pcs).
#include "../emu_test_util.hpp"
#include "workgroup0_trace.hpp"

#include <runtime/emu/timing/capture.hpp>
#include <runtime/emu/timing/wgp_sim.hpp>

#include <cstring>

using namespace tw;
using namespace tw::emu::timing;

namespace {

const std::string kPath = std::string(TW_TEST_KERNEL_DIR) + "/timing.gfx1201.O3.hsaco";

// Workgroup 0's trace of `kernel` launched with `threads` threads and `pointers` pointers to
// one zeroed buffer, then an int, as arguments; `co` keeps the decoded program the trace
// indexes.
WorkgroupTrace capture_of(const std::string& kernel, uint32_t threads, int pointers, int32_t value,
                          std::shared_ptr<emu::CodeObject>& co) {
  co = emu::CodeObject::load(test::read_file_bytes(kPath));
  emu::GlobalMemory memory;
  const uint64_t buf = memory.allocate(64 * 4 * 32);
  emu::LaunchConfig cfg;
  cfg.block = {threads, 1, 1};
  cfg.dynamic_lds = 4096;
  cfg.kernargs.resize(size_t(pointers) * 8 + 4);
  for (int i = 0; i < pointers; ++i)
    std::memcpy(cfg.kernargs.data() + size_t(i) * 8, &buf, 8);
  std::memcpy(cfg.kernargs.data() + size_t(pointers) * 8, &value, 4);
  return test::workgroup0_trace(*co, kernel, memory, cfg);
}

// Checks every word of every wave against the program: the taken bit exactly on branches
// whose next recorded instruction does not follow them, one MemoryEvent per LDS / vector
// memory word in order, the counts the sum of the words. Returns the taken branches.
size_t check_words(const WorkgroupTrace& t, const emu::CodeObject& co) {
  REQUIRE(t.program == co.program().data());
  REQUIRE(t.program_size == co.program().size());
  REQUIRE(t.executed.size() == t.program_size);
  std::vector<uint64_t> counted(t.program_size, 0);
  size_t taken = 0;
  for (const WaveTrace& w : t.waves) {
    REQUIRE(!w.words.empty());
    size_t memory = 0;
    for (size_t i = 0; i < w.words.size(); ++i) {
      const uint32_t place = w.words[i] & ~kTakenBranch;
      REQUIRE(place < t.program_size);
      ++counted[place];
      const emu::DecodedInstr& in = t.program[place];
      const bool follows = i + 1 == w.words.size() ||
                           t.program[w.words[i + 1] & ~kTakenBranch].pc == in.pc + in.size;
      const bool want_taken = in.cls == emu::InstrClass::Branch && !follows;
      CHECK(bool(w.words[i] & kTakenBranch) == want_taken);
      taken += want_taken;
      if (in.cls == emu::InstrClass::Vmem || in.cls == emu::InstrClass::Lds) {
        REQUIRE(memory < w.memory.size());
        CHECK(w.memory[memory].instr == place);
        ++memory;
      }
    }
    CHECK(memory == w.memory.size());
    CHECK(t.program[w.words.back() & ~kTakenBranch].mnemonic == "s_endpgm");
  }
  CHECK(counted == t.executed);
  return taken;
}

} // namespace

TEST_CASE("timing capture: a word per instruction indexes the program, taken branches marked") {
  std::shared_ptr<emu::CodeObject> co;
  // Two waves, 3 rounds of a loop around two barriers: the back-edge is taken twice per wave.
  const WorkgroupTrace ping = capture_of("barrier_ping_pong", 64, 1, 3, co);
  REQUIRE(ping.waves.size() == 2);
  CHECK(check_words(ping, *co) >= 4);
  // One round: no back-edge taken, the words still match the program.
  std::shared_ptr<emu::CodeObject> co1;
  const WorkgroupTrace once = capture_of("barrier_ping_pong", 64, 1, 1, co1);
  check_words(once, *co1);
  CHECK(once.waves[0].words.size() < ping.waves[0].words.size());
}

TEST_CASE("timing capture: one memory event per LDS / vector memory instruction, in order") {
  std::shared_ptr<emu::CodeObject> co;
  // lds_stride(in, out, stride) reads `in` and writes `out`: both pointers to one buffer here.
  const WorkgroupTrace t = capture_of("lds_stride", 32, 2, 0, co);
  check_words(t, *co);
  size_t ds_loads = 0;
  for (const MemoryEvent& e : t.waves[0].memory)
    if (t.program[e.instr].mnemonic == "ds_load_b32") {
      ++ds_loads;
      CHECK(e.lds_cycles >= 1);
    }
  CHECK(ds_loads == 16); // the kernel's 16 loads
}

TEST_CASE("timing: simulate_wgp refuses a queue of traces of different programs") {
  std::shared_ptr<emu::CodeObject> a, b;
  const WorkgroupTrace ta = capture_of("barrier_ping_pong", 64, 1, 1, a);
  const WorkgroupTrace tb = capture_of("barrier_ping_pong", 64, 1, 1, b); // another decoded copy
  const MachineModel m = machine_by_name("gfx1201");
  TimingCache cache(m);
  CHECK_NOTHROW(simulate_wgp(m, {&ta, &ta}, 1, cache));
  CHECK_THROWS_WITH_AS(simulate_wgp(m, {&ta, &tb}, 1, cache),
                       doctest::Contains("not of one decoded program"), std::invalid_argument);
}
