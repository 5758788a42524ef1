// DSL building blocks of the element-wise kernels, traced into small kernels, emitted through
// BOTH backends and run on the gfx12 emulator against host references: block_reduce (sum and
// max across 8 waves through LDS), shuffle (a lane reads the lane it names), silu, and sincos
// over a wide range of angles.
#include <dsl/dsl.hpp>
#include <dsl/ops/activation.hpp>
#include <dsl/ops/block_reduce.hpp>
#include <dsl/ops/trig.hpp>
#include <emit/compile.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include "shared_emulator.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <vector>

using namespace tw;
using namespace tw::emit;

using namespace tw::test;

namespace {

void run(const ir::Kernel& k, Backend b, std::uint32_t groups, const runtime::KernelArgs& args) {
  CompileOptions o;
  o.use_cache = false;
  const CodeObject co = compile(k, b, Arch::gfx1201, o);
  runtime::Device& d = emulator();
  const runtime::ModuleHandle m = d.load_code_object(co.elf);
  d.launch(d.get_kernel(m, co.kernel_name), {groups, 1, 1},
           {static_cast<std::uint32_t>(k.flat_workgroup_size()), 1, 1}, args.span());
  d.synchronize();
}

// out[i] = fn(x[i]) for n floats, 64 threads per workgroup.
ir::Kernel unary_kernel(const char* name, dsl::Float32 (*fn)(const dsl::Float32&)) {
  using namespace tw::dsl;
  KernelBuilder kb(name, {64, 1, 1});
  auto [x, out, n] = kb.args(gptr<f32>("x"), gptr<f32>("out"), scalar<i64>("n"));
  const Int64 i = cast<i64>(block_id()) * Int64(64) + cast<i64>(thread_id());
  if_(i < n, [&] { out.store(i, fn(x.load(i))); });
  return kb.finish();
}

} // namespace

TEST_CASE("block_reduce: every thread of 8 waves gets the workgroup's sum and max") {
  using namespace tw::dsl;
  KernelBuilder kb("block_reduce_test", {256, 1, 1});
  auto [x, sums, maxima] = kb.args(gptr<f32>("x"), gptr<f32>("sums"), gptr<f32>("maxima"));
  const auto lds = use_lds<lds_plan(lds_buffer<f32>("red", 1, 8))>(kb);
  const Int64 i = cast<i64>(block_id()) * Int64(256) + cast<i64>(thread_id());
  const Float32 v = x.load(i);
  sums.store(i, block_reduce(v, Reduce::sum, lds.tile<"red">()));
  maxima.store(i, block_reduce(v, Reduce::max, lds.tile<"red">())); // the scratch is reused
  const ir::Kernel k = kb.finish();
  std::vector<float> in(512);
  for (std::size_t j = 0; j < in.size(); ++j)
    in[j] = float(int(j * 37 % 101) - 50); // integers: every summation order is exact
  double want_sum[2] = {0, 0};
  float want_max[2] = {-1e9f, -1e9f};
  for (std::size_t j = 0; j < in.size(); ++j) {
    want_sum[j / 256] += in[j];
    want_max[j / 256] = std::max(want_max[j / 256], in[j]);
  }
  for (Backend b : {Backend::hip, Backend::llvm}) {
    CAPTURE(backend_name(b));
    const auto dx = upload(in), ds = upload(std::vector<float>(512)),
               dm = upload(std::vector<float>(512));
    run(k, b, 2, runtime::KernelArgs().ptr(dx).ptr(ds).ptr(dm));
    const auto s = download<float>(ds, 512), m = download<float>(dm, 512);
    for (std::size_t j = 0; j < 512; ++j) {
      CAPTURE(j);
      CHECK(s[j] == float(want_sum[j / 256]));
      CHECK(m[j] == want_max[j / 256]);
    }
  }
}

