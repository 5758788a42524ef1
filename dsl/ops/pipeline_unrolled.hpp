#pragma once
// pipeline_unrolled<N>: the LDS multi-buffered tile loop of pipeline<N> (pipeline.hpp) with N
// tiles per loop iteration, so every tile's LDS stage is a compile-time constant: the stage
// offsets of the LDS loads and stores become immediate offsets of one loop-invariant address
// (no per-tile stage arithmetic on SALU / VALU), and the loop's counter, compare and branch are
// paid once per N tiles.
//   state = pipeline_unrolled<2>(num_tiles, state, fetch, commit, compute);  // as pipeline<2>
// As in pipeline<N> (N >= 2): tiles 0 .. N - 2 are fetched and committed before the loop; tile t
// fetches tile t + N - 1 into registers, computes on stage t % N, commits the fetched tile into
// stage (t + N - 1) % N and waits at the LDS barrier. The loop runs ceil(num_tiles / N) times,
// so when num_tiles is not a multiple of N the last round also computes on up to N - 1 tiles
// past num_tiles - 1. Contract (stronger than pipeline<N>'s): a fetch of a tile at or past
// num_tiles yields a tile whose compute leaves the state unchanged (a GEMM: zeros, which clipped
// and masked global tiles read past the tensor; adding +0 turns a -0 sum into +0). A tail after
// the loop (a branch or a loop of 0 .. N - 1 tiles) instead merged two accumulators and made
// LLVM spill (gfx1201 f16 GEMM: 292 B of scratch).
// Each commit waits once for the global loads first, as in pipeline<N>.
#include <dsl/ops/pipeline_front.hpp>

namespace tw::dsl {

namespace detail {
template <int Stages, Carried... H, class Fetch, class Commit, class Compute>
std::tuple<H...> pipeline_unrolled_tuple(const Int32& num_tiles, const std::tuple<H...>& state,
                                         Fetch& fetch, Commit& commit, Compute& compute) {
  static_assert(Stages >= 2 && Stages <= 8,
                "pipeline_unrolled: 2 to 8 LDS stages (one stage has nothing to unroll: use "
                "pipeline<1>)");
  static_assert((Stages & (Stages - 1)) == 0,
                "pipeline_unrolled: a power-of-two number of stages (the loop count is a shift)");
  constexpr int shift = Stages == 2 ? 1 : Stages == 4 ? 2 : 3;
  const auto step = [&](int stage, const std::tuple<H...>& s) { // a constant stage
    return std::apply([&](const auto&... h) { return compute(Int32(stage), h...); }, s);
  };
  pipeline_prologue<Stages>(fetch, commit);
  const Int32 rounds = (num_tiles + Int32(Stages - 1)) >> Int32(shift);
  return for_range(Int32(0), rounds, Int32(1), state, [&](Int32 round, H... h) {
    std::tuple<H...> cur(h...);
    const Int32 t0 = round << Int32(shift);
    for (int i = 0; i < Stages; ++i) {
      const auto next = fetch(t0 + Int32(i + Stages - 1));
      cur = step(i, cur);
      commit_fetched(commit, next, Int32((i + Stages - 1) % Stages));
      lds_barrier();
    }
    return cur;
  });
}
} // namespace detail

// state: one carried handle, compute(stage, state) returns the new state; or a std::tuple of
// them, compute(stage, h...) returns carry(h'...).
template <int Stages, detail::PipelineState State, class Fetch, class Commit, class Compute>
State pipeline_unrolled(const Int32& num_tiles, const State& state, Fetch&& fetch, Commit&& commit,
                        Compute&& compute) {
  return detail::pipeline_front(state, compute, [&](const auto& tuple, auto&& tuple_compute) {
    return detail::pipeline_unrolled_tuple<Stages>(num_tiles, tuple, fetch, commit, tuple_compute);
  });
}

} // namespace tw::dsl
