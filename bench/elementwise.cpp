// bench_elementwise [rows] [width] [--model] [--only NAME]: per element-wise / normalization /
// quantization kernel at [rows, width] (default [4096, 4096], contiguous, 16-byte aligned), the
// emulator's statistics of one launch: global bytes of tensor data read and written against
// the minimum (every input element read once, every output element written once; the [width]
// weight / bias vectors counted once), the kernel-argument bytes the scalar loads read (a
// column of their own: they are not tensor data, and the read ratio leaves them out), and the
// average width of a global access (vector-memory bytes per active-lane access, from the tensor
// bytes moved and the VMEM instruction count). Figures are the emulator's counts, not timings.
//
// --model: the timing model (docs/timing.md) in sampled mode: only 3 workgroups of each
// launch run (model_only), their bytes are scaled by workgroups / sampled (every workgroup of
// these launches does the same work at the default shape), and the modeled time and the
// minimum bytes over it (GB/s) are printed: "modeled", not measured. So are the DRAM bytes:
// the grid's distinct cache lines per buffer (the sampled workgroups' lines scaled to the grid,
// at most the buffer's size), i.e. what DRAM moves when the L2 keeps what several workgroups
// share. The read ratio above counts every workgroup's requests: a [width] weight that each
// workgroup reads once shows there (x1.06 for rms_norm at [4096, 4096]: 256 workgroups x 8 KiB),
// but is served by the L2 after its first read. The DRAM figure is the model's lower bound (a
// buffer counts at most once), so only the read ratio catches a kernel that re-reads its input.
// --only NAME: only the kernels whose name contains NAME (e.g. rms_norm, rope, quant).
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/quant/quant_api.hpp>

#include <runtime/emu/stats.hpp>
#include <runtime/emu/timing/launch_model.hpp>
#include <runtime/emu_device.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::kernels;

