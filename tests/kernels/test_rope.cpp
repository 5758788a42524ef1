// RoPE and RMSNorm + RoPE through the host API on the emulator (memcheck on, both emitters)
// against the float64 oracle: neox and interleaved pairings, head dims 64, 80, 96, 128 and odd
// pair counts, position ids or an offset, cos / sin computed in the kernel or from a cache.
#include "elementwise_harness.hpp"

#include <kernels/elementwise/elementwise_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;
using kernels::RopeStyle;

namespace {

struct RopeCase {
  DType dtype = DType::f16;
  int64_t tokens = 3, heads = 2, head_dim = 64;
  RopeStyle style = RopeStyle::neox;
  bool ids = false, cache = false, norm = false;
  int64_t ld = 0; // row stride of x (0: contiguous)
  int64_t offset = 5;
};

// f32 angle and sincos: a few 2^-24 relative to theta (see the oracle's error scale).
Tolerance rope_tolerance(DType out, bool norm, int64_t head_dim) {
  Tolerance t;
  t.out = out;
  t.accumulation = 64 * 0x1p-24 + (norm ? f32_accumulation(head_dim) : 0.0);
  return t;
}

void run_rope(const RopeCase& c, uint64_t seed) {
  CAPTURE(c.head_dim);
  CAPTURE(int(c.style));
  CAPTURE(c.ids);
  CAPTURE(c.cache);
  const int64_t width = c.heads * c.head_dim, half = c.head_dim / 2, max_pos = 40;
  KernelRun k;
  k.in["x"] = rows_tensor(c.dtype, c.tokens, width, seed, ValueRange{-2, 2}, c.ld);
  k.out["out"] = rows_tensor(c.dtype, c.tokens, width, seed + 1);
  if (c.ids) {
    HostTensor ids(DType::i32, {c.tokens});
    for (int64_t t = 0; t < c.tokens; ++t)
      ids.set({t}, double((t * 7 + 3) % max_pos));
    k.in["positions"] = ids;
  }
  if (c.cache) {
    HostTensor cs(DType::f32, {max_pos, half}), sn(DType::f32, {max_pos, half});
    for (int64_t p = 0; p < max_pos; ++p)
      for (int64_t i = 0; i < half; ++i) {
        const double th = double(p) * std::pow(10000.0, -2.0 * double(i) / double(c.head_dim));
        cs.set({p, i}, std::cos(th));
        sn.set({p, i}, std::sin(th));
      }
    k.in["cos"] = cs;
    k.in["sin"] = sn;
  }
  if (c.norm)
    k.in["weight"] = random_tensor(c.dtype, {c.head_dim}, seed + 2, ValueRange{0.5, 1.5});
  const auto params = [&](std::map<std::string, TensorView>& v) {
    kernels::RopeParams p;
    p.head_dim = c.head_dim;
    p.style = c.style;
    p.position_offset = c.offset;
    if (c.ids)
      p.positions = v["positions"];
    if (c.cache) {
      p.cos = v["cos"];
      p.sin = v["sin"];
    }
    return p;
  };
  std::map<std::string, TensorView> host;
  for (auto& [n, t] : k.in)
    host[n] = t.view();
  const TensorView out_host = k.out["out"].view();
  const Reference want =
      c.norm ? oracle::rms_norm_rope({host["x"], host["weight"], out_host, params(host), 1e-6f})
             : oracle::rope({host["x"], out_host, params(host)});
  k.run(
      [&](runtime::Device& d, auto& v) {
        if (c.norm)
          kernels::rms_norm_rope(d, {v["x"], v["weight"], v["out"], params(v), 1e-6f});
        else
          kernels::rope(d, {v["x"], v["out"], params(v)});
      },
      [&](auto& got) {
        check_close(got["out"], want, rope_tolerance(c.dtype, c.norm, c.head_dim));
      });
}

} // namespace

TEST_CASE("rope neox: head dims 64, 80, 96, 128 with in-kernel cos / sin and an offset") {
  uint64_t seed = 1;
  for (int64_t d : {64, 80, 96, 128})
    run_rope({.head_dim = d}, seed++);
}

TEST_CASE("rope interleaved: position ids, a cache, bf16 and f32, odd pair counts") {
  run_rope({.dtype = DType::bf16, .head_dim = 80, .style = RopeStyle::interleaved, .ids = true},
           10);
  run_rope({.dtype = DType::f32, .head_dim = 96, .style = RopeStyle::interleaved, .cache = true},
           11);
  run_rope({.dtype = DType::f16, .heads = 3, .head_dim = 10, .style = RopeStyle::interleaved}, 12);
  run_rope({.dtype = DType::f16, .heads = 1, .head_dim = 6, .ids = true, .cache = true}, 13);
}

TEST_CASE("rope: strided x rows (a slice of a wider buffer)") {
  run_rope({.dtype = DType::bf16, .head_dim = 64, .ld = 136}, 20);
  run_rope({.dtype = DType::f16, .head_dim = 14, .style = RopeStyle::interleaved, .ld = 31}, 21);
}

TEST_CASE("rms_norm_rope: per-head RMSNorm then RoPE, both pairings, cache or computed") {
  run_rope({.head_dim = 128, .norm = true}, 30);
  run_rope({.dtype = DType::bf16,
            .head_dim = 80,
            .style = RopeStyle::interleaved,
            .ids = true,
            .norm = true},
           31);
  run_rope({.dtype = DType::f32, .heads = 3, .head_dim = 96, .cache = true, .norm = true}, 32);
}

TEST_CASE("rope: an empty tensor launches nothing") {
  run_rope({.tokens = 0}, 40);
}

TEST_CASE("rope validation: each bad argument is named with its rule") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {4, 128}));
  const TensorView out = dev.upload(HostTensor(DType::f16, {4, 128}));
  kernels::RopeParams p;
  p.head_dim = 63;
  CHECK_THROWS_WITH(kernels::rope(d, {x, out, p}),
                    doctest::Contains("rope: parameter 'head_dim' is 63"));
  p.head_dim = 96;
  CHECK_THROWS_WITH(kernels::rope(d, {x, out, p}),
                    doctest::Contains("expected a multiple of head_dim 96"));
  p.head_dim = 64;
  p.cos = dev.upload(HostTensor(DType::f32, {8, 32}));
  CHECK_THROWS_WITH(kernels::rope(d, {x, out, p}), doctest::Contains("argument 'sin' is missing"));
  p.sin = dev.upload(HostTensor(DType::f32, {8, 16}));
  CHECK_THROWS_WITH(kernels::rope(d, {x, out, p}),
                    doctest::Contains("argument 'sin' has shape [8, 16]; expected [max_pos, 32]"));
  p.cos.reset();
  p.sin.reset();
  p.positions = dev.upload(HostTensor(DType::f32, {4}));
  CHECK_THROWS_WITH(kernels::rope(d, {x, out, p}),
                    doctest::Contains("argument 'positions' has dtype f32"));
}
