// The slow sweep (ctest label `slow`): every GEMM-family kernel through the host API on the
// emulator with memcheck on, both emitters (for_each_backend), vs the float64 oracles within
// the accuracy contract (integer results exactly), with M, N and K each taking every value of
// 1, 7, 13, 17, 23, 27, 41, 96, 100, 129, 300 (the other two fixed and odd: 23 / 27), and
// K = 0. Nothing of the list is dropped.
//
// Every kernel uses the case runner of its normal tests (../gemm_cases.hpp) and cycles through
// a few dtype / layout / scale / bias / LoRA-rank configs along the sweep (config i % count at
// the i-th of the 34 shapes), so the sweep is not one config and each config meets several
// extents of every axis. scaled_mm_multi walks each axis inside one grouped launch (one problem
// per value), once per config. Each kernel is one TEST_CASE (its own ctest entry, they run in
// parallel with ctest -j); gemm and scaled_mm_multi have one per axis.
#include "../gemm_cases.hpp"

#include <kernels/gemm/gemm_api.hpp>

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <utility>
#include <vector>

using namespace tw;
using namespace tw::oracle;
using kernels::ActQuantMode;
using kernels::DType;

namespace {

constexpr int64_t sizes[] = {1, 7, 13, 17, 23, 27, 41, 96, 100, 129, 300};

using Shape = std::array<int64_t, 3>; // {m, n, k}

// The shapes of one axis (0: M, 1: N, 2: K), in list order; the K axis starts with K = 0.
std::vector<Shape> axis_shapes(int axis) {
  std::vector<Shape> v;
  if (axis == 2)
    v.push_back({23, 27, 0});
  for (int64_t s : sizes)
    v.push_back(axis == 0 ? Shape{s, 23, 27} : axis == 1 ? Shape{27, s, 23} : Shape{23, 27, s});
  return v;
}

// Calls run(m, n, k, i, seed) for every shape of the sweep: the M axis, the N axis, the K axis
// (or only axis `only`). i counts the shapes of all three axes (0 .. 33), seeds step by 10 from
// `seed` (the runners use seed .. seed + 6).
template <class Run>
void sweep(uint64_t seed, Run&& run, int only = -1) {
  CHECK(emu_device().memcheck());
  size_t i = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (const auto& [m, n, k] : axis_shapes(axis)) {
      if (only < 0 || only == axis)
        run(m, n, k, i, seed + 10 * i);
      ++i;
    }
}

// For the runners that take a case struct: config i % N at the i-th shape.
template <class Case, size_t N, class Run>
void sweep_cases(const Case (&configs)[N], uint64_t seed, Run&& run, int only = -1) {
  sweep(
      seed,
      [&](int64_t m, int64_t n, int64_t k, size_t i, uint64_t s) {
        Case c = configs[i % N];
        c.m = m;
        c.n = n;
        c.k = k;
        run(c, s);
      },
      only);
}

// gemm: f16 / bf16 operands in either order, every out dtype, alpha, beta with c, bias.
constexpr GemmCase gemm_configs[] = {
    {0, 0, 0, DType::f16, DType::f32, false, false, true, false, 1.0f},
    {0, 0, 0, DType::bf16, DType::bf16, true, false, true, false, 1.0f},
    {0, 0, 0, DType::f16, DType::f16, false, true, false, true, 0.75f},
    {0, 0, 0, DType::bf16, DType::f32, true, true, true, true, 2.0f},
    {0, 0, 0, DType::f16, DType::bf16, false, false, false, false, 1.0f},
};

struct FusedConfig {
  DType x, q;
  ActQuantMode mode;
  bool rowwise_given;
  DType out;
};
// The fused kernels (int8: int8_linear_fused, else scaled_mm_fused_quant); LoRA rank
// ranks[i % size] at the i-th shape, none when `ranks` is empty.
void sweep_fused(bool int8, std::span<const FusedConfig> configs, std::span<const int64_t> ranks,
                 uint64_t seed) {
  sweep(seed, [&](int64_t m, int64_t n, int64_t k, size_t i, uint64_t s) {
    const FusedConfig& c = configs[i % configs.size()];
    run_fused(int8, m, n, k, c.x, c.q, c.mode, c.rowwise_given, c.out, s,
              ranks.empty() ? 0 : ranks[i % ranks.size()]);
  });
}

} // namespace

