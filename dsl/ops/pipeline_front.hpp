#pragma once
// What pipeline<N> (pipeline.hpp) and pipeline_unrolled<N> (pipeline_unrolled.hpp) share: the
// commit of a fetched tile, the prologue, and the front that takes one carried state or a tuple
// of them. Not for kernels: use the two pipelines.
#include <dsl/builder/control.hpp>
#include <dsl/builder/ids.hpp>
#include <dsl/ops/wait_counters.hpp>

#include <tuple>
#include <type_traits>

namespace tw::dsl::detail {

// Commits a fetched tile into an LDS stage: one wait for the wave's global loads (all of them:
// the tile's, issued before the compute that ran since; wait_global<0>), then the commit's
// stores with no wait between them. Without it the compilers wait once per store, for the load
// that store needs (8 s_wait_loadcnt per f16 GEMM K tile). The fence before the wait keeps it
// after the compute's WMMAs: a wait is a scalar instruction, which the schedulers otherwise
// move up past WMMAs (then the tile's loads would have to land before the compute). Vector
// ALU and memory instructions may cross it (the quantizing commit's conversions: with a fence
// that nothing crosses the fused int8 + LoRA kernel spilled 8 B on hip).
template <class Commit, class Regs>
void commit_fetched(Commit& commit, const Regs& regs, const Int32& stage) {
  sched_barrier(ir::sched_kind::valu | ir::sched_kind::vmem | ir::sched_kind::lds |
                ir::sched_kind::transcendental);
  wait_global<0>();
  commit(regs, stage);
}

// The prologue of N >= 2 stages: tiles 0 .. N - 2 fetched and committed, then the barrier.
template <int Stages, class Fetch, class Commit>
void pipeline_prologue(Fetch& fetch, Commit& commit) {
  for (int t = 0; t < Stages - 1; ++t)
    commit_fetched(commit, fetch(Int32(t)), Int32(t));
  lds_barrier();
}

template <class T>
inline constexpr bool is_carried_tuple = false;
template <Carried... H>
inline constexpr bool is_carried_tuple<std::tuple<H...>> = true;

template <class Compute, class Tuple>
struct tuple_compute_result;
template <class Compute, class... H>
struct tuple_compute_result<Compute, std::tuple<H...>> {
  using type = std::invoke_result_t<Compute&, Int32, H...>;
};

// A pipeline's state: one carried handle or a std::tuple of them.
template <class S>
concept PipelineState = Carried<S> || is_carried_tuple<S>;

// The front of both pipelines: runs loop(tuple_state, tuple_compute), the pipeline's loop over a
// std::tuple of states, whose tuple_compute(stage, h...) returns the next tuple. One state:
// compute(stage, state) returns the new state; a tuple: compute(stage, h...) returns carry(...).
template <PipelineState State, class Compute, class Loop>
State pipeline_front(const State& state, Compute& compute, Loop&& loop) {
  if constexpr (is_carried_tuple<State>) {
    static_assert(std::same_as<typename tuple_compute_result<Compute, State>::type, State>,
                  "pipeline: compute(stage, states...) must return carry(...) of the same handle "
                  "types");
    return loop(state, compute);
  } else {
    static_assert(std::same_as<std::invoke_result_t<Compute&, Int32, State>, State>,
                  "pipeline: compute(stage, state) must return the new state (same type)");
    auto [final_state] = loop(std::tuple<State>(state), [&](const Int32& stage, const State& s) {
      return std::tuple<State>(compute(stage, s));
    });
    return final_state;
  }
}

} // namespace tw::dsl::detail
