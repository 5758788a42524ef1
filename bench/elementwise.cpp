// bench_elementwise [rows] [width] [--only NAME]: per element-wise / normalization /
// quantization kernel at [rows, width] (default [4096, 4096], contiguous, 16-byte aligned), two
// runs of the host call (every launch it makes; quant_int8's tensorwise abs-max makes three):
//
// 1. The whole grid on the emulator: the global bytes of tensor data the kernel requests
//    (read, written) against the minimum (every input element read once, every output element
//    written once; a [width] weight / bias counted once), the kernel-argument bytes the
//    scalar loads read (a column of their own: not tensor data, the ratios leave them out) and
//    the average width of a global access (vector-memory bytes per active-lane access). These
//    are exact counts. A [width] weight that each workgroup of the strided row loop reads once
//    shows here (rms_norm x1.062 at [4096, 4096]: 256 workgroups x 8 KiB over 32 MiB).
// 2. The timing model (docs/timing.md, gfx1201) in sampled mode: 3 workgroups of each launch
//    run (model_only) and are scaled to the grid. "L2 requested" is the model's L2 traffic
//    (each sampled workgroup's distinct 128-byte lines x workgroups: a weight every workgroup
//    reads counts for each). "DRAM = bytes moved" is what the "bytes moved" means
//    here: the bytes DRAM moves, modeled (gfx1201), summed over the kernel's launches on one
//    device, with the cache residency the model carries from launch to launch (what a launch
//    touched stays in the 8 MiB L2 / 64 MiB Infinity Cache for the next one: quant_int8's
//    codes pass finds x there; the record is reset before each kernel). Per launch it is each
//    buffer's sampled lines scaled to the grid, at most the buffer's size, less the bytes
//    earlier launches left in the caches. Both against the minimum bytes read + written
//    (printed), and "held" the bytes earlier launches of the same call left in the caches.
//    These are modeled figures, not measurements: a re-read of a broadcast weight is an L2
//    hit in the model, as it is inherently for any grid of more than one workgroup. Then the
//    modeled time (the launches' sum), the minimum bytes over it and what bounds the longest
//    launch: "modeled (gfx1201)".
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

// The emulator, with the statistics and modeled figures of every launch of one host call
// summed (a host call may launch several kernels).
class CountingDevice final : public runtime::Device {
public:
  explicit CountingDevice(runtime::EmuDevice& emu) : emu_(emu) {}
  std::string name() const override { return emu_.name(); }
  bool is_emulator() const override { return true; }
  runtime::DevicePtr allocate(size_t bytes) override { return emu_.allocate(bytes); }
  void free(runtime::DevicePtr p) override { emu_.free(p); }
  void copy_to_device(runtime::DevicePtr dst, const void* src, size_t bytes) override {
    emu_.copy_to_device(dst, src, bytes);
  }
  void copy_to_host(void* dst, runtime::DevicePtr src, size_t bytes) override {
    emu_.copy_to_host(dst, src, bytes);
  }
  runtime::ModuleHandle load_code_object(std::span<const uint8_t> elf) override {
    return emu_.load_code_object(elf);
  }
  runtime::KernelHandle get_kernel(runtime::ModuleHandle m, std::string_view n) override {
    return emu_.get_kernel(m, n);
  }
  void launch(runtime::KernelHandle k, runtime::Dim3 grid, runtime::Dim3 block,
              std::span<const uint8_t> kernargs, uint32_t dynamic_lds) override {
    emu_.launch(k, grid, block, kernargs, dynamic_lds);
    const auto& t = emu_.last_timing();
    // Sampled mode: the sampled workgroups' counts, scaled to the grid.
    const double scale = t && t->sampled ? double(t->workgroups) / double(t->sampled) : 1.0;
    const emu::LaunchStats& s = emu_.last_stats();
    Totals& a = totals;
    a.read += double(s.global_bytes_read - s.kernarg_bytes_read) * scale;
    a.written += double(s.global_bytes_written) * scale;
    a.kernarg += double(s.kernarg_bytes_read) * scale;
    a.vmem += double(s.count(emu::InstrClass::Vmem)) * scale;
    if (t) {
      a.l2 += t->l2_bytes;
      a.dram += t->dram_bytes;
      a.held += t->held_l2_bytes + t->held_mall_bytes;
      a.seconds += t->seconds;
      if (t->seconds > a.longest) {
        a.longest = t->seconds;
        a.bound = t->bound;
      }
    }
  }
  void synchronize() override { emu_.synchronize(); }

