// dsl/mma/wave_private.hpp on the gfx12 emulator (memcheck), both backends: a one-wave TiledMMA
// run by every wave of a 4-wave workgroup,
//  - map_in_wave: each wave fills its own 32 x 16 accumulator from memory by (row, col) of the
//    one-wave tile (x[w][r][c]),
//  - sum_over_waves: twice, through the two stages of one LDS scratch (the loop pattern: one
//    barrier per call), the second time of 2x - 1 per wave; every wave writes both sums back.
// Expected: sum_w x[w][r][c] and sum_w (2 x[w][r][c] - 1), the same in every wave. The values
// are multiples of 1/4 below 2^8, so every f32 sum is exact whatever the order.
#include <dsl/dsl.hpp>
#include <dsl/mma/wave_private.hpp>
#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include "shared_emulator.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;
using namespace tw::test;

namespace {

constexpr int rows = 32, cols = 16, waves = 4;
constexpr auto mma =
    make_tiled_mma(atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<2, 1>);

ir::Kernel build_wave_sums(int threads) {
  KernelBuilder kb("wave_private_sums", {threads, 1, 1});
  auto [X, Out] = kb.args(gptr<f32>("x"), gptr<f32>("out"));
  constexpr auto plan = lds_plan(lds_buffer<f32>("red", waves * cols, rows, stages(2)));
  auto lds = use_lds<plan>(kb);
  const Int64 w = cast<i64>(wave_id());
  const Int64 tile = Int64(rows * cols);
  const auto mine = map_in_wave(mma, mma.make_accumulator(0.0f),
                                [&](const Float32&, const Int32& r, const Int32& c) {
                                  return X.load(w * tile + cast<i64>(r * cols + c));
                                });
  const auto twice = map_in_wave(mma, mine, [](const Float32& v, const Int32&, const Int32&) {
    return v * Float32(2.0f) - Float32(1.0f);
  });
  const auto s0 = sum_over_waves(mma, mine, lds.tile<"red">(Int32(0)));
  const auto s1 = sum_over_waves(mma, twice, lds.tile<"red">(Int32(1)));
  const auto put = [&](const auto& acc, int which) {
    (void)map_in_wave(mma, acc, [&](const Float32& v, const Int32& r, const Int32& c) {
      Out.store((w * Int64(2) + Int64(which)) * tile + cast<i64>(r * cols + c), v);
      return v;
    });
  };
  put(s0, 0);
  put(s1, 1);
  return kb.finish();
}

} // namespace

TEST_CASE("map_in_wave and sum_over_waves: four waves' one-wave tiles summed through LDS, every "
          "wave gets the sums") {
  std::vector<float> x(waves * rows * cols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 37 % 101) - 50) * 0.25f;
  for_both_backends(build_wave_sums(32 * waves), [&](const emit::CodeObject& co) {
    const auto dx = upload(x), dout = upload(std::vector<float>(2 * x.size(), -999.0f));
    run(co, 1, 32 * waves, runtime::KernelArgs().ptr(dx).ptr(dout));
    const auto got = download<float>(dout, 2 * x.size());
    int bad = 0;
    for (int w = 0; w < waves; ++w)
      for (int e = 0; e < rows * cols; ++e) {
        float sum = 0, sum2 = 0;
        for (int v = 0; v < waves; ++v) {
          sum += x[size_t(v * rows * cols + e)];
          sum2 += 2 * x[size_t(v * rows * cols + e)] - 1;
        }
        if (got[size_t((2 * w) * rows * cols + e)] != sum ||
            got[size_t((2 * w + 1) * rows * cols + e)] != sum2)
          ++bad;
      }
    CHECK(bad == 0);
  });
}

TEST_CASE("sum_over_waves: a scratch for 4 waves in a 2-wave workgroup is refused") {
  std::string message;
  try {
    (void)build_wave_sums(64);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message == "sum_over_waves: the scratch holds 4 wave tiles but the workgroup has 2 waves");
}
