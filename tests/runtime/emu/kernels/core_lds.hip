// LDS and barriers across the 8 waves of a 256-thread workgroup, a 2D grid of workgroups,
// and dynamic LDS.
#include "hip_min.h"

extern "C" __global__ void lds_exchange(const int* in, int* out, int* sums) {
  __shared__ int s[256];
  __shared__ int red[256];
  const unsigned t = tid_x();
  const unsigned block = bid_y() * 3 + bid_x(); // grid 3 x 2
  const int v = in[block * 256 + t];
  s[t] = v;
  red[t] = v;
  sync_threads();
  out[block * 256 + t] = s[(t + 37) % 256] * 3 + s[255 - t];
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride)
      red[t] += red[t + stride];
    sync_threads();
  }
  if (t == 0)
    sums[block] = red[0];
}

extern __shared__ int dyn[];

// Static + dynamic LDS: dynamic part holds n ints per workgroup.
extern "C" __global__ void lds_dynamic(const int* in, int* out, int n) {
  __shared__ int tag[32];
  const unsigned t = tid_x();
  if (t < 32)
    tag[t] = int(t) * 1000;
  for (int i = int(t); i < n; i += 128)
    dyn[i] = in[bid_x() * n + i];
  sync_threads();
  for (int i = int(t); i < n; i += 128)
    out[bid_x() * n + i] = dyn[n - 1 - i] + tag[i % 32];
}

// 8-, 16-, 64- and 128-bit LDS accesses.
typedef int int4v __attribute__((ext_vector_type(4)));
typedef int int2v __attribute__((ext_vector_type(2)));
extern "C" __global__ void lds_widths(const int* in, int* out) {
  __shared__ int4v v4[64];
  __shared__ int2v v2[64];
  __shared__ unsigned char b[256];
  __shared__ short h[64];
  const unsigned t = tid_x(); // 64 threads
  v4[t] = int4v{in[t], in[t] + 1, in[t] + 2, in[t] + 3};
  v2[t] = int2v{in[t] * 2, in[t] * 3};
  for (int k = 0; k < 4; ++k)
    b[t * 4 + k] = (unsigned char)(in[t] >> (8 * k));
  h[t] = (short)(in[t] * 7);
  sync_threads();
  const unsigned u = 63 - t;
  const int4v a = v4[u];
  const int2v c = v2[u];
  out[t * 8 + 0] = a.x + a.y + a.z + a.w;
  out[t * 8 + 1] = c.x - c.y;
  out[t * 8 + 2] = b[u * 4] | (b[u * 4 + 1] << 8) | (b[u * 4 + 2] << 16) | (b[u * 4 + 3] << 24);
  out[t * 8 + 3] = (signed char)b[u * 4 + 1];
  out[t * 8 + 4] = h[u];
  out[t * 8 + 5] = a.w;
  out[t * 8 + 6] = c.y;
  out[t * 8 + 7] = (int)(unsigned short)h[u];
}

// LDS atomics: a histogram of in[] % 16 and a max.
extern "C" __global__ void lds_atomics(const int* in, int* hist, int* maxv) {
  __shared__ int bins[16];
  __shared__ int m;
  const unsigned t = tid_x(); // 128 threads
  if (t < 16)
    bins[t] = 0;
  if (t == 0)
    m = -2147483647 - 1;
  sync_threads();
  __hip_atomic_fetch_add(&bins[in[t] & 15], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&m, in[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  sync_threads();
  if (t < 16)
    hist[t] = bins[t];
  if (t == 0)
    *maxv = m;
}

// Compare-and-swap loops on LDS and global memory: every work-item adds 1 with a bounded
// CAS retry loop; also counts its failed attempts.
extern "C" __global__ void cas_counters(int* global_counter, int* lds_result, int* retries) {
  __shared__ int counter;
  const unsigned t = tid_x(); // 64 threads
  if (t == 0)
    counter = 0;
  sync_threads();
  int fails = 0;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int expected = __hip_atomic_load(&counter, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    if (__hip_atomic_compare_exchange_strong(&counter, &expected, expected + 1, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP))
      break;
    ++fails;
  }
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int expected = __hip_atomic_load(global_counter, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    if (__hip_atomic_compare_exchange_strong(global_counter, &expected, expected + 2,
                                             __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                             __HIP_MEMORY_SCOPE_AGENT))
      break;
    ++fails;
  }
  retries[bid_x() * 64 + t] = fails;
  sync_threads();
  if (t == 0)
    lds_result[bid_x()] = counter;
}

// Wave 0 spins on an LDS flag that wave 1 sets (no barrier between them): needs the waves
// of a workgroup to take turns.
extern "C" __global__ void spin_flag(int* out) {
  __shared__ int flag;
  const unsigned t = tid_x(); // 64 threads = 2 waves
  if (t == 0)
    flag = 0;
  sync_threads();
  int spins = 0;
  if (t < 32) {
    while (__hip_atomic_load(&flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0)
      ++spins;
  } else if (t == 32) {
    __hip_atomic_store(&flag, 42, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  }
  out[t] = t < 32 ? __hip_atomic_load(&flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP) : -1;
  (void)spins;
}
