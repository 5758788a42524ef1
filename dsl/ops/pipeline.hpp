#pragma once
// pipeline<N>: LDS multi-buffering of a loop over tiles, with one LDS barrier per tile
// (lds_barrier: no global_inv).
//   state = pipeline<2>(num_tiles, state,
//       [&](Int32 t) { return registers of tile t (global loads); },          // fetch
//       [&](const auto& regs, Int32 stage) { store them into LDS stage; },    // commit
//       [&](Int32 stage, auto state) { compute on LDS stage; return state; }); // compute
// N >= 2: tiles 0 .. N - 2 are fetched and committed before the loop; iteration t fetches tile
// t + N - 1 into registers (its global loads are in flight during the compute), computes on
// stage t % N, commits the fetched tile into stage (t + N - 1) % N (the stage computed on in
// iteration t - 1, released by that iteration's barrier) and waits at the barrier.
// N = 1 (one LDS stage, when a bigger one does not fit): fetch, commit, barrier, compute,
// barrier in every iteration.
// The state may be one carried handle (e.g. the accumulator fragment) or a std::tuple of them
// (attention's O, m and l: compute(stage, O, m, l) returns carry(O', m', l')).
// Fetches of tiles past num_tiles - 1 must be harmless: masked global tiles read 0 past the
// tensor and their data is never computed on.
// Each commit starts with one wait for the wave's global loads (wait_global<0>,
// wait_counters.hpp), so its LDS stores follow with no wait between them: fetch's loads and
// any compute issued before the commit have all returned then.
#include <dsl/ops/pipeline_front.hpp>

namespace tw::dsl {

namespace detail {
template <int Stages, Carried... H, class Fetch, class Commit, class Compute>
std::tuple<H...> pipeline_tuple(const Int32& num_tiles, const std::tuple<H...>& state, Fetch& fetch,
                                Commit& commit, Compute& compute) {
  static_assert(Stages >= 1 && Stages <= 8, "pipeline: 1 to 8 LDS stages");
  const auto step = [&](const Int32& stage, const std::tuple<H...>& s) {
    return std::apply([&](const auto&... h) { return compute(stage, h...); }, s);
  };
  if constexpr (Stages == 1) {
    return for_range(Int32(0), num_tiles, Int32(1), state, [&](Int32 t, H... h) {
      commit_fetched(commit, fetch(t), Int32(0));
      lds_barrier();
      const std::tuple<H...> next = step(Int32(0), std::tuple<H...>(h...));
      lds_barrier();
      return next;
    });
  } else {
    pipeline_prologue<Stages>(fetch, commit);
    const auto stage_of = [](const Int32& t) {
      if constexpr ((Stages & (Stages - 1)) == 0)
        return t & (Stages - 1);
      else
        return cast<i32>(cast<u32>(t) % Stages);
    };
    return for_range(Int32(0), num_tiles, Int32(1), state, [&](Int32 t, H... h) {
      const auto next = fetch(t + (Stages - 1));
      const std::tuple<H...> s2 = step(stage_of(t), std::tuple<H...>(h...));
      commit_fetched(commit, next, stage_of(t + (Stages - 1)));
      lds_barrier();
      return s2;
    });
  }
}
} // namespace detail

// state: one carried handle, compute(stage, state) returns the new state; or a std::tuple of
// them, compute(stage, h...) returns carry(h'...).
template <int Stages, detail::PipelineState State, class Fetch, class Commit, class Compute>
State pipeline(const Int32& num_tiles, const State& state, Fetch&& fetch, Commit&& commit,
               Compute&& compute) {
  return detail::pipeline_front(state, compute, [&](const auto& tuple, auto&& tuple_compute) {
    return detail::pipeline_tuple<Stages>(num_tiles, tuple, fetch, commit, tuple_compute);
  });
}

} // namespace tw::dsl
