// scaled_mm (fp8 e4m3 / e5m2, all four WMMA combinations) and int8_linear (iu8 WMMA, exact i32
// accumulation) through the host API on the emulator with memcheck on, through both emitters,
// against the float64 oracles: tensorwise and rowwise scales, bias, every output dtype,
// ragged shapes and K = 0.
#include "gemm_cases.hpp"

using namespace tw;
using namespace tw::oracle;
using kernels::DType;

TEST_CASE("scaled_mm: the four fp8 combinations at ragged shapes") {
  run_scaled_mm({129, 41, 96, DType::e4m3, DType::e4m3, DType::bf16}, 11);
  run_scaled_mm({27, 100, 23, DType::e4m3, DType::e5m2, DType::f32, true, false}, 12);
  run_scaled_mm({27, 100, 23, DType::e4m3, DType::e5m2, DType::bf16, false, true}, 18);
  run_scaled_mm({27, 100, 23, DType::e4m3, DType::e4m3, DType::f16, true, false}, 17);
  run_scaled_mm({41, 13, 96, DType::e5m2, DType::e4m3, DType::f16, false, true, true}, 19);
  run_scaled_mm({13, 17, 129, DType::e5m2, DType::e4m3, DType::f32, false, false, true}, 13);
  run_scaled_mm({7, 23, 41, DType::e5m2, DType::e5m2, DType::f32, true, true, true}, 14);
}

TEST_CASE("scaled_mm: K = 0 gives bias, and a full 128 x 128 tile") {
  run_scaled_mm({17, 27, 0, DType::e4m3, DType::e4m3, DType::f32, true, true, true}, 15);
  run_scaled_mm({128, 128, 64, DType::e4m3, DType::e4m3, DType::f32}, 16);
}

TEST_CASE("int8_linear: exact i32 accumulation, scales and bias in the epilogue") {
  run_int8_linear({100, 41, 300, DType::f32, true, true, true}, 21);
  run_int8_linear({23, 129, 17, DType::bf16, false, true}, 22);
  run_int8_linear({1, 7, 13, DType::f16, true, false, true}, 23);
  run_int8_linear({13, 27, 0, DType::f32, true, true, true}, 24);
}

TEST_CASE("w8a16: int8 weights converted to f16 / bf16 in the prologue, per-channel scales") {
  run_w8a16(100, 41, 96, DType::f16, true, 31);
  run_w8a16(17, 129, 27, DType::bf16, false, 32);
  run_w8a16(7, 13, 0, DType::f16, true, 33);
  run_w8a16(128, 128, 64, DType::bf16, true, 34);
}

TEST_CASE("scaled_mm_multi: problems of different shapes in one grouped launch") {
  // Workgroups (128 x 128 tiles): 1 + 0 + 2 + 1 + 2 * 3 = 10, in one grid.
  run_scaled_mm_multi({{{17, 41, 27}, {0, 13, 7}, {129, 7, 96}, {23, 23, 0}, {130, 300, 40}}}, 40,
                      10);
}

TEST_CASE("scaled_mm_multi: 45 problems, empty ones among them (binary search over 35 rows)") {
  ScaledMultiCase c;
  uint64_t tiles = 0;
  for (int i = 0; i < 45; ++i) {
    // Every ninth problem is empty (M = 0 or N = 0), the rest small and ragged; problem 20
    // spans 2 x 2 tiles.
    const int64_t m = i % 9 == 4 ? 0 : i == 20 ? 130 : 1 + (i * 7) % 23;
    const int64_t n = i % 9 == 8 ? 0 : i == 20 ? 129 : 1 + (i * 5) % 19;
    const int64_t k = (i * 11) % 37;
    c.shapes.push_back({m, n, k});
    tiles += uint64_t((m + 127) / 128 * ((n + 127) / 128));
  }
  c.bias = true;
  c.out = DType::bf16;
  CHECK(tiles == 38); // 35 non-empty problems, one of them 2 x 2 tiles
  run_scaled_mm_multi(c, 70, tiles);
}

TEST_CASE("mxfp8_gemm: e8m0 scales per 32-element K block applied in the main loop") {
  run_mxfp8(41, 27, 100, DType::e4m3, DType::e4m3, DType::f32, true, 51);
  run_mxfp8(129, 13, 64, DType::e5m2, DType::e4m3, DType::bf16, false, 52);
  run_mxfp8(7, 130, 23, DType::e4m3, DType::e5m2, DType::f16, true, 53);
  run_mxfp8(17, 7, 0, DType::e5m2, DType::e5m2, DType::f32, true, 54);
}

