// Global loads and stores of every width, buffer resources with out-of-range lanes,
// global atomics.
#include "hip_min.h"

typedef int int2v __attribute__((ext_vector_type(2)));
typedef int int3v __attribute__((ext_vector_type(3)));
typedef int int4v __attribute__((ext_vector_type(4)));

extern "C" __global__ void global_widths(const signed char* i8, const unsigned char* u8,
                                         const short* i16, const unsigned short* u16,
                                         const int* i32, const int2v* v2, const int3v* v3,
                                         const int4v* v4, int* out, unsigned char* out8,
                                         short* out16, int2v* out2, int3v* out3, int4v* out4) {
  const unsigned t = bid_x() * 64 + tid_x();
  out[t * 6 + 0] = i8[t];
  out[t * 6 + 1] = u8[t];
  out[t * 6 + 2] = i16[t];
  out[t * 6 + 3] = u16[t];
  out[t * 6 + 4] = i32[t] + 1;
  out[t * 6 + 5] = v2[t].x + v3[t].z + v4[t].w;
  out8[t] = (unsigned char)(u8[t] + 3);
  out16[t] = (short)(i16[t] - 5);
  out2[t] = v2[t] * 2;
  out3[t] = v3[t] + 1;
  out4[t] = v4[t] ^ 0x5a5a;
}

extern "C" __global__ void buffer_oob(float* data, int n, float* out, int* out_store,
                                      int* out4) {
  const int t = int(bid_x() * 64 + tid_x());
  // Raw buffer over exactly n floats: lanes past n load 0.
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(data, 0, n * 4, 0x31004000);
  const unsigned v = __builtin_amdgcn_raw_buffer_load_b32(r, t * 4, 0, 0);
  out[t] = __builtin_bit_cast(float, v);
  // Stores past n are dropped.
  __amdgpu_buffer_rsrc_t w = __builtin_amdgcn_make_buffer_rsrc(out_store, 0, n * 4, 0x31004000);
  __builtin_amdgcn_raw_buffer_store_b32(unsigned(t * 10), w, t * 4, 0, 0);
  // 128-bit loads straddling the end: dwords past n read 0.
  typedef unsigned u4 __attribute__((ext_vector_type(4)));
  const u4 q = __builtin_amdgcn_raw_buffer_load_b128(r, t * 4, 0, 0);
  out4[t * 4 + 0] = int(q.x);
  out4[t * 4 + 1] = int(q.y);
  out4[t * 4 + 2] = int(q.z);
  out4[t * 4 + 3] = int(q.w);
}

extern "C" __global__ void global_atomics(const int* in, int* sum, unsigned* mx, int* old) {
  const unsigned t = bid_x() * 64 + tid_x();
  old[t] = __hip_atomic_fetch_add(sum, in[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(mx, unsigned(in[t]) * 7u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
