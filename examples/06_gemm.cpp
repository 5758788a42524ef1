// The library GEMM (tw::kernels::gemm, kernels/gemm/gemm_api.hpp) on the default device:
// out = alpha * a @ b + bias with f16 operands, a row-major and b column-major, f32 output,
// at a ragged shape (no host-side padding). Runs once per backend and prints the error
// against a float64 host reference.
#include <kernels/common/host_tensor.hpp>
#include <kernels/gemm/gemm_api.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include "example_support.hpp"

using namespace tw;

int main() {
  return examples::guarded([] {
    const int64_t M = 200, N = 136, K = 77;
    runtime::Device& dev = examples::device();
    const auto ra = examples::random_values(M * K, 1), rb = examples::random_values(K * N, 2),
               rbias = examples::random_values(N, 3);
    kernels::HostTensor a(kernels::DType::f16, {M, K});
    kernels::HostTensor b(kernels::DType::f16, {K, N}, kernels::column_major_strides({K, N}));
    kernels::HostTensor bias(kernels::DType::f32, {N});
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        a.set({m, k}, ra[size_t(m * K + k)]);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        b.set({k, n}, rb[size_t(k * N + n)]);
    for (int64_t n = 0; n < N; ++n)
      bias.set({n}, rbias[size_t(n)]);
    const float alpha = 0.5f;
    std::vector<double> ref(size_t(M * N));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += a.at({m, k}) * b.at({k, n});
        ref[size_t(m * N + n)] = alpha * s + bias.at({n});
      }
    const auto to_device = [&](const kernels::HostTensor& t) {
      const runtime::DevicePtr p = dev.allocate(t.bytes().size());
      dev.copy_to_device(p, t.bytes().data(), t.bytes().size());
      return kernels::TensorView::on_device(dev, p, t.dtype(), t.shape(), t.strides());
    };
    int failures = 0;
    for (emit::Backend backend : {emit::Backend::hip, emit::Backend::llvm}) {
      kernels::set_gemm_target({backend, Arch::gfx1201});
      kernels::HostTensor out(kernels::DType::f32, {M, N});
      kernels::GemmArgs args{to_device(a), to_device(b), to_device(out)};
      args.bias = to_device(bias);
      args.alpha = alpha;
      kernels::gemm(dev, args);
      dev.copy_to_host(out.bytes().data(), args.out.device_address, out.bytes().size());
      double err = 0;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n)
          err = std::max(err, std::abs(out.at({m, n}) - ref[size_t(m * N + n)]));
      failures += examples::check(std::string(emit::backend_name(backend)) +
                                      " gemm f16 200x136x77 (+bias, alpha 0.5)",
                                  err, 1e-4);
      for (const auto* v : {&args.a, &args.b, &args.out, &*args.bias})
        dev.free(v->device_address);
    }
    return failures == 0 ? 0 : 1;
  });
}
