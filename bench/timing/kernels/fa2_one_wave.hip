// Flash-attention-2 forward kernels re-written here from the published descriptions and
// sources of carlushuang/gcnasm opus_attn_gfx1201 "v0", "v6" and "v9"
// (opus_attn_gfx1201/README.md and attn_gfx1201_kernel_v{0,6,9}_template.hpp, MIT; their
// measured RX 9070 XT figures are calibration targets of bench_timing_calibration). Not their
// code: the same algorithm, tile sizes, instruction mix, index arithmetic and ordering of
// loads, LDS transfers and barriers, so that clang-22 schedules them as it would schedule the
// published kernels (docs/timing.md, "Re-write fidelity").
//
// bf16 Q, K, V, O of shape [B, H, N, D] (D innermost, D = 128), f32 accumulation, online
// softmax in base 2. Arguments as the published kernel's argument block: four pointers, then
// B, H, N, D as int and the softmax scale. Offsets are 32-bit ints from runtime strides
// (stride of a row = D, of a head = N * D, of a batch = H * N * D) added to per-head base
// pointers, as in the published sources. One wave per workgroup computes 16 query rows of
// one (batch, head): grid (N / 16, H, B), block 32, launch bounds (32 threads, 1 wave per EU).
// Q stays in registers (8 A fragments, pre-scaled); per KV tile of 16 keys the wave loads the
// K fragments straight from global memory (8 bf16 contiguous per lane), runs 8 WMMAs for
// S = Q K^T, reduces the row max and row sum across each 16-lane half with ds_swizzle xor
// butterflies, rescales O, sends P through a 16 x 16 LDS tile to get the A layout, loads V in
// the B layout and runs 8 WMMAs for O += P V. The versions differ in how V reaches the B
// layout and in the published kernels' ordering:
//   v0 (fa2_v0): all 8 row maxima, then the rescales, then the exponentials and row sums;
//                P through LDS between two s_barriers (O rescaled between them); V gathered
//                column-wise from global memory, 8 two-byte loads per fragment;
//   v6 (fa2_v6): per row: max, rescale of O, exponential, sum; P through LDS with one wave
//                barrier; per fragment one contiguous 16-byte V load per lane (lane -> key
//                lane % 16, d half lane / 16), stored to a 16 x 16 LDS tile, a wave barrier,
//                8 two-byte LDS reads in the B layout, its WMMA;
//   v9 (fa2_v9): as v6, but V stored transposed in memory ([B, H, D, N]): one 16-byte load
//                per lane per fragment, no LDS for V.
// A barrier of a one-wave workgroup compiles to no instruction (LLVM lowers s_barrier to a
// wave barrier when the workgroup fits in a wave); both are scheduling fences for the compiler.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