namespace {

struct Buffers {
  runtime::EmuDevice& dev;
  std::vector<runtime::DevicePtr> ptrs;
  TensorView make(DType t, Extents shape) {
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    const runtime::DevicePtr p =
        dev.allocate(size_t(std::max<int64_t>(1, dtype_storage_bytes(t, n))));
    ptrs.push_back(p);
    return TensorView::on_device(dev, p, t, std::move(shape));
  }
  ~Buffers() {
    for (runtime::DevicePtr p : ptrs)
      dev.free(p);
  }
};

int64_t bytes_of(const TensorView& t) {
  return dtype_storage_bytes(t.dtype, t.numel());
}

void report(const char* name, runtime::EmuDevice& dev, int64_t min_read, int64_t min_written) {
  const emu::LaunchStats& s = dev.last_stats();
  const uint64_t vmem = s.count(emu::InstrClass::Vmem);
  // Sampled mode: the sampled workgroups' counts, scaled to the grid.
  const auto& timing = dev.last_timing();
  const double scale =
      timing && timing->sampled ? double(timing->workgroups) / double(timing->sampled) : 1.0;
  // The scalar loads of the kernel arguments (at most 64 bytes per wave) are counted apart.
  const uint64_t tensor_read = s.global_bytes_read - s.kernarg_bytes_read;
  const double read = double(tensor_read) * scale, written = double(s.global_bytes_written) * scale,
               kernarg = double(s.kernarg_bytes_read) * scale;
  const double per_access =
      vmem ? double(tensor_read + s.global_bytes_written) / double(vmem * 32) : 0.0;
  std::printf("%-36s read %13.0f (min %11lld, x%.3f)  written %13.0f (min %11lld, x%.3f)  "
              "kernel args %9.0f  ~%4.1f B/lane/access",
              name, read, static_cast<long long>(min_read), read / double(min_read), written,
              static_cast<long long>(min_written), written / double(min_written), kernarg,
              per_access);
  if (timing)
    std::printf("  DRAM %.0f B (x%.3f of min, modeled)  modeled %.1f us, %.0f GB/s of the minimum "
                "bytes, bound %s",
                timing->dram_bytes, timing->dram_bytes / double(min_read + min_written),
                timing->seconds * 1e6, double(min_read + min_written) / timing->seconds * 1e-9,
                timing->bound.c_str());
  std::printf("\n");
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  std::vector<const char*> numbers;
  bool model = false;
  std::string only;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--model") == 0)
      model = true;
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else
      numbers.push_back(argv[i]);
  const int64_t rows = numbers.size() > 0 ? std::atoll(numbers[0]) : 4096;
  const int64_t width = numbers.size() > 1 ? std::atoll(numbers[1]) : 4096;
  runtime::EmuDevice dev;
  dev.set_memcheck(false);
  if (model) {
    emu::timing::TimingOptions t; // gfx1201, 3 sampled workgroups
    t.model_only = true;
    dev.set_timing_model(t);
  }
  std::printf("bench_elementwise: [%lld, %lld], emulator statistics of one launch%s\n",
              static_cast<long long>(rows), static_cast<long long>(width),
              model ? " (sampled: 3 workgroups, bytes scaled to the grid; times modeled)" : "");
  const auto run = [&](const char* name, DType dt,
                       const std::function<void(Buffers&, int64_t&, int64_t&)>& body) {
    if (!only.empty() && std::string(name).find(only) == std::string::npos)
      return;
    Buffers b{dev, {}};
    int64_t min_r = 0, min_w = 0;
    body(b, min_r, min_w);
    report(name, dev, min_r, min_w);
    (void)dt;
  };
  for (DType dt : {DType::bf16}) {
    run("silu bf16", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
      silu(dev, {x, out});
      r = bytes_of(x);
      w = bytes_of(out);
    });
    run("swiglu bf16", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView g = b.make(dt, {rows, width}), u = b.make(dt, {rows, width}),
                       out = b.make(dt, {rows, width});
      swiglu(dev, {g, u, out});
      r = bytes_of(g) + bytes_of(u);
      w = bytes_of(out);
    });
    run("rms_norm bf16 (weight)", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), wt = b.make(dt, {width}),
                       out = b.make(dt, {rows, width});
      rms_norm(dev, {x, wt, std::nullopt, out});
      r = bytes_of(x) + bytes_of(wt);
      w = bytes_of(out);
    });
    run("layer_norm bf16 (weight, bias)", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), wt = b.make(dt, {width}),
                       bias = b.make(dt, {width}), out = b.make(dt, {rows, width});
      layer_norm(dev, {x, wt, bias, out});
      r = bytes_of(x) + bytes_of(wt) + bytes_of(bias);
      w = bytes_of(out);
    });
    run("adaln bf16", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), sc = b.make(dt, {rows, width}),
                       sh = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
      adaln(dev, {x, sc, sh, out});
      r = bytes_of(x) + bytes_of(sc) + bytes_of(sh);
      w = bytes_of(out);
    });
    run("rope bf16 neox d=128 (computed)", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
      RopeParams p;
      p.head_dim = 128;
      rope(dev, {x, out, p});
      r = bytes_of(x);
      w = bytes_of(out);
    });
    run("rope bf16 interleaved d=128 (cache)", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
      RopeParams p;
      p.head_dim = 128;
      p.style = RopeStyle::interleaved;
      p.cos = b.make(DType::f32, {rows, 64});
      p.sin = b.make(DType::f32, {rows, 64});
      p.position_offset = 0;
      rope(dev, {x, out, p});
      r = bytes_of(x) + bytes_of(*p.cos) + bytes_of(*p.sin); // one cache row per token
      w = bytes_of(out);
    });
    run("rms_norm_rope bf16 neox d=128", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), wt = b.make(dt, {128}),
                       out = b.make(dt, {rows, width});
      RopeParams p;
      p.head_dim = 128;
      rms_norm_rope(dev, {x, wt, out, p});
      r = bytes_of(x) + bytes_of(wt);
      w = bytes_of(out);
    });
    run("quant_int8 bf16 rowwise", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int8, {rows, width}),
                       s = b.make(DType::f32, {rows});
      quant_int8(dev, {x, q, s, QuantGranularity::rowwise});
      r = bytes_of(x);
      w = bytes_of(q) + bytes_of(s);
    });
    run("quant_int8 bf16 tensor, caller scale", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int8, {rows, width}),
                       s = b.make(DType::f32, {1});
      quant_int8(dev, {x, q, s, QuantGranularity::tensorwise, 0.5f});
      r = bytes_of(x) + 4; // + the scale
      w = bytes_of(q);
    });
    run("quant_svdquant bf16 g64", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int4, {rows, width}),
                       s = b.make(dt, {rows, (width + 63) / 64});
      quant_svdquant(dev, {x, q, s});
      r = bytes_of(x);
      w = bytes_of(q) + bytes_of(s);
    });
    run("quant_w4a8 bf16 mode 2 g128 e4m3", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const int64_t g = (width + 127) / 128;
      const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::uint4, {rows, width}),
                       s = b.make(DType::f32, {rows}), gs = b.make(DType::e4m3, {rows, g}),
                       z = b.make(DType::uint8, {rows, g}), c = b.make(DType::f32, {rows, g});
      QuantW4a8Args a{x, q, s, gs, z, c};
      a.mode = 2;
      quant_w4a8(dev, a);
      r = bytes_of(x);
      w = bytes_of(q) + bytes_of(s) + bytes_of(gs) + bytes_of(z) + bytes_of(c);
    });
    run("quant_convrot bf16 n=256", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(dt, {rows, width}),
                       q = b.make(DType::int8, {rows, convrot_width(width, 256)}),
                       s = b.make(DType::f32, {rows});
      quant_convrot(dev, {x, q, s});
      r = bytes_of(x);
      w = bytes_of(q) + bytes_of(s);
    });
    run("dequant_fp8 e4m3 -> bf16 rowwise", dt, [&](Buffers& b, int64_t& r, int64_t& w) {
      const TensorView x = b.make(DType::e4m3, {rows, width}), s = b.make(DType::f32, {rows}),
                       out = b.make(dt, {rows, width});
      dequant_fp8(dev, {x, s, out});
      r = bytes_of(x) + bytes_of(s);
      w = bytes_of(out);
    });
  }
  return 0;
}
