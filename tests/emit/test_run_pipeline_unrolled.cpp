// pipeline_unrolled<N> (dsl/ops/pipeline_unrolled.hpp), traced with the DSL, compiled by BOTH
// emitters and run on the gfx12 emulator against a host reference: tiles of 32 floats go
// through an LDS ring of N stages, N tiles per loop iteration, at tile counts that are and are
// not multiples of N (the last round then computes on tiles past the end, which read zeros as
// the contract asks: the input is zero-padded here).
#include <dsl/dsl.hpp>
#include <dsl/ops/pipeline_unrolled.hpp>
#include <emit/compile.hpp>
#include <runtime/emu_device.hpp>

#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include "shared_emulator.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;
using namespace tw::test;

namespace {
// One wave; the loop carries (sum of x, sum of x^2), x read from the neighbour lane's element
// of the stage (the barrier must have completed the stage), and stores them per lane.
template <int Stages>
ir::Kernel build_unrolled_ring() {
  KernelBuilder kb("pipeline_unrolled_" + std::to_string(Stages), {32, 1, 1});
  auto [X, Out, tiles] = kb.args(gptr<f32>("x"), gptr<f32>("out"), scalar<i32>("tiles"));
  constexpr auto plan = lds_plan(lds_buffer<f32>("ring", 1, 32, stages(Stages)));
  auto lds = use_lds<plan>(kb);
  const Int32 lane = lane_id();
  const auto [s1, s2] = pipeline_unrolled<Stages>(
      tiles, carry(Float32(0.0f), Float32(0.0f)),
      [&](const Int32& t) { return X.load(cast<i64>(t) * Int64(32) + cast<i64>(lane)); },
      [&](const Float32& x, const Int32& stage) {
        lds.template tile<"ring">(stage).store(Int32(0), lane, x);
      },
      [&](const Int32& stage, Float32 a, Float32 b) {
        const Float32 x = lds.template tile<"ring">(stage).load(Int32(0), (lane + 1) & 31);
        return carry(a + x, b + x * x);
      });
  Out.store(cast<i64>(lane) * Int64(2), s1);
  Out.store(cast<i64>(lane) * Int64(2) + Int64(1), s2);
  return kb.finish();
}

template <int Stages>
void check_unrolled_ring(int tiles) {
  CAPTURE(Stages);
  CAPTURE(tiles);
  // Tile t holds distinct values (a stale or repeated stage changes the sums); zeros after the
  // last tile, as far as the last round's fetches reach.
  std::vector<float> x(size_t(32 * (tiles + 2 * Stages)), 0.0f);
  for (size_t i = 0; i < size_t(32 * tiles); ++i)
    x[i] = float((i * 37) % 101) / 16.0f - 3.0f + float(i / 32) * 8.0f;
  for_both_backends(build_unrolled_ring<Stages>(), [&](const emit::CodeObject& co) {
    const auto dx = upload(x), dout = upload(std::vector<float>(64, -1.0f));
    run(co, 1, 32, runtime::KernelArgs().ptr(dx).ptr(dout).add<std::int32_t>(tiles));
    const auto got = download<float>(dout, 64);
    for (int l = 0; l < 32; ++l) {
      double a = 0, b = 0;
      for (int t = 0; t < tiles; ++t) {
        const double v = x[size_t(t * 32 + (l + 1) % 32)];
        a += v;
        b += v * v;
      }
      CAPTURE(l);
      CHECK(got[size_t(l * 2)] == doctest::Approx(a).epsilon(1e-6));
      CHECK(got[size_t(l * 2 + 1)] == doctest::Approx(b).epsilon(1e-6));
    }
  });
}
} // namespace

TEST_CASE("pipeline_unrolled<2> and <4> at tile counts that are and are not multiples of the "
          "stages") {
  for (int tiles : {0, 1, 2, 5, 6})
    check_unrolled_ring<2>(tiles);
  for (int tiles : {3, 4, 7, 9})
    check_unrolled_ring<4>(tiles);
}
