// The slow sweep (ctest label `slow`): f16 GEMM through the host API on the emulator with
// memcheck on, both emitters, vs the float64 oracle, with M, N and K each taking every value
// of 1, 7, 13, 17, 23, 27, 41, 96, 100, 129, 300 (the other two fixed and odd), and K = 0.
#include "../gemm_harness.hpp"

#include <kernels/gemm/gemm_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

namespace {
void run(int64_t m, int64_t n, int64_t k, uint64_t seed) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  const HostTensor a = random_tensor(DType::f16, {m, k}, seed);
  const HostTensor b = random_tensor(DType::f16, {k, n}, seed + 1);
  const HostTensor bias = random_tensor(DType::f32, {n}, seed + 2);
  const HostTensor host_out(DType::f32, {m, n});
  kernels::GemmArgs host{a.view(), b.view(), host_out.view()};
  host.bias = bias.view();
  const Reference want = gemm(host);
  for_each_backend([&](emit::Backend) {
    runtime::EmuDevice& dev = emu_device();
    DeviceTensors d(dev);
    HostTensor out(DType::f32, {m, n});
    kernels::GemmArgs args{d.upload(a), d.upload(b), d.upload(out)};
    args.bias = d.upload(bias);
    kernels::gemm(dev, args);
    const CompareResult r = compare(DeviceTensors::download(dev, args.out, out), want,
                                    Tolerance::for_output(DType::f32, k));
    INFO(r.summary());
    CHECK(r.ok);
  });
}
constexpr int64_t sizes[] = {1, 7, 13, 17, 23, 27, 41, 96, 100, 129, 300};
} // namespace

TEST_CASE("gemm sweep: every M") {
  for (int64_t s : sizes)
    run(s, 23, 27, 100 + uint64_t(s));
}
TEST_CASE("gemm sweep: every N") {
  for (int64_t s : sizes)
    run(27, s, 23, 200 + uint64_t(s));
}
TEST_CASE("gemm sweep: every K, and K = 0") {
  run(23, 27, 0, 300);
  for (int64_t s : sizes)
    run(23, 27, s, 300 + uint64_t(s));
}
