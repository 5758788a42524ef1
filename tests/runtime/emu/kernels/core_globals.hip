// Device globals in the code object image: a constant table in .rodata, a zero-initialised
// counter array in .bss and an initialised array in .data, reached through s_getpc_b64.
#include "hip_min.h"

__attribute__((constant)) int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ int counters[4];
__device__ int scaled[4] = {10, 20, 30, 40};
// Pointers stored in the image need dynamic relocations (R_AMDGPU_RELATIVE64).
__device__ int* ptr_table[2] = {&scaled[1], &scaled[3]};

extern "C" __global__ void globals(const int* idx, int* out) {
  const unsigned t = tid_x(); // 32 threads
  out[t] = table[idx[t] & 7] + scaled[t & 3];
  __hip_atomic_fetch_add(&counters[t & 3], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  sync_threads();
  if (t < 4)
    out[32 + t] = counters[t];
  out[36 + t] = *ptr_table[t & 1];
}
