// The library flash attention (tw::kernels::flash_attn) on the default device: bf16 q / k / v
// with GQA (4 query heads over 2 kv heads), causal, Sq = 97 queries over Sk = 129 keys, head
// dim 80 (padded to 96 inside the kernel), the log-sum-exp too. Runs once per backend and
// prints the error against a float64 softmax(Q K^T / sqrt(D)) V on the decoded inputs
// (tolerance: one bf16 step of the largest |value| of V, the rounding of P to bf16).
#include <kernels/attention/flash_attn_api.hpp>
#include <kernels/common/host_tensor.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include "example_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tw;

int main() {
  return examples::guarded([] {
    const int64_t B = 1, Sq = 97, Sk = 129, Hq = 4, Hkv = 2, D = 80;
    runtime::Device& dev = examples::device();
    kernels::HostTensor q(kernels::DType::bf16, {B, Sq, Hq, D}),
        k(kernels::DType::bf16, {B, Sk, Hkv, D}), v(kernels::DType::bf16, {B, Sk, Hkv, D});
    const auto rq = examples::random_values(size_t(B * Sq * Hq * D), 11),
               rk = examples::random_values(size_t(B * Sk * Hkv * D), 12),
               rv = examples::random_values(size_t(B * Sk * Hkv * D), 13);
    for (int64_t s = 0; s < Sq; ++s)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t x = 0; x < D; ++x)
          q.set({0, s, h, x}, rq[size_t((s * Hq + h) * D + x)]); // stored rounded to bf16
    for (int64_t s = 0; s < Sk; ++s)
      for (int64_t h = 0; h < Hkv; ++h)
        for (int64_t x = 0; x < D; ++x) {
          k.set({0, s, h, x}, rk[size_t((s * Hkv + h) * D + x)]);
          v.set({0, s, h, x}, rv[size_t((s * Hkv + h) * D + x)]);
        }
    // Reference: causal bottom-right (row i sees keys j <= i + Sk - Sq).
    std::vector<double> ref(size_t(Sq * Hq * D), 0.0);
    const double scale = 1.0 / std::sqrt(double(D));
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t hk = h / (Hq / Hkv), last = i + Sk - Sq;
        std::vector<double> p(size_t(last + 1));
        double m = -std::numeric_limits<double>::infinity(), l = 0;
        for (int64_t j = 0; j <= last; ++j) {
          double s = 0;
          for (int64_t x = 0; x < D; ++x)
            s += q.at({0, i, h, x}) * k.at({0, j, hk, x});
          p[size_t(j)] = s * scale;
          m = std::max(m, p[size_t(j)]);
        }
        for (double& e : p)
          l += (e = std::exp(e - m));
        for (int64_t x = 0; x < D; ++x) {
          double o = 0;
          for (int64_t j = 0; j <= last; ++j)
            o += p[size_t(j)] * v.at({0, j, hk, x});
          ref[size_t((i * Hq + h) * D + x)] = o / l;
        }
      }
    const auto to_device = [&](const kernels::HostTensor& t) {
      const runtime::DevicePtr ptr = dev.allocate(t.bytes().size());
      dev.copy_to_device(ptr, t.bytes().data(), t.bytes().size());
      return kernels::TensorView::on_device(dev, ptr, t.dtype(), t.shape(), t.strides());
    };
    int failures = 0;
    for (emit::Backend backend : {emit::Backend::hip, emit::Backend::llvm}) {
      kernels::set_gemm_target({backend, Arch::gfx1201});
      kernels::HostTensor out(kernels::DType::bf16, {B, Sq, Hq, D});
      kernels::FlashAttnArgs args;
      args.q = to_device(q);
      args.k = to_device(k);
      args.v = to_device(v);
      args.out = to_device(out);
      args.causal = true;
      kernels::flash_attn(dev, args);
      dev.copy_to_host(out.bytes().data(), args.out.device_address, out.bytes().size());
      double max_abs = 0;
      for (int64_t i = 0; i < Sq; ++i)
        for (int64_t h = 0; h < Hq; ++h)
          for (int64_t x = 0; x < D; ++x)
            max_abs = std::max(max_abs,
                               std::abs(out.at({0, i, h, x}) - ref[size_t((i * Hq + h) * D + x)]));
      failures += examples::check(std::string(emit::backend_name(backend)) +
                                      " flash_attn bf16 causal GQA 97x129 D=80",
                                  max_abs, 0x1p-7);
      for (const auto* t : {&args.q, &args.k, &args.v, &args.out})
        dev.free(t->device_address);
    }
    return failures == 0 ? 0 : 1;
  });
}
