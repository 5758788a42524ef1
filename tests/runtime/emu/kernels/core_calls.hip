// Real calls (s_swappc_b64 / s_setpc_b64) into non-inlined device functions, with a stack
// in scratch: a local array indexed at run time and a recursive function.
#include "hip_min.h"

__device__ __attribute__((noinline)) int weighted_sum(const int* p, int n, int w) {
  int local[16];
  for (int i = 0; i < 16; ++i)
    local[i] = p[i] * (i + w);
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += local[(i * 7) % 16];
  return s;
}

__device__ __attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void calls(const int* in, int* out) {
  const unsigned t = tid_x(); // 32 threads
  out[t * 2] = weighted_sum(in + t, int(t % 16) + 1, int(t));
  out[t * 2 + 1] = fib(int(t % 12));
}
