// RoPE and RMSNorm + RoPE through the host API on the emulator (memcheck on, both emitters)
// against the float64 oracle: neox and interleaved pairings, head dims 64, 80, 96, 128 and odd
// pair counts, position ids or an offset, cos / sin computed in the kernel or from a cache.
#include "elementwise_cases.hpp"

#include <kernels/elementwise/elementwise_api.hpp>

using namespace tw;
using namespace tw::oracle;
using kernels::DType;
using kernels::RopeStyle;

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

TEST_CASE("rms_norm_rope: more heads than the grid holds (each workgroup loops, weight kept)") {
  // Packed: 4 heads per 32-thread workgroup, 8320 heads over 2048 workgroups.
  run_rope({.tokens = 260, .heads = 32, .head_dim = 128, .norm = true, .block = 32}, 33);
  // One head per workgroup (an odd row stride: runs of one pair), 280 heads over 256.
  run_rope({.tokens = 7, .heads = 40, .head_dim = 128, .norm = true, .ld = 5121}, 34);
}

TEST_CASE("rope: many heads of a token share its angles (cache, position ids, block sizes)") {
  run_rope({.dtype = DType::bf16,
            .tokens = 4,
            .heads = 12,
            .head_dim = 64,
            .ids = true,
            .cache = true,
            .block = 64},
           35);
  run_rope({.tokens = 9, .heads = 7, .head_dim = 80, .style = RopeStyle::interleaved, .block = 32},
           36);
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

TEST_CASE("rms_norm_rope validation: the weight is [head_dim], eps finite, RoPE's own rules") {
  runtime::EmuDevice& d = emu_device();
  DeviceTensors dev(d);
  const TensorView x = dev.upload(HostTensor(DType::f16, {4, 128}));
  const TensorView out = dev.upload(HostTensor(DType::f16, {4, 128}));
  const TensorView w64 = dev.upload(HostTensor(DType::f16, {64}));
  const TensorView w128 = dev.upload(HostTensor(DType::f16, {128}));
  const TensorView wbf = dev.upload(HostTensor(DType::bf16, {64}));
  kernels::RopeParams p;
  p.head_dim = 64;
  CHECK_THROWS_WITH(kernels::rms_norm_rope(d, {x, w128, out, p}),
                    doctest::Contains("rms_norm_rope: argument 'weight' has shape [128]"));
  CHECK_THROWS_WITH(kernels::rms_norm_rope(d, {x, wbf, out, p}),
                    doctest::Contains("rms_norm_rope: argument 'weight' has dtype bf16"));
  CHECK_THROWS_WITH(kernels::rms_norm_rope(d, {x, w64, out, p, -1.0f}),
                    doctest::Contains("rms_norm_rope: parameter 'eps' is"));
  p.head_dim = 62;
  CHECK_THROWS_WITH(kernels::rms_norm_rope(d, {x, w64, out, p}),
                    doctest::Contains("expected a multiple of head_dim 62"));
}
