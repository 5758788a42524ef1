// Kernels with planted bugs for memcheck (and one correct twin).
#include "hip_min.h"

// Reads a[i + k]: with k > 0 the last lanes read past the allocation.
extern "C" __global__ void global_shifted_read(const int* a, int* out, int k) {
  const int i = int(tid_x());
  out[i] = a[i + k];
}

// Reads s[t + k]: with k >= 64 - t the read leaves the 256-byte group segment.
extern "C" __global__ void lds_shifted_read(int* out, int k) {
  __shared__ int s[64];
  const unsigned t = tid_x();
  s[t] = int(t);
  sync_threads();
  out[t] = s[(t + unsigned(k)) & 127];
}

// Only the first `written` entries are stored, all 64 are read.
extern "C" __global__ void lds_partial_init(int* out, int written) {
  __shared__ int s[64];
  const unsigned t = tid_x();
  if (int(t) < written)
    s[t] = int(t) * 2;
  sync_threads();
  out[t] = s[63 - t];
}