TEST_CASE("gemm sweep: every M") {
  sweep_cases(gemm_configs, 100, run_gemm, 0);
}
TEST_CASE("gemm sweep: every N") {
  sweep_cases(gemm_configs, 100, run_gemm, 1);
}
TEST_CASE("gemm sweep: every K, and K = 0") {
  sweep_cases(gemm_configs, 100, run_gemm, 2);
}

TEST_CASE("scaled_mm sweep: every M, N and K, and K = 0") {
  // The four fp8 combinations, every out dtype, tensorwise / rowwise scales, bias or not.
  constexpr ScaledCase configs[] = {
      {0, 0, 0, DType::e4m3, DType::e4m3, DType::bf16, false, true, false},
      {0, 0, 0, DType::e4m3, DType::e5m2, DType::f32, true, false, true},
      {0, 0, 0, DType::e5m2, DType::e4m3, DType::f16, true, true, true},
      {0, 0, 0, DType::e5m2, DType::e5m2, DType::f32, false, false, false},
      {0, 0, 0, DType::e4m3, DType::e5m2, DType::f16, false, true, false},
  };
  sweep_cases(configs, 1000, run_scaled_mm);
}

TEST_CASE("int8_linear sweep: every M, N and K, and K = 0") {
  constexpr Int8Case configs[] = {
      {0, 0, 0, DType::f32, true, true, true},
      {0, 0, 0, DType::bf16, false, true, false},
      {0, 0, 0, DType::f16, true, false, true},
  };
  sweep_cases(configs, 2000, run_int8_linear);
}

TEST_CASE("w8a16 sweep: every M, N and K, and K = 0") {
  constexpr std::pair<DType, bool> configs[] = {
      {DType::f16, true}, {DType::bf16, false}, {DType::bf16, true}, {DType::f16, false}};
  sweep(3000, [&](int64_t m, int64_t n, int64_t k, size_t i, uint64_t seed) {
    const auto [x, bias] = configs[i % std::size(configs)];
    run_w8a16(m, n, k, x, bias, seed);
  });
}

TEST_CASE("mxfp8_gemm sweep: every M, N and K, and K = 0") {
  struct Config {
    DType a, b, out;
    bool bias;
  };
  constexpr Config configs[] = {{DType::e4m3, DType::e4m3, DType::f32, true},
                                {DType::e5m2, DType::e4m3, DType::bf16, false},
                                {DType::e4m3, DType::e5m2, DType::f16, true},
                                {DType::e5m2, DType::e5m2, DType::f32, false}};
  sweep(4000, [&](int64_t m, int64_t n, int64_t k, size_t i, uint64_t seed) {
    const Config& c = configs[i % std::size(configs)];
    run_mxfp8(m, n, k, c.a, c.b, c.out, c.bias, seed);
  });
}

TEST_CASE("scaled_mm_fused_quant sweep: every M, N and K, and K = 0") {
  constexpr FusedConfig configs[] = {
      {DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false, DType::bf16},
      {DType::f16, DType::e5m2, ActQuantMode::given_scale, false, DType::f32},
      {DType::f16, DType::e4m3, ActQuantMode::given_scale, true, DType::f16},
      {DType::bf16, DType::e5m2, ActQuantMode::dynamic_rowwise, false, DType::f32},
  };
  sweep_fused(false, configs, {}, 5000);
}

TEST_CASE("scaled_mm_fused_quant sweep with LoRA: every M, N and K, and K = 0") {
  constexpr FusedConfig configs[] = {
      {DType::f16, DType::e4m3, ActQuantMode::given_scale, true, DType::f32},
      {DType::bf16, DType::e5m2, ActQuantMode::dynamic_rowwise, false, DType::bf16},
      {DType::f16, DType::e5m2, ActQuantMode::given_scale, false, DType::f16},
  };
  constexpr int64_t ranks[] = {7, 1, 16, 40};
  sweep_fused(false, configs, ranks, 6000);
}

