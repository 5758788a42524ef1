// f16 / bf16 GEMM through the host API (kernels::gemm) on the emulator with memcheck on,
// through both emitters, against the float64 oracle within the accuracy contract: tile
// shapes, odd shapes, K = 0, both operand orders, every output dtype, alpha/beta/bias.
#include "gemm_harness.hpp"

#include <kernels/gemm/gemm_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

namespace {

struct GemmCase {
  int64_t m, n, k;
  DType in = DType::f16, out = DType::f32;
  bool a_col = false, b_col = false; // column-major a / b
  bool bias = false, beta = false;
  float alpha = 1.0f;
};

Extents col_strides(int64_t rows, int64_t cols) {
  (void)cols;
  return {1, std::max<int64_t>(rows, 1)};
}

void run_case(const GemmCase& c, uint64_t seed) {
  CAPTURE(c.m);
  CAPTURE(c.n);
  CAPTURE(c.k);
  CAPTURE(kernels::dtype_name(c.in));
  CAPTURE(kernels::dtype_name(c.out));
  CAPTURE(c.a_col);
  CAPTURE(c.b_col);
  const HostTensor a = random_tensor(c.in, {c.m, c.k}, seed, std::nullopt,
                                     c.a_col ? col_strides(c.m, c.k) : Extents{});
  const HostTensor b = random_tensor(c.in, {c.k, c.n}, seed + 1, std::nullopt,
                                     c.b_col ? col_strides(c.k, c.n) : Extents{});
  const HostTensor cin = random_tensor(c.out, {c.m, c.n}, seed + 2);
  const HostTensor bias = random_tensor(c.out, {c.n}, seed + 3);
  const HostTensor host_out(c.out, {c.m, c.n});
  kernels::GemmArgs host{a.view(), b.view(), host_out.view()};
  host.alpha = c.alpha;
  if (c.beta) {
    host.c = cin.view();
    host.beta = -0.5f;
  }
  if (c.bias)
    host.bias = bias.view();
  const Reference want = gemm(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(c.out, {c.m, c.n});
    kernels::GemmArgs args{d.upload(a), d.upload(b), d.upload(out)};
    args.alpha = host.alpha;
    args.beta = host.beta;
    if (c.beta)
      args.c = d.upload(cin);
    if (c.bias)
      args.bias = d.upload(bias);
    kernels::gemm(dev, args);
    const Matrix got = DeviceTensors::download(dev, args.out, out);
    const CompareResult r = compare(got, want, Tolerance::for_output(c.out, c.k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}

} // namespace

TEST_CASE("gemm: f16 -> f32 at a tile shape and ragged shapes") {
  run_case({128, 128, 64}, 1);
  run_case({129, 27, 41}, 2);
  run_case({7, 300, 13}, 3);
}

TEST_CASE("gemm: bf16 with alpha, beta * c and bias into bf16 and f16") {
  run_case({100, 17, 96, DType::bf16, DType::bf16, false, false, true, true, 0.75f}, 4);
  run_case({23, 41, 27, DType::f16, DType::f16, false, false, true, true, 2.0f}, 5);
}

TEST_CASE("gemm: column-major and row-major operands in every combination") {
  run_case({41, 23, 17, DType::f16, DType::f32, true, true}, 6);
  run_case({17, 41, 23, DType::bf16, DType::f32, false, false}, 7);
  run_case({13, 7, 100, DType::f16, DType::f16, true, false, true}, 8);
}

TEST_CASE("gemm: K = 0 gives zeros plus bias, and M = N = K = 1") {
  run_case({27, 13, 0, DType::f16, DType::f32, false, true, true}, 9);
  run_case({1, 1, 1}, 10);
}
