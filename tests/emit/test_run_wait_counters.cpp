// wait_lds<n> / wait_global<n> (dsl/ops/wait_counters.hpp), traced with the DSL, compiled by
// BOTH emitters and run on the gfx12 emulator (memcheck on) against a host reference: a lane
// loads four values from LDS and four from global memory, waits once for each group, then
// sums their products. With the waits the kernel has one LDS wait and one load wait between
// the loads and the sums (the compilers add none the explicit ones cover); without them the
// compilers wait per value as it is needed (several of each).
#include "dsl_emu_run.hpp"

#include <dsl/dsl.hpp>
#include <dsl/ops/wait_counters.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

// out[l] = sum over i of lds[(l + 1 + 7 i) % 32] * g[32 (i + 1) + l], lds[l] = g[l].
ir::Kernel four_and_four(bool waits) {
  KernelBuilder kb(waits ? "wait_counters_explicit" : "wait_counters_free", {32, 1, 1});
  auto [G, Out] = kb.args(gptr<f32>("g"), gptr<f32>("out"));
  constexpr auto plan = lds_plan(lds_buffer<f32>("row", 1, 32));
  auto lds = use_lds<plan>(kb);
  const Int32 lane = lane_id();
  lds.template tile<"row">().store(Int32(0), lane, G.load(cast<i64>(lane)));
  lds_barrier();
  std::vector<Float32> x, g;
  for (int i = 0; i < 4; ++i)
    x.push_back(lds.template tile<"row">().load(Int32(0), (lane + (1 + 7 * i)) & 31));
  for (int i = 0; i < 4; ++i)
    g.push_back(G.load(cast<i64>(lane) + Int64(32 * (i + 1))));
  if (waits) {
    sched_barrier();
    wait_lds<0>();
    wait_global<0>();
    sched_barrier();
  }
  Float32 sum = x[0] * g[0];
  for (int i = 1; i < 4; ++i)
    sum = sum + x[std::size_t(i)] * g[std::size_t(i)];
  Out.store(cast<i64>(lane), sum);
  return kb.finish();
}

// The wait instructions naming a counter (s_wait_dscnt, s_wait_loadcnt or the combined
// s_wait_loadcnt_dscnt) from the kernel's first LDS load on (the four loads of each kind and
// their uses; the phase before the barrier has no LDS load).
int waits_from_lds_loads(const std::string& text, const std::string& counter) {
  const std::size_t first_ds = text.find("ds_load_b32");
  REQUIRE(first_ds != std::string::npos);
  int n = 0;
  for (std::size_t at = text.find("s_wait_", first_ds); at != std::string::npos;
       at = text.find("s_wait_", at + 1)) {
    const std::size_t end = text.find_first_of(" \t\n", at);
    const std::string name = text.substr(at, end - at);
    if (name.find(counter) != std::string::npos)
      ++n;
  }
  return n;
}

} // namespace

TEST_CASE("wait_lds and wait_global: one wait per group of loads, results exact on both "
          "emitters") {
  std::vector<float> g(160);
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = float((i * 29) % 67) / 8.0f - 4.0f;
  for (const bool waits : {true, false})
    for (const emit::Backend backend : test::kBothBackends) {
      CAPTURE(waits);
      CAPTURE(backend == emit::Backend::hip ? "hip" : "llvm");
      test::DslEmuRun run(four_and_four(waits), backend);
      const std::string& text = run.art.assembly;
      INFO(text);
      if (waits) {
        CHECK(waits_from_lds_loads(text, "dscnt") == 1);
        CHECK(waits_from_lds_loads(text, "loadcnt") == 1);
      } else { // the compilers' own: several, as each value is needed
        CHECK(waits_from_lds_loads(text, "dscnt") > 1);
        CHECK(waits_from_lds_loads(text, "loadcnt") > 1);
      }
      const auto dg = run.upload(g), dout = run.upload(std::vector<float>(32, -1.0f));
      run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(dg).ptr(dout));
      const auto got = run.download<float>(dout, 32);
      for (int l = 0; l < 32; ++l) {
        double want = 0.0; // exact: multiples of 1/64 below 2^7
        for (int i = 0; i < 4; ++i)
          want += double(g[std::size_t((l + 1 + 7 * i) % 32)]) * g[std::size_t(32 * (i + 1) + l)];
        CAPTURE(l);
        CHECK(double(got[std::size_t(l)]) == want);
      }
    }
}
