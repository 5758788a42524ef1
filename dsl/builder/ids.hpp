#pragma once
// Where the running thread is. Sizes fixed at trace time (the workgroup size, the number of
// waves) are constants that fold; a one-wave kernel's wave_id() is the constant 0.
#include <dsl/handles/scalar_ops.hpp>

namespace tw::dsl {

inline int dim_index(ir::Dim d) {
  return d == ir::Dim::x ? 0 : d == ir::Dim::y ? 1 : 2;
}

// Thread index within the workgroup along `d`.
inline Int32 thread_id(ir::Dim d = ir::Dim::x) {
  KernelBuilder& kb = KernelBuilder::current("thread_id");
  if (kb.workgroup_size()[dim_index(d)] == 1)
    return Int32(0);
  return Int32(kb.ops().workitem_id(d));
}
// Workgroup index within the grid along `d`.
inline Int32 block_id(ir::Dim d = ir::Dim::x) {
  return Int32(KernelBuilder::current("block_id").ops().workgroup_id(d));
}
// Threads per workgroup along `d` (a constant).
inline Int32 block_dim(ir::Dim d = ir::Dim::x) {
  return Int32(KernelBuilder::current("block_dim").workgroup_size()[dim_index(d)]);
}
// Lane within the wave (0..31).
inline Int32 lane_id() {
  return Int32(KernelBuilder::current("lane_id").ops().lane_id());
}
// Wave within the workgroup (flat thread id / 32; uniform across the wave).
inline Int32 wave_id() {
  KernelBuilder& kb = KernelBuilder::current("wave_id");
  if (kb.waves() == 1)
    return Int32(0);
  return Int32(kb.ops().wave_id());
}
// Workgroup-wide barrier with memory visibility for every address space (release fence,
// s_barrier, acquire fence): use it when waves exchange data through global memory.
inline void barrier() {
  KernelBuilder::current("barrier").ops().barrier();
}
// Workgroup-wide barrier that makes LDS writes visible (the fences order LDS only): what a
// stage exchange through LDS needs, without the L0 invalidate (global_inv) of barrier().
inline void lds_barrier() {
  KernelBuilder::current("lds_barrier").ops().barrier(/*lds_only=*/true);
}
// A fence for the compilers' instruction schedulers, no machine code: only instructions of the
// kinds in `mask` (ir::sched_kind bits) move across it; by default none. For an order the
// schedulers would undo (fragment_pipeline.hpp: the next fragment's LDS loads before the
// current WMMAs).
inline void sched_barrier(std::uint32_t mask = ir::sched_kind::none) {
  KernelBuilder::current("sched_barrier").ops().sched_barrier(mask);
}

} // namespace tw::dsl
