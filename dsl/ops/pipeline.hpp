#pragma once
// pipeline<N>: LDS multi-buffering of a loop over tiles, with one LDS barrier per tile
// (lds_barrier: no global_inv).
//   state = pipeline<2>(num_tiles, state,
//       [&](Int32 t) { return registers of tile t (global loads); },          // fetch
//       [&](const auto& regs, Int32 stage) { store them into LDS stage; },    // commit
//       [&](Int32 stage, auto state) { compute on LDS stage; return state; }); // compute
// N >= 2: tiles 0 .. N - 2 are committed and tile N - 1 fetched into registers before the
// loop. Iteration t first commits the registers (tile t + N - 1) into stage (t + N - 1) % N
// (computed on in iteration t - 1, released by that iteration's barrier), then fetches tile
// t + N into the same registers, computes on stage t % N and waits at the barrier. The global
// loads of a tile thus have a whole iteration of compute before their registers are stored,
// wherever the compiler schedules the stores. The last N iterations run in a second loop: no
// fetch past the last tile, and only its first commits (the last tile) and waits.
// N = 1 (one LDS stage, when a bigger one does not fit): fetch, commit, barrier, compute,
// barrier in every iteration.
// The state may be one carried handle (e.g. the accumulator fragment) or a std::tuple of them
// (attention's O, m and l: compute(stage, O, m, l) returns carry(O', m', l')). What fetch
// returns may be any tuple / pair / array nesting of carried handles (CarriedBundle).
// Only the prologue fetches a tile past num_tiles - 1 (when num_tiles < N; it asks for tile
// min(t, num_tiles - 1), or 0 when there is none): such a fetch must be harmless (masked
// global tiles read 0 past the tensor) and its data is never computed on.
#include <dsl/builder/carried_bundle.hpp>
#include <dsl/builder/control.hpp>
#include <dsl/builder/ids.hpp>

namespace tw::dsl {

namespace detail {
template <int Stages, Carried... H, class Fetch, class Commit, class Compute>
std::tuple<H...> pipeline_tuple(const Int32& num_tiles, const std::tuple<H...>& state,
                                Fetch&& fetch, Commit&& commit, Compute&& compute) {
  static_assert(Stages >= 1 && Stages <= 8, "pipeline: 1 to 8 LDS stages");
  const auto step = [&](const Int32& stage, const std::tuple<H...>& s) {
    return std::apply([&](const auto&... h) { return compute(stage, h...); }, s);
  };
  if constexpr (Stages == 1) {
    return for_range(Int32(0), num_tiles, Int32(1), state, [&](Int32 t, H... h) {
      commit(fetch(t), Int32(0));
      lds_barrier();
      const std::tuple<H...> next = step(Int32(0), std::tuple<H...>(h...));
      lds_barrier();
      return next;
    });
  } else {
    const auto stage_of = [](const Int32& t) {
      if constexpr ((Stages & (Stages - 1)) == 0)
        return t & (Stages - 1);
      else
        return cast<i32>(cast<u32>(t) % Stages);
    };
    const Int32 last = max(num_tiles - 1, Int32(0));
    for (int t = 0; t < Stages - 1; ++t)
      commit(fetch(min(Int32(t), last)), Int32(t));
    using Regs = CarriedBundle<std::remove_cvref_t<decltype(fetch(Int32(0)))>>;
    const Regs first{fetch(min(Int32(Stages - 1), last))};
    lds_barrier();
    // Steady state: tiles 0 .. num_tiles - N - 1, each with the fetch of tile t + N in flight.
    const auto steady =
        for_range(Int32(0), num_tiles - Stages, Int32(1),
                  std::tuple_cat(state, std::tuple<Regs>(first)), [&](Int32 t, H... h, Regs regs) {
                    commit(regs.value, stage_of(t + (Stages - 1)));
                    const Regs next{fetch(t + Stages)};
                    const std::tuple<H...> s2 = step(stage_of(t), std::tuple<H...>(h...));
                    lds_barrier();
                    return std::tuple_cat(s2, std::tuple<Regs>(next));
                  });
    // The last N tiles (or all, when there are fewer): compute only, except that the first of
    // them (tile num_tiles - N) commits the registers (the last tile) and meets the barrier.
    // Its commit and barrier sit in uniform ifs without results, so the states flow through
    // one loop (a branch that merged them would double the accumulator's registers).
    const Regs regs = std::get<sizeof...(H)>(steady);
    const std::tuple<H...> steady_states = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<H...>(std::get<I>(steady)...);
    }
    (std::index_sequence_for<H...>{});
    const Int32 commit_at = num_tiles - Stages;
    return for_range(max(commit_at, Int32(0)), num_tiles, Int32(1), steady_states,
                     [&](Int32 t, H... h) {
                       const Bool commits = t == commit_at;
                       if_(commits, [&] { commit(regs.value, stage_of(t + (Stages - 1))); });
                       const std::tuple<H...> s2 = step(stage_of(t), std::tuple<H...>(h...));
                       if_(commits, [&] { lds_barrier(); });
                       return s2;
                     });
  }
}
} // namespace detail

// One carried state: compute(stage, state) returns the new state.
template <int Stages, Carried State, class Fetch, class Commit, class Compute>
State pipeline(const Int32& num_tiles, const State& state, Fetch&& fetch, Commit&& commit,
               Compute&& compute) {
  static_assert(std::same_as<std::invoke_result_t<Compute&, Int32, State>, State>,
                "pipeline: compute(stage, state) must return the new state (same type)");
  auto [final_state] = detail::pipeline_tuple<Stages>(
      num_tiles, std::tuple<State>(state), fetch, commit,
      [&](const Int32& stage, const State& s) { return std::tuple<State>(compute(stage, s)); });
  return final_state;
}

// Several carried states: compute(stage, h...) returns carry(h'...).
template <int Stages, Carried... H, class Fetch, class Commit, class Compute>
std::tuple<H...> pipeline(const Int32& num_tiles, const std::tuple<H...>& state, Fetch&& fetch,
                          Commit&& commit, Compute&& compute) {
  static_assert(std::same_as<std::invoke_result_t<Compute&, Int32, H...>, std::tuple<H...>>,
                "pipeline: compute(stage, states...) must return carry(...) of the same handle "
                "types");
  return detail::pipeline_tuple<Stages>(num_tiles, state, fetch, commit, compute);
}

} // namespace tw::dsl