typedef short v8s __attribute__((ext_vector_type(8)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef unsigned short bf16;

static inline __attribute__((device)) float from_bf16(bf16 x) {
  return __builtin_bit_cast(float, unsigned(x) << 16);
}
static inline __attribute__((device)) bf16 to_bf16(float f) { // round to nearest even
  const unsigned u = __builtin_bit_cast(unsigned, f);
  return bf16((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define SWZ(v, pattern)                                                                            \
  __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), pattern))
// Max / sum over the 16 lanes of a half-wave: bit-mask swizzles xor 1, 2, 4, 8.
#define HALF_WAVE_REDUCE(v, op)                                                                    \
  v = op(v, SWZ(v, 0x041f));                                                                       \
  v = op(v, SWZ(v, 0x081f));                                                                       \
  v = op(v, SWZ(v, 0x101f));                                                                       \
  v = op(v, SWZ(v, 0x201f))
static inline __attribute__((device)) float fmax2(float a, float b) {
  return a > b ? a : b;
}
static inline __attribute__((device)) float add2(float a, float b) {
  return a + b;
}

enum class VLoad { gather, lds_transpose, pretransposed };

template <VLoad mode>
static inline __attribute__((device)) void fa2_one_wave(const bf16* q, const bf16* k, const bf16* v,
                                                        bf16* o, int heads, int n, int d,
                                                        float scale) {
  constexpr int FRAGS = 128 / 16; // D = 128: 8 WMMA tiles along D
  const int lane = static_cast<int>(__builtin_amdgcn_workitem_id_x());
  const int c16 = lane % 16, r8 = (lane / 16) * 8; // B / C: column, first of 8 rows
  const int tile = static_cast<int>(__builtin_amdgcn_workgroup_id_x());
  const int h = static_cast<int>(__builtin_amdgcn_workgroup_id_y());
  const int b = static_cast<int>(__builtin_amdgcn_workgroup_id_z());
  const int row_stride = d, head_stride = n * d, batch_stride = heads * n * d;
  const int head_off = b * batch_stride + h * head_stride; // V^T ([B, H, D, N]): the same
  const bf16* qh = q + head_off;
  const bf16* kh = k + head_off;
  const bf16* vh = v + head_off;
  bf16* oh = o + head_off;
  const int m0 = tile * 16;

  // Q in the A layout: lane -> row c16, 8 consecutive d from r8 in each tile.
  v8s qa[FRAGS];
  {
    const bf16* qrow = qh + (m0 + c16) * row_stride;
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        qa[f][j] = short(qrow[f * 16 + r8 + j]);
  }
  const float qs = scale * 1.44269504088896340736f;
#pragma unroll
  for (int f = 0; f < FRAGS; ++f)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      qa[f][j] = short(to_bf16(from_bf16(bf16(qa[f][j])) * qs));
  v8f acc[FRAGS];
#pragma unroll
  for (int f = 0; f < FRAGS; ++f)
    acc[f] = v8f{0, 0, 0, 0, 0, 0, 0, 0};
  float row_max[8], row_sum[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    row_max[j] = -3.4e38f;
    row_sum[j] = 0.0f;
  }
  __shared__ bf16 p_tile[16 * 16];
  __shared__ bf16 v_tile[16 * 16];

  const int kv_tiles = n / 16;
  for (int t = 0; t < kv_tiles; ++t) {
    const int kv = t * 16;
    v8f s = v8f{0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int f = 0; f < FRAGS; ++f) { // K^T in the B layout: lane -> key kv + c16
      const bf16* krow = kh + (kv + c16) * row_stride + f * 16;
      v8s kb;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        kb[j] = short(krow[r8 + j]);
      s = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(qa[f], kb, s);
    }
    if constexpr (mode == VLoad::gather) {
      // v0: all maxima, then the rescales, then exponentials and sums; P between two barriers.
      float mx[8], rescale[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        mx[j] = s[j];
        HALF_WAVE_REDUCE(mx[j], fmax2);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float m = fmax2(row_max[j], mx[j]);
        rescale[j] = __builtin_amdgcn_exp2f(row_max[j] - m);
        row_max[j] = m;
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        s[j] = __builtin_amdgcn_exp2f(s[j] - row_max[j]);
        float sum = s[j];
        HALF_WAVE_REDUCE(sum, add2);
        row_sum[j] = row_sum[j] * rescale[j] + sum;
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) // P row r8 + j, column c16
        p_tile[(r8 + j) * 16 + c16] = to_bf16(s[j]);
      __builtin_amdgcn_s_barrier();
#pragma unroll
      for (int f = 0; f < FRAGS; ++f)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[f][j] *= rescale[j];
    } else {
      // v6 / v9: per row max, rescale of O, exponential, sum; P with one wave barrier.
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float mx = s[j];
        HALF_WAVE_REDUCE(mx, fmax2);
        const float m = fmax2(row_max[j], mx);
        const float rescale = __builtin_amdgcn_exp2f(row_max[j] - m);
        row_max[j] = m;
        s[j] = __builtin_amdgcn_exp2f(s[j] - m);
#pragma unroll
        for (int f = 0; f < FRAGS; ++f)
          acc[f][j] *= rescale;
        float sum = s[j];
        HALF_WAVE_REDUCE(sum, add2);
        row_sum[j] = row_sum[j] * rescale + sum;
      }
#pragma unroll
      for (int j = 0; j < 8; ++j)
        p_tile[(r8 + j) * 16 + c16] = to_bf16(s[j]);
      __builtin_amdgcn_wave_barrier();
    }
    v8s pa; // P in the A layout: lane -> row c16, keys r8 .. r8 + 7
#pragma unroll
    for (int j = 0; j < 8; ++j)
      pa[j] = short(p_tile[c16 * 16 + r8 + j]);
    if constexpr (mode == VLoad::gather)
      __builtin_amdgcn_s_barrier();
#pragma unroll
    for (int f = 0; f < FRAGS; ++f) { // V in the B layout: lane -> d column f * 16 + c16
      v8s vb;
      if constexpr (mode == VLoad::gather) {
        const bf16* vcol = vh + (kv + r8) * row_stride + f * 16 + c16;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          vb[j] = short(vcol[j * row_stride]);
      } else if constexpr (mode == VLoad::lds_transpose) {
        // Lane -> key kv + c16, d f * 16 + r8 .. + 7: 16 contiguous bytes, stored as loaded.
        const bf16* vrow = vh + (kv + c16) * row_stride + f * 16 + r8;
        v8s row;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          row[j] = short(vrow[j]);
#pragma unroll
        for (int j = 0; j < 8; ++j)
          v_tile[c16 * 16 + r8 + j] = bf16(row[j]);
        __builtin_amdgcn_wave_barrier();
#pragma unroll
        for (int j = 0; j < 8; ++j)
          vb[j] = short(v_tile[(r8 + j) * 16 + c16]);
      } else { // V^T in memory, row stride n: lane -> d column, 8 consecutive keys
        const bf16* vtrow = vh + (f * 16 + c16) * n + kv + r8;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          vb[j] = short(vtrow[j]);
      }
      acc[f] = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(pa, vb, acc[f]);
    }
  }
  if constexpr (mode == VLoad::gather) {
    float inv[8];
#pragma unroll
    for (int j = 0; j < 8; ++j)
      inv[j] = row_sum[j] > 0.0f ? 1.0f / row_sum[j] : 0.0f;
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        oh[(m0 + r8 + j) * row_stride + f * 16 + c16] = to_bf16(acc[f][j] * inv[j]);
  } else {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float inv = row_sum[j] > 0.0f ? 1.0f / row_sum[j] : 0.0f;
#pragma unroll
      for (int f = 0; f < FRAGS; ++f)
        oh[(m0 + r8 + j) * row_stride + f * 16 + c16] = to_bf16(acc[f][j] * inv);
    }
  }
}

// Launch bounds of the published kernels (__launch_bounds__(32, 1) in HIP): at most 32
// threads per workgroup, at least one wave per EU.
#define FA2_VERSION(name, mode)                                                                    \
  extern "C" __global__ void                                                                       \
      __attribute__((amdgpu_flat_work_group_size(1, 32), amdgpu_waves_per_eu(1)))                  \
      name(const bf16* q, const bf16* k, const bf16* v, bf16* o, int batch, int heads, int n,      \
           int d, float scale) {                                                                   \
    (void)batch;                                                                                   \
    fa2_one_wave<mode>(q, k, v, o, heads, n, d, scale);                                            \
  }
FA2_VERSION(fa2_v0, VLoad::gather)
FA2_VERSION(fa2_v6, VLoad::lds_transpose)
FA2_VERSION(fa2_v9, VLoad::pretransposed)
