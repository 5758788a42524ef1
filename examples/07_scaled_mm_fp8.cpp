// The library fp8 scaled-mm (tw::kernels::scaled_mm) on the default device: e4m3 activations
// x e4m3 weights on the fp8 WMMA, a rowwise scale for a, a tensorwise scale for b, bf16
// output, at a ragged shape. Runs once per backend and prints the error against a float64
// reference on the decoded fp8 inputs (tolerance: one bf16 step at the output's magnitude).
#include <kernels/common/host_tensor.hpp>
#include <kernels/gemm/gemm_api.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include "example_support.hpp"

using namespace tw;

int main() {
  return examples::guarded([] {
    const int64_t M = 150, N = 100, K = 96;
    runtime::Device& dev = examples::device();
    const auto ra = examples::random_values(M * K, 4), rb = examples::random_values(K * N, 5);
    kernels::HostTensor a(kernels::DType::e4m3, {M, K});
    kernels::HostTensor b(kernels::DType::e4m3, {K, N}, kernels::column_major_strides({K, N}));
    kernels::HostTensor sa(kernels::DType::f32, {M}), sb(kernels::DType::f32, {1});
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        a.set({m, k}, 2.0 * ra[size_t(m * K + k)]); // stored rounded to e4m3
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        b.set({k, n}, 2.0 * rb[size_t(k * N + n)]);
    for (int64_t m = 0; m < M; ++m)
      sa.set({m}, 0.01 * double(1 + m % 7));
    sb.set({0}, 0.5);
    std::vector<double> ref(size_t(M * N));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += a.at({m, k}) * b.at({k, n}); // decoded fp8 values
        ref[size_t(m * N + n)] = s * sa.at({m}) * sb.at({0});
      }
    const auto to_device = [&](const kernels::HostTensor& t) {
      const runtime::DevicePtr p = dev.allocate(t.bytes().size());
      dev.copy_to_device(p, t.bytes().data(), t.bytes().size());
      return kernels::TensorView::on_device(dev, p, t.dtype(), t.shape(), t.strides());
    };
    int failures = 0;
    for (emit::Backend backend : {emit::Backend::hip, emit::Backend::llvm}) {
      kernels::set_gemm_target({backend, Arch::gfx1201});
      kernels::HostTensor out(kernels::DType::bf16, {M, N});
      kernels::ScaledMmArgs args{to_device(a), to_device(b), to_device(sa), to_device(sb),
                                 to_device(out)};
      kernels::scaled_mm(dev, args);
      dev.copy_to_host(out.bytes().data(), args.out.device_address, out.bytes().size());
      // Error in units of one bf16 step at each output's magnitude (contract: <= 1).
      double worst = 0, max_abs = 0;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          const double want = ref[size_t(m * N + n)], err = std::abs(out.at({m, n}) - want);
          const double step = std::ldexp(1.0, std::ilogb(std::max(std::abs(want), 0x1p-126)) - 7);
          worst = std::max(worst, err / step);
          max_abs = std::max(max_abs, err);
        }
      std::printf("%s: max |error| %.3g = %.3g bf16 steps\n",
                  std::string(emit::backend_name(backend)).c_str(), max_abs, worst);
      failures += examples::check(std::string(emit::backend_name(backend)) +
                                      " scaled_mm e4m3 x e4m3 -> bf16 150x100x96 (bf16 steps)",
                                  worst, 1.0);
      for (const auto* v : {&args.a, &args.b, &args.scale_a, &args.scale_b, &args.out})
        dev.free(v->device_address);
    }
    return failures == 0 ? 0 : 1;
  });
}