TEST_CASE("shuffle: each lane reads the lane it names (broadcast of a row of lanes)") {
  using namespace tw::dsl;
  KernelBuilder kb("shuffle_test", {64, 1, 1});
  auto [x, out] = kb.args(gptr<f32>("x"), gptr<f32>("out"));
  const Int64 i = cast<i64>(thread_id());
  // Lane l takes lane (l * 7 + 3) % 8 of its wave: each wave's lanes 0..7 fan out to all 32.
  const Int32 src = (lane_id() * 7 + 3) % 8;
  out.store(i, shuffle(x.load(i), src));
  const ir::Kernel k = kb.finish();
  std::vector<float> in(64);
  for (std::size_t j = 0; j < in.size(); ++j)
    in[j] = float(j) * 1.5f - 20.0f;
  for (Backend b : {Backend::hip, Backend::llvm}) {
    CAPTURE(backend_name(b));
    const auto dx = upload(in), dout = upload(std::vector<float>(64));
    run(k, b, 1, runtime::KernelArgs().ptr(dx).ptr(dout));
    const auto got = download<float>(dout, 64);
    for (std::size_t j = 0; j < 64; ++j) {
      CAPTURE(j);
      CHECK(got[j] == in[j / 32 * 32 + (j % 32 * 7 + 3) % 8]);
    }
  }
}

TEST_CASE("block_reduce: a scratch row shorter than the waves is a sentence") {
  using namespace tw::dsl;
  KernelBuilder kb("block_reduce_small", {256, 1, 1});
  const auto lds = use_lds<lds_plan(lds_buffer<f32>("red", 1, 4))>(kb);
  CHECK_THROWS_WITH((void)block_reduce(cast<f32>(thread_id()), Reduce::sum, lds.tile<"red">()),
                    doctest::Contains("the scratch row has 4 elements but the workgroup has 8"));
}

TEST_CASE("silu and sincos: within a few f32 ulp of the float64 functions") {
  std::vector<float> in;
  for (int j = -2000; j <= 2000; ++j)
    in.push_back(float(j) * 0.0123f); // [-24.6, 24.6]
  for (int j = 0; j < 500; ++j)
    in.push_back(float(j) * 37.77f - 9000.0f); // large angles for the reduction
  const std::size_t n = in.size();
  const auto sin_fn = [](const dsl::Float32& x) { return dsl::sincos(x).sin; };
  const auto cos_fn = [](const dsl::Float32& x) { return dsl::sincos(x).cos; };
  struct Case {
    const char* name;
    dsl::Float32 (*fn)(const dsl::Float32&);
    double (*ref)(double);
    double rel, abs; // tolerance: rel * |ref| + abs
  };
  const Case cases[] = {
      {"silu_test", &dsl::silu, [](double x) { return x / (1 + std::exp(-x)); }, 64 * 0x1p-24,
       0x1p-126},
      {"sin_test", +sin_fn, [](double x) { return std::sin(x); }, 4 * 0x1p-24,
       std::ldexp(1.0, -22)},
      {"cos_test", +cos_fn, [](double x) { return std::cos(x); }, 4 * 0x1p-24,
       std::ldexp(1.0, -22)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const ir::Kernel k = unary_kernel(c.name, c.fn);
    for (Backend b : {Backend::hip, Backend::llvm}) {
      CAPTURE(backend_name(b));
      const auto dx = upload(in), dout = upload(std::vector<float>(n));
      run(k, b, std::uint32_t((n + 63) / 64),
          runtime::KernelArgs().ptr(dx).ptr(dout).add<std::int64_t>(std::int64_t(n)));
      const auto out = download<float>(dout, n);
      int bad = 0;
      double worst = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double want = c.ref(double(in[j]));
        const double err = std::abs(double(out[j]) - want);
        // large angles: the f32 angle itself is exact, the reduction must keep up
        const double tol =
            c.rel * std::abs(want) + c.abs * std::max(1.0, std::abs(double(in[j])) / 64);
        worst = std::max(worst, err / tol);
        bad += err > tol;
      }
      CHECK_MESSAGE(bad == 0, bad << " values out of tolerance, worst error / tolerance " << worst);
    }
  }
}
