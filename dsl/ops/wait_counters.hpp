#pragma once
// Explicit waits on the wave's memory counters, for software pipelines that keep several
// loads in flight and consume them in groups:
//   wait_lds<n>();     // s_wait_dscnt n: at most n of the wave's earlier LDS accesses pending
//   wait_global<n>();  // s_wait_loadcnt n: at most n of its earlier global / buffer loads
// LDS accesses (loads and stores, together) and global / buffer loads each return in the order
// they were issued, so after wait_lds<n>() every LDS access but the last n issued is done.
// The compilers still insert the waits a use needs (SIInsertWaitcnts, for both emitters), so
// a wait never makes code incorrect, only slower when it waits too long; its use is to wait
// once for a group: issue the group's loads (and the next group's), wait for the group, then
// run all of its consumers with no wait between them (the compiler adds none that the
// explicit wait already covers), e.g. dsl/mma/fragment_pipeline.hpp (fragments of a k step)
// and dsl/ops/pipeline.hpp (a stage's global loads before its LDS stores).
// n is 0..63 (the gfx12 counters' range); pair a wait with sched_barrier where the schedulers
// could move the loads it counts across it.
#include <dsl/builder/kernel_builder.hpp>

namespace tw::dsl {

template <int N>
void wait_lds() {
  static_assert(N >= 0 && N <= ir::wait_count_max,
                "wait_lds<n>: n is 0 to 63 (the gfx12 DScnt counter's range)");
  KernelBuilder::current("wait_lds").ops().wait_lds(N);
}

template <int N>
void wait_global() {
  static_assert(N >= 0 && N <= ir::wait_count_max,
                "wait_global<n>: n is 0 to 63 (the gfx12 LOADcnt counter's range)");
  KernelBuilder::current("wait_global").ops().wait_global(N);
}

} // namespace tw::dsl
