// Kernels for the emulator benchmark.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef float float8 __attribute__((ext_vector_type(8)));

// ALU-bound: a per-lane integer / float recurrence.
extern "C" __global__ void alu_loop(float* out, int iters) {
  const unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  float x = float(i) * 1e-3f;
  unsigned h = i;
  for (int k = 0; k < iters; ++k) {
    x = x * 0.999f + 0.5f;
    h = h * 1664525u + 1013904223u;
  }
  out[i] = x + float(h & 1023);
}

// C = A * B, f16 in, f32 out, row-major M x K times K x N (B given as N x K, i.e. column
// major). Each wave computes one 16x16 tile of C with v_wmma_f32_16x16x16_f16; lane l holds
// row / column l % 16 and k = 8 * (l / 16) + e, the same k order for A and B.
extern "C" __global__ void gemm_wmma(const _Float16* A, const _Float16* Bt, float* C, int M,
                                     int N, int K) {
  const unsigned lane = __builtin_amdgcn_workitem_id_x() % 32;
  const unsigned wave = __builtin_amdgcn_workitem_id_x() / 32;
  const unsigned tiles_n = unsigned(N) / 16;
  const unsigned tile = __builtin_amdgcn_workgroup_id_x() * 4 + wave;
  const unsigned tm = tile / tiles_n, tn = tile % tiles_n;
  if (tm * 16 >= unsigned(M))
    return;
  const unsigned r = lane % 16, kh = 8 * (lane / 16);
  float8 acc = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    const half8 a = *(const half8*)(A + (unsigned long)(tm * 16 + r) * K + k0 + kh);
    const half8 b = *(const half8*)(Bt + (unsigned long)(tn * 16 + r) * K + k0 + kh);
    acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, acc);
  }
  for (int v = 0; v < 8; ++v)
    C[(unsigned long)(tm * 16 + 8 * (lane / 16) + v) * N + tn * 16 + r] = acc[v];
}

// LDS-bound: each lane stores to and loads from its own four LDS words (no lane reads another
// lane's word, so no barrier is needed); a volatile LDS pointer keeps one ds_store and one
// ds_load per step.
typedef __attribute__((address_space(3))) volatile float lds_float;
extern "C" __global__ void lds_loop(float* out, int iters) {
  __shared__ float words[256 * 4];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  lds_float* mine = (lds_float*)words + t * 4;
  float x = float(t);
  for (int k = 0; k < iters; ++k) {
    mine[k & 3] = x;
    x = mine[(k + 1) & 3] + 1.0f;
  }
  out[__builtin_amdgcn_workgroup_id_x() * 256 + t] = x;
}

// Global-memory-bound: each step loads one float from a scattered index of `in` (n a power of 2).
extern "C" __global__ void global_loop(const float* in, float* out, unsigned n, int iters) {
  const unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  float x = 0;
  for (int k = 0; k < iters; ++k)
    x += in[(i + unsigned(k) * 37u) & (n - 1)];
  out[i] = x;
}