TEST_CASE("scaled_mm_fused_quant: bf16 / f16 activations quantized to fp8 in the prologue") {
  using kernels::ActQuantMode;
  run_fused(false, 41, 27, 100, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, 61);
  run_fused(false, 129, 13, 23, DType::f16, DType::e5m2, ActQuantMode::given_scale, false,
            DType::f32, 62);
  run_fused(false, 7, 17, 0, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 63);
}

TEST_CASE("fused kernels: the dynamic amax over 16-byte aligned rows (128-bit steps + tail)") {
  using kernels::ActQuantMode;
  // Leading stride 16 (32 bytes): K = 13 takes one 8-wide step and a 5-element tail, K = 40
  // five steps; 129 rows put threads past M in the second row tile.
  run_fused(false, 129, 27, 13, DType::bf16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 91, 0, 16);
  run_fused(true, 23, 17, 40, DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, 92, 0, 48);
}

TEST_CASE("int8_linear_fused: roundeven + clamp [-128, 127] activation quantization") {
  using kernels::ActQuantMode;
  run_fused(true, 100, 41, 96, DType::f16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 71);
  run_fused(true, 23, 129, 27, DType::bf16, DType::int8, ActQuantMode::given_scale, true,
            DType::bf16, 72);
}

TEST_CASE("fused kernels with the LoRA block: any out dtype, ranks across LoRA tiles") {
  using kernels::ActQuantMode;
  run_fused(true, 41, 27, 100, DType::bf16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 81, 16);
  run_fused(false, 23, 129, 27, DType::f16, DType::e4m3, ActQuantMode::given_scale, true,
            DType::f32, 82, 7);
  // 16-bit outs: the LoRA product is added in f32 before the one rounding.
  run_fused(false, 23, 13, 27, DType::f16, DType::e4m3, ActQuantMode::given_scale, true,
            DType::bf16, 83, 7);
  run_fused(true, 130, 17, 41, DType::f16, DType::int8, ActQuantMode::given_scale, false,
            DType::f16, 84, 1);
  // Ranks past one 32-wide LoRA tile (a masked second tile) and two column tiles of out.
  run_fused(false, 17, 300, 13, DType::bf16, DType::e5m2, ActQuantMode::dynamic_rowwise, false,
            DType::bf16, 85, 40);
  run_fused(true, 7, 129, 96, DType::bf16, DType::int8, ActQuantMode::dynamic_rowwise, false,
            DType::f32, 86, 64);
  // K = 0: out = bias + LoRA of a zero activation (0).
  run_fused(false, 13, 7, 0, DType::f16, DType::e4m3, ActQuantMode::dynamic_rowwise, false,
            DType::f16, 87, 3);
}

// The kernel accumulates the LoRA product onto x / lora_scale and multiplies the sum by
// lora_scale (the main accumulator's registers hold both): a scale that is not a power of two
// rounds there, a tiny or a large scale keeps both terms, and lora_scale = 0 runs no rank step.
TEST_CASE("fused kernels with the LoRA block: lora scales 0, 0.3, 1e-3, -7.5 and 1000") {
  using kernels::ActQuantMode;
  for (float scale : {0.0f, 0.3f, 1e-3f, -7.5f, 1000.0f}) {
    run_fused(true, 41, 130, 100, DType::bf16, DType::int8, ActQuantMode::dynamic_rowwise, false,
              DType::f32, 91, 16, 0, scale);
    run_fused(false, 23, 27, 64, DType::f16, DType::e4m3, ActQuantMode::given_scale, true,
              DType::bf16, 92, 40, 0, scale);
  }
}

// Clipped edges with 1-byte operands (runs of 16: K a multiple of 16, K tile 64): the K-edge
// tile reads zeros past K, so the sums stay exact; w8a16's f16 a (runs of 8) beside int8 b;
// K multiples of 64 take k_whole.
TEST_CASE("scaled_mm, int8_linear, w8a16: clipped edges with 1-byte operands") {
  run_scaled_mm({72, 40, 80, DType::e4m3, DType::e4m3, DType::bf16}, 51);
  run_int8_linear({100, 41, 48, DType::f32, true, true, true}, 52);
  run_w8a16(100, 41, 112, DType::f16, true, 53);
  // K a multiple of the K tile (k_whole, gemm_clip_edges): 3 K tiles and one past K, odd M / N.
  run_scaled_mm({37, 51, 192, DType::e4m3, DType::e5m2, DType::f32}, 54);
  run_int8_linear({37, 51, 192, DType::bf16, true, true, true}, 55);
}
