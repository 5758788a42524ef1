// bench_linear_attn [seqlen]: linear attention (kernels/attention/linear_attn_api.hpp) at
// batch 1, 4 heads, seqlen (default 256) for head dims 64 and 128, plain / decay / decay +
// normalizer, bf16. Per launch the emulator's statistics: global bytes read against the
// minimum (q, k and v each read once; every value-column tile re-reads q and k, so the ratio
// grows with Dv / 16), instructions per WMMA, and WMMA count. Figures are emulator counts,
// not timings. Last, the timing model's modeled time (gfx1201) at B 1, H 32, S 2048 for D = 128
// (plain, decay, decay + normalizer) and D = 256 (decay + normalizer).
#include <kernels/attention/linear_attn_api.hpp>

#include <runtime/emu/stats.hpp>
#include <runtime/emu_device.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace tw;
using namespace tw::kernels;

int main(int argc, char** argv) {
  const int64_t seqlen = argc > 1 ? std::atoll(argv[1]) : 256;
  const int64_t batch = 1, heads = 4;
  runtime::EmuDevice dev;
  std::vector<runtime::DevicePtr> ptrs;
  const auto make = [&](DType t, Extents shape) {
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    const runtime::DevicePtr p = dev.allocate(size_t(dtype_storage_bytes(t, n)));
    std::vector<uint8_t> zeros(size_t(dtype_storage_bytes(t, n)), 0);
    dev.copy_to_device(p, zeros.data(), zeros.size());
    ptrs.push_back(p);
    return TensorView::on_device(dev, p, t, std::move(shape));
  };
  std::printf("linear_attn bf16, B %lld, H %lld, S %lld (emulator counts)\n",
              static_cast<long long>(batch), static_cast<long long>(heads),
              static_cast<long long>(seqlen));
  for (const int64_t d : {64, 128})
    for (const int mode : {0, 1, 2}) {
      LinearAttnArgs a{make(DType::bf16, {batch, seqlen, heads, d}),
                       make(DType::bf16, {batch, seqlen, heads, d}),
                       make(DType::bf16, {batch, seqlen, heads, d}),
                       make(DType::bf16, {batch, seqlen, heads, d})};
      if (mode >= 1) {
        a.decay = make(DType::f32, {heads});
        const std::vector<float> lam(size_t(heads), 0.95f);
        dev.copy_to_device(a.decay->device_address, lam.data(), lam.size() * sizeof(float));
      }
      a.normalize = mode == 2;
      linear_attn(dev, a);
      const emu::LaunchStats& s = dev.last_stats();
      const int64_t min_read = 3 * batch * seqlen * heads * d * 2;
      std::printf("D = Dv = %3lld %-15s read %10llu (min %9lld, x%5.2f)  WMMA %8llu  "
                  "instructions / WMMA %6.1f  waves %llu\n",
                  static_cast<long long>(d),
                  mode == 0   ? "plain"
                  : mode == 1 ? "decay"
                              : "decay+normalize",
                  static_cast<unsigned long long>(s.global_bytes_read),
                  static_cast<long long>(min_read), double(s.global_bytes_read) / double(min_read),
                  static_cast<unsigned long long>(s.wmma_instructions),
                  s.wmma_instructions ? double(s.total_instructions()) / double(s.wmma_instructions)
                                      : 0.0,
                  static_cast<unsigned long long>(s.waves));
    }
  for (runtime::DevicePtr p : ptrs)
    dev.free(p);
  ptrs.clear();
  // The timing model (runtime/emu/timing, docs/timing.md) at B 1, H 32, S 2048: the real grid
  // with the sampled workgroups emulated (model only); modeled, not measured.
  const int64_t mh = 32, ms = 2048;
  for (const int64_t d : {128, 256})
    for (const int mode : {0, 1, 2}) {
      if (d == 256 && mode != 2) // D = 256: the shipped decay + normalize configuration
        continue;
      LinearAttnArgs a{make(DType::bf16, {1, ms, mh, d}), make(DType::bf16, {1, ms, mh, d}),
                       make(DType::bf16, {1, ms, mh, d}), make(DType::bf16, {1, ms, mh, d})};
      if (mode >= 1) {
        a.decay = make(DType::f32, {mh});
        const std::vector<float> lam(size_t(mh), 0.95f);
        dev.copy_to_device(a.decay->device_address, lam.data(), lam.size() * sizeof(float));
      }
      a.normalize = mode == 2;
      emu::timing::TimingOptions o;
      o.model_only = true;
      dev.set_timing_model(o);
      linear_attn(dev, a);
      const emu::timing::TimingReport t = dev.last_timing().value();
      dev.set_timing_model(std::nullopt);
      std::printf("D = Dv = %3lld %-15s B 1, H %lld, S %lld: modeled on the %s: %.3f ms, bound: "
                  "%s, %d waves/SIMD\n",
                  static_cast<long long>(d),
                  mode == 0   ? "plain"
                  : mode == 1 ? "decay"
                              : "decay+normalize",
                  static_cast<long long>(mh), static_cast<long long>(ms), t.product.c_str(),
                  t.seconds * 1e3, t.bound.c_str(), t.occupancy.waves_per_simd);
      for (runtime::DevicePtr p : ptrs)
        dev.free(p);
      ptrs.clear();
    }
  return 0;
}