TEST_CASE("int8_linear_fused sweep: every M, N and K, and K = 0") {
  constexpr FusedConfig configs[] = {
      {DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false, DType::f32},
      {DType::bf16, DType::int8, ActQuantMode::given_scale, true, DType::bf16},
      {DType::f16, DType::int8, ActQuantMode::given_scale, false, DType::f16},
  };
  sweep_fused(true, configs, {}, 7000);
}

TEST_CASE("int8_linear_fused sweep with LoRA: every M, N and K, and K = 0") {
  constexpr FusedConfig configs[] = {
      {DType::bf16, DType::int8, ActQuantMode::dynamic_rowwise, false, DType::f32},
      {DType::f16, DType::int8, ActQuantMode::given_scale, false, DType::f16},
      {DType::bf16, DType::int8, ActQuantMode::given_scale, true, DType::bf16},
  };
  constexpr int64_t ranks[] = {7, 16, 1, 33};
  sweep_fused(true, configs, ranks, 8000);
}

TEST_CASE("iu4_gemm sweep: every M, N and K, and K = 0") {
  // Signed, unsigned and mixed operands; some with padded leading strides.
  constexpr Iu4Case configs[] = {{0, 0, 0, DType::int4, DType::int4, 0},
                                 {0, 0, 0, DType::uint4, DType::uint4, 2},
                                 {0, 0, 0, DType::int4, DType::uint4, 0},
                                 {0, 0, 0, DType::uint4, DType::int4, 4}};
  sweep_cases(configs, 9000, run_iu4);
}

namespace {

// scaled_mm_multi: per axis, one grouped launch per config whose problems take every value of
// the list (the K axis also 0); one config walks the list downwards (size 1 last).
void run_multi_axis(int axis, uint64_t seed) {
  struct Config {
    ScaledMultiCase c;
    bool descending;
  };
  const Config configs[] = {
      {{{}, DType::e5m2, DType::e4m3, DType::f32, true, false, false}, false},
      {{{}, DType::e4m3, DType::e4m3, DType::bf16, false, true, true}, true},
      {{{}, DType::e4m3, DType::e5m2, DType::f16, true, true, true}, false},
  };
  for (size_t i = 0; i < std::size(configs); ++i) {
    ScaledMultiCase c = configs[i].c;
    c.shapes = axis_shapes(axis);
    if (configs[i].descending)
      std::reverse(c.shapes.begin(), c.shapes.end());
    // One workgroup per output tile: 32 x 128 when every M is <= 64 (the heuristic's small-M
    // tile, docs/kernels.md), else 128 x 128 (these problems are too few for 8 waves).
    int64_t max_m = 0;
    for (const auto& shape : c.shapes)
      max_m = std::max(max_m, shape[0]);
    const int64_t tile_m = max_m <= 64 ? 32 : 128;
    uint64_t workgroups = 0;
    for (const auto& [m, n, k] : c.shapes)
      workgroups += uint64_t((m + tile_m - 1) / tile_m) * uint64_t((n + 127) / 128);
    CAPTURE(i);
    CAPTURE(configs[i].descending);
    CAPTURE(c.rowwise_a);
    CAPTURE(c.rowwise_b);
    // A throw (validation, memcheck) fails this config only; the others still run.
    CHECK_NOTHROW(run_scaled_mm_multi(c, seed + 100 * i, workgroups));
  }
}
} // namespace

TEST_CASE("scaled_mm_multi sweep: every M in one grouped launch") {
  run_multi_axis(0, 10000);
}
TEST_CASE("scaled_mm_multi sweep: every N in one grouped launch") {
  run_multi_axis(1, 11000);
}
TEST_CASE("scaled_mm_multi sweep: every K and K = 0 in one grouped launch") {
  run_multi_axis(2, 12000);
}