  struct Totals {
    double read = 0, written = 0, kernarg = 0, vmem = 0;         // emulator counts
    double l2 = 0, dram = 0, held = 0, seconds = 0, longest = 0; // modeled
    std::string bound;
  } totals;

private:
  runtime::EmuDevice& emu_;
};

struct Buffers {
  runtime::Device& dev;
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

} // namespace

int main(int argc, char** argv) {
  std::vector<const char*> numbers;
  std::string only;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else
      numbers.push_back(argv[i]);
  const int64_t rows = numbers.size() > 0 ? std::atoll(numbers[0]) : 4096;
  const int64_t width = numbers.size() > 1 ? std::atoll(numbers[1]) : 4096;
  runtime::EmuDevice emu;
  emu.set_memcheck(false);
  CountingDevice dev(emu);
  std::printf("bench_elementwise: [%lld, %lld]. Requested: the emulator's exact byte counts over "
              "the whole grid. L2 requested, DRAM = bytes moved, held and time: modeled (gfx1201), "
              "the default sample (one workgroup per simulated one) per launch scaled to the grid, summed over the kernel's "
              "launches with cache residency carried between them (reset before each kernel).\n",
              static_cast<long long>(rows), static_cast<long long>(width));
  std::printf("%-36s %28s %28s %10s %7s %20s %32s %10s %10s %6s  %s\n", "kernel",
              "requested read (min, x)", "requested written (min, x)", "args", "B/lane",
              "L2 requested (x)", "DRAM = bytes moved (min, x)", "held", "time us", "GB/s",
              "bound");
  const auto run = [&](const char* name,
                       const std::function<void(Buffers&, int64_t&, int64_t&)>& body) {
    if (!only.empty() && std::string(name).find(only) == std::string::npos)
      return;
    int64_t min_r = 0, min_w = 0;
    emu.set_timing_model(std::nullopt);
    dev.totals = {};
    {
      Buffers b{dev, {}};
      body(b, min_r, min_w);
    }
    const CountingDevice::Totals counted = dev.totals;
    emu::timing::TimingOptions t; // gfx1201, the default sample
    t.model_only = true;
    emu.set_timing_model(t);
    emu.reset_timing_caches(); // the kernel's launches start on cold caches
    dev.totals = {};
    {
      Buffers b{dev, {}};
      body(b, min_r, min_w);
    }
    const CountingDevice::Totals& m = dev.totals;
    const double min_all = double(min_r + min_w);
    char l2[24], dram[40];
    std::snprintf(l2, sizeof l2, "%.0f x%.3f", m.l2, m.l2 / min_all);
    std::snprintf(dram, sizeof dram, "%.0f (%.0f x%.3f)", m.dram, min_all, m.dram / min_all);
    const double per_access =
        counted.vmem > 0 ? (counted.read + counted.written) / (counted.vmem * 32) : 0.0;
    std::printf("%-36s %11.0f (%9lld x%.3f) %11.0f (%9lld x%.3f) %10.0f %7.1f %20s %32s %10.0f "
                "%10.1f %6.0f  %s\n",
                name, counted.read, static_cast<long long>(min_r), counted.read / double(min_r),
                counted.written, static_cast<long long>(min_w), counted.written / double(min_w),
                counted.kernarg, per_access, l2, dram, m.held, m.seconds * 1e6,
                min_all / m.seconds * 1e-9, m.bound.c_str());
    std::fflush(stdout);
  };
  const DType dt = DType::bf16;
  run("silu bf16", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
    silu(dev, {x, out});
    r = bytes_of(x);
    w = bytes_of(out);
  });
  run("swiglu bf16", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView g = b.make(dt, {rows, width}), u = b.make(dt, {rows, width}),
                     out = b.make(dt, {rows, width});
    swiglu(dev, {g, u, out});
    r = bytes_of(g) + bytes_of(u);
    w = bytes_of(out);
  });
  run("rms_norm bf16 (weight)", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), wt = b.make(dt, {width}),
                     out = b.make(dt, {rows, width});
    rms_norm(dev, {x, wt, std::nullopt, out});
    r = bytes_of(x) + bytes_of(wt);
    w = bytes_of(out);
  });
  run("layer_norm bf16 (weight, bias)", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), wt = b.make(dt, {width}),
                     bias = b.make(dt, {width}), out = b.make(dt, {rows, width});
    layer_norm(dev, {x, wt, bias, out});
    r = bytes_of(x) + bytes_of(wt) + bytes_of(bias);
    w = bytes_of(out);
  });
  run("adaln bf16", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), sc = b.make(dt, {rows, width}),
                     sh = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
    adaln(dev, {x, sc, sh, out});
    r = bytes_of(x) + bytes_of(sc) + bytes_of(sh);
    w = bytes_of(out);
  });
  run("rope bf16 neox d=128 (computed)", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), out = b.make(dt, {rows, width});
    RopeParams p;
    p.head_dim = 128;
    rope(dev, {x, out, p});
    r = bytes_of(x);
    w = bytes_of(out);
  });
  run("rope bf16 interleaved d=128 (cache)", [&](Buffers& b, int64_t& r, int64_t& w) {
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
  run("rms_norm_rope bf16 neox d=128", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), wt = b.make(dt, {128}),
                     out = b.make(dt, {rows, width});
    RopeParams p;
    p.head_dim = 128;
    rms_norm_rope(dev, {x, wt, out, p});
    r = bytes_of(x) + bytes_of(wt);
    w = bytes_of(out);
  });
  run("quant_int8 bf16 rowwise", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int8, {rows, width}),
                     s = b.make(DType::f32, {rows});
    quant_int8(dev, {x, q, s, QuantGranularity::rowwise});
    r = bytes_of(x);
    w = bytes_of(q) + bytes_of(s);
  });
  run("quant_int8 bf16 tensor, caller scale", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int8, {rows, width}),
                     s = b.make(DType::f32, {1});
    quant_int8(dev, {x, q, s, QuantGranularity::tensorwise, 0.5f});
    r = bytes_of(x) + 4; // + the scale
    w = bytes_of(q);
  });
  run("quant_int8 bf16 tensor, abs-max", [&](Buffers& b, int64_t& r, int64_t& w) {
    // Three launches: row abs-max (reads x), their max into the scale, the codes (reads x
    // again: the scale depends on every element, so one pass cannot write the codes).
    const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int8, {rows, width}),
                     s = b.make(DType::f32, {1});
    quant_int8(dev, {x, q, s, QuantGranularity::tensorwise});
    r = bytes_of(x);
    w = bytes_of(q) + bytes_of(s);
  });
  run("quant_fp8_stochastic f32 -> e4m3", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(DType::f32, {rows, width}), q = b.make(DType::e4m3, {rows, width});
    quant_fp8_stochastic(dev, {x, q, 7, 0});
    r = bytes_of(x);
    w = bytes_of(q);
  });
  run("quant_svdquant bf16 g64", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}), q = b.make(DType::int4, {rows, width}),
                     s = b.make(dt, {rows, (width + 63) / 64});
    quant_svdquant(dev, {x, q, s});
    r = bytes_of(x);
    w = bytes_of(q) + bytes_of(s);
  });
  run("quant_w4a8 bf16 mode 2 g128 e4m3", [&](Buffers& b, int64_t& r, int64_t& w) {
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
  run("quant_convrot bf16 n=256", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(dt, {rows, width}),
                     q = b.make(DType::int8, {rows, convrot_width(width, 256)}),
                     s = b.make(DType::f32, {rows});
    quant_convrot(dev, {x, q, s});
    r = bytes_of(x);
    w = bytes_of(q) + bytes_of(s);
  });
  run("dequant_fp8 e4m3 -> bf16 rowwise", [&](Buffers& b, int64_t& r, int64_t& w) {
    const TensorView x = b.make(DType::e4m3, {rows, width}), s = b.make(DType::f32, {rows}),
                     out = b.make(dt, {rows, width});
    dequant_fp8(dev, {x, s, out});
    r = bytes_of(x) + bytes_of(s);
    w = bytes_of(out);
  });
  run("dequant_awq uint4 -> bf16 g128", [&](Buffers& b, int64_t& r, int64_t& w) {
    const int64_t g = (rows + 127) / 128; // groups of 128 rows (K) per column
    const TensorView q = b.make(DType::uint4, {rows, width}), z = b.make(DType::uint4, {g, width}),
                     s = b.make(dt, {g, width}), out = b.make(dt, {rows, width});
    dequant_awq(dev, {q, z, s, out, 128});
    r = bytes_of(q) + bytes_of(z) + bytes_of(s);
    w = bytes_of(out);
  });
  return 0;
}
