#pragma once
// The K loop of the GEMM composition. When the operands' buffer windows reach every K tile but
// perhaps the last (window_walk_*: `head_ok`), the tiles they reach run through the
// double-buffered pipeline with windowed fetches (one basic block per iteration, no masks that
// change from tile to tile, no 64-bit address math), and a last tile that is not whole along
// K (odd K: `all_ok` false) runs after that loop with the masked copies. Masked loads never
// sit in a loop with a fetch in flight: their per-element addresses, hoisted out of such a
// loop by the compiler, cost more registers than the kernel has. When the windows do not
// reach (a 128-row tile spanning 2^31 bytes or more) the single-stage loop of masked copies
// takes every tile.
// fetch_for(windowed) gives the fetch of one kind; commit(regs, stage) and
// compute(stage, acc) are the pipeline's.
#include <dsl/dsl.hpp>

namespace tw::kernels::gemm_kernel {

template <class CFrag, class FetchFor, class Commit, class Compute>
CFrag run_k_loop(const dsl::Int32& k_tiles, const dsl::Bool& head_ok, const dsl::Bool& all_ok,
                 const CFrag& init, FetchFor&& fetch_for, Commit&& commit, Compute&& compute) {
  using namespace tw::dsl;
  // Two loops in sequence rather than a branch between them: a branch would merge two
  // accumulators (twice the registers). A windowed fetch the windows do not cover reads 0
  // without touching memory (the walk's limits are 0 then), so the pipeline's prologue is
  // harmless when it runs no tile.
  const Int32 windowed = select(head_ok, select(all_ok, k_tiles, k_tiles - 1), Int32(0));
  const CFrag acc = pipeline<2>(windowed, init, fetch_for(true), commit, compute);
  lds_barrier(); // the pipeline's last reads of its stages are done before stage 0 is rewritten
  return pipeline<1>(
      k_tiles - windowed, acc, [&](const Int32& t) { return fetch_for(false)(windowed + t); },
      commit, compute);
}

} // namespace tw::kernels::gemm_kernel
