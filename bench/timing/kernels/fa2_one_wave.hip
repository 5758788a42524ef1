// Flash-attention-2 forward kernels re-written here from the published descriptions of
// carlushuang/gcnasm opus_attn_gfx1201 "v0", "v6" and "v9" (opus_attn_gfx1201/README.md, MIT;
// their measured RX 9070 XT figures are calibration targets of bench_timing_calibration).
// Not their code: the same algorithm, tile sizes and instruction mix, so the timing model
// can be checked against the published speeds.
//
// bf16 Q, K, V, O of shape [B, H, N, 128] (D innermost), f32 accumulation, online softmax
// in base 2. One wave per workgroup computes 16 query rows of one (batch, head):
//   grid (N / 16, H, B), block 32.
// Q stays in registers (8 A fragments, pre-scaled); per KV tile of 16 keys the wave loads
// the K fragments straight from global memory (8 bf16 contiguous per lane), runs 8 WMMAs
// for S = Q K^T, reduces the row max and row sum across each 16-lane half with ds_swizzle
// xor butterflies, rescales O, sends P through a 16 x 16 LDS tile (two barriers) to get the
// A layout, loads V in the B layout and runs 8 WMMAs for O += P V. The three versions differ
// only in how V reaches the B layout:
//   v0 (fa2_v0): gathered column-wise from global memory, 8 scalar bf16 loads per fragment;
//   v6 (fa2_v6): one contiguous 16-byte load per lane per 16 x 16 tile, transposed through
//                LDS (8 scalar LDS reads per fragment);
//   v9 (fa2_v9): V stored transposed in memory ([B, H, 128, N]): one 16-byte load per lane.
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
                                                        bf16* o, int n, float scale) {
  constexpr int D = 128, FRAGS = D / 16;
  const int lane = static_cast<int>(__builtin_amdgcn_workitem_id_x());
  const int col = lane & 15, half = (lane >> 4) * 8; // B / C: column, first of 8 rows
  const long head = long(__builtin_amdgcn_workgroup_id_z()) * __builtin_amdgcn_grid_size_y() +
                    __builtin_amdgcn_workgroup_id_y();
  const long base = head * long(n) * D;
  const int row0 = static_cast<int>(__builtin_amdgcn_workgroup_id_x()) * 16;

  // Q in the A layout: lane -> row col, 8 consecutive d from half.
  const float qs = scale * 1.44269504088896340736f;
  v8s qa[FRAGS];
#pragma unroll
  for (int f = 0; f < FRAGS; ++f)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const bf16 x = q[base + long(row0 + col) * D + f * 16 + half + j];
      qa[f][j] = short(to_bf16(from_bf16(x) * qs));
    }
  v8f acc[FRAGS];
#pragma unroll
  for (int f = 0; f < FRAGS; ++f)
    acc[f] = v8f{0, 0, 0, 0, 0, 0, 0, 0};
  float row_max[8], row_sum[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    row_max[j] = -3.0e38f;
    row_sum[j] = 0.0f;
  }
  __shared__ bf16 p_tile[16 * 16];
  __shared__ bf16 v_tile[16 * 16];

  for (int kv = 0; kv < n; kv += 16) {
    v8f s = v8f{0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
    for (int f = 0; f < FRAGS; ++f) { // K^T in the B layout: lane -> key kv + col
      v8s kb;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        kb[j] = short(k[base + long(kv + col) * D + f * 16 + half + j]);
      s = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(qa[f], kb, s);
    }
    float rescale[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float mx = s[j];
      HALF_WAVE_REDUCE(mx, fmax2);
      const float m = fmax2(row_max[j], mx);
      rescale[j] = __builtin_amdgcn_exp2f(row_max[j] - m);
      row_max[j] = m;
      s[j] = __builtin_amdgcn_exp2f(s[j] - m);
      float sum = s[j];
      HALF_WAVE_REDUCE(sum, add2);
      row_sum[j] = row_sum[j] * rescale[j] + sum;
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) // P row half + j, column col
      p_tile[(half + j) * 16 + col] = to_bf16(s[j]);
    __builtin_amdgcn_s_barrier();
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        acc[f][j] *= rescale[j];
    v8s pa; // P in the A layout: lane -> row col, keys half .. half + 7
#pragma unroll
    for (int j = 0; j < 8; ++j)
      pa[j] = short(p_tile[col * 16 + half + j]);
    __builtin_amdgcn_s_barrier();
#pragma unroll
    for (int f = 0; f < FRAGS; ++f) { // V in the B layout: lane -> d column, 8 keys
      v8s vb;
      if constexpr (mode == VLoad::gather) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
          vb[j] = short(v[base + long(kv + half + j) * D + f * 16 + col]);
      } else if constexpr (mode == VLoad::lds_transpose) {
        // Lane -> key kv + lane / 2, d f * 16 + (lane % 2) * 8 .. + 7: 16 contiguous bytes.
        const v8s row = *reinterpret_cast<const v8s*>(v + base + long(kv + lane / 2) * D + f * 16 +
                                                      (lane % 2) * 8);
        *reinterpret_cast<v8s*>(v_tile + (lane / 2) * 16 + (lane % 2) * 8) = row;
        __builtin_amdgcn_s_barrier();
#pragma unroll
        for (int j = 0; j < 8; ++j)
          vb[j] = short(v_tile[(half + j) * 16 + col]);
        __builtin_amdgcn_s_barrier();
      } else { // V^T in memory: lane -> d column, 8 consecutive keys
        vb = *reinterpret_cast<const v8s*>(v + base + long(f * 16 + col) * n + kv + half);
      }
      acc[f] = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(pa, vb, acc[f]);
    }
  }
#pragma unroll
  for (int f = 0; f < FRAGS; ++f)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float inv = row_sum[j] > 0.0f ? 1.0f / row_sum[j] : 0.0f;
      o[base + long(row0 + half + j) * D + f * 16 + col] = to_bf16(acc[f][j] * inv);
    }
}

#define FA2_VERSION(name, mode)                                                                    \
  extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(32, 32)))                  \
  name(const bf16* q, const bf16* k, const bf16* v, bf16* o, int n, float scale) {                 \
    fa2_one_wave<mode>(q, k, v, o, n, scale);                                                      \
  }
FA2_VERSION(fa2_v0, VLoad::gather)
FA2_VERSION(fa2_v6, VLoad::lds_transpose)
FA2_VERSION(fa2_v9, VLoad::pretransposed)
