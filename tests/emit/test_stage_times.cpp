// emit/stage_times.hpp: a StageTimer adds the wall clock and the thread's CPU time of its scope to
// its slot (CPU time does not grow while the thread sleeps), and compile() on a llvm miss fills
// the stages it runs, on a disk hit only the hit's stages.
#include <emit/compile.hpp>
#include <emit/sample_kernels.hpp>
#include <emit/stage_times.hpp>
#include <emit/subprocess.hpp>

#include <dsl/ir/ir.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <thread>

using namespace tw;
using namespace tw::emit;

namespace {

// Spins the thread for at least `seconds` of its own CPU time.
void spin_cpu(double seconds) {
  const double start = thread_cpu_seconds();
  volatile double x = 1;
  while (thread_cpu_seconds() - start < seconds)
    x = std::sqrt(x + 1.0);
}

} // namespace

TEST_CASE("stage times: a timer adds wall clock and thread CPU time, and sleeping costs no CPU") {
  StageTime slot;
  {
    StageTimer t(&slot);
    spin_cpu(0.02);
  }
  CHECK(slot.cpu_s >= 0.02);
  CHECK(slot.wall_s >= slot.cpu_s - 1e-3); // one thread cannot use more CPU than wall time
  const StageTime after_spin = slot;
  {
    StageTimer t(&slot); // adds to what the slot holds
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  CHECK(slot.wall_s - after_spin.wall_s >= 0.03);
  CHECK(slot.cpu_s - after_spin.cpu_s < 0.01);
  {
    StageTimer t(nullptr); // no slot: nothing to record, nothing to crash
  }
}

TEST_CASE("stage times: a llvm miss fills its backend stages, a disk hit only the hit's") {
  TempDir dir("tilewave-stage-times");
  const ir::Kernel k = samples::wmma_loop();
  CompileOptions o;
  o.cache_dir = dir.path();
  CompileStageTimes miss;
  o.stage_times = &miss;
  compile(k, Backend::llvm, Arch::gfx1201, o);
  for (const StageTime* s : {&miss.verify, &miss.key, &miss.build_module, &miss.optimize,
                             &miss.codegen, &miss.link, &miss.describe, &miss.disk_write}) {
    CHECK(s->wall_s > 0);
    CHECK(s->cpu_s >= 0);
  }
  CHECK(miss.codegen.cpu_s > 0);
  CHECK(miss.hip_compile.wall_s == 0);
  CHECK(miss.memory.wall_s > 0); // a miss looked in memory and on disk first
  const StageTime total = miss.total();
  CHECK(total.wall_s ==
        doctest::Approx(miss.verify.wall_s + miss.key.wall_s + miss.toolchain.wall_s +
                        miss.memory.wall_s + miss.disk_read.wall_s + // the entries looked for
                        miss.build_module.wall_s + miss.optimize.wall_s + miss.codegen.wall_s +
                        miss.link.wall_s + miss.describe.wall_s + miss.disk_write.wall_s));

  clear_memory_cache();
  CompileStageTimes hit;
  o.stage_times = &hit;
  CacheOutcome outcome = CacheOutcome::miss;
  o.cache_outcome = &outcome;
  compile(k, Backend::llvm, Arch::gfx1201, o);
  CHECK(outcome == CacheOutcome::disk_hit);
  CHECK(hit.disk_read.wall_s > 0);
  for (const StageTime* s :
       {&hit.verify, &hit.build_module, &hit.optimize, &hit.codegen, &hit.link, &hit.disk_write}) {
    CHECK(s->wall_s == 0);
    CHECK(s->cpu_s == 0);
  }
}
