#pragma once
// pipeline<2>: LDS double buffering of a loop over tiles, with one LDS barrier per tile (lds_barrier: no global_inv).
//   state = pipeline<2>(num_tiles, state,
//       [&](Int32 t) { return registers of tile t (global loads); },          // fetch
//       [&](const auto& regs, Int32 stage) { store them into LDS stage; },    // commit
//       [&](Int32 stage, auto state) { compute on LDS stage; return state; }); // compute
// Tile 0 is fetched and committed before the loop; iteration t fetches tile t + 1 into
// registers (its global loads are in flight during the compute), computes on stage t % 2,
// commits the fetched tile into the other stage, and waits at the barrier. `state` (e.g. the
// accumulator fragment) is carried through the loop. The fetches of tile 0 when num_tiles is 0
// and of tile num_tiles in the last iteration must be harmless: masked global tiles read 0 past
// the tensor and their data is never computed on.
#include <dsl/builder/control.hpp>
#include <dsl/builder/ids.hpp>

namespace tw::dsl {

template <int Stages, Carried State, class Fetch, class Commit, class Compute>
State pipeline(const Int32& num_tiles, const State& state, Fetch&& fetch, Commit&& commit,
               Compute&& compute) {
  static_assert(Stages == 2, "pipeline: only double buffering (Stages = 2) is implemented");
  static_assert(std::same_as<std::invoke_result_t<Compute&, Int32, State>, State>,
                "pipeline: compute(stage, state) must return the new state (same type)");
  commit(fetch(Int32(0)), Int32(0));
  lds_barrier();
  auto [final_state] =
      for_range(Int32(0), num_tiles, Int32(1), carry(state), [&](Int32 t, State s) {
        const Int32 stage = t & 1;
        const auto next = fetch(t + 1);
        const State s2 = compute(stage, s);
        commit(next, stage ^ 1);
        lds_barrier();
        return carry(s2);
      });
  return final_state;
}

} // namespace tw::dsl
