// Arithmetic of every scalar type the compiler lowers to VALU code, one result slot per op
// and thread (checked against host arithmetic by test_valu_kernels.cpp).
#include "hip_min.h"

typedef _Float16 half;
typedef half half2 __attribute__((ext_vector_type(2)));

// bf16 has no arithmetic in HIP without headers: widen by shifting, round back to nearest
// even with integer ops (what a bf16 kernel without native bf16 VALU does).
__device__ __forceinline__ float bf16_to_f32(unsigned short b) {
  return __builtin_bit_cast(float, (unsigned)b << 16);
}
__device__ __forceinline__ unsigned short f32_to_bf16(float f) {
  unsigned u = __builtin_bit_cast(unsigned, f);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

enum { kF32 = 10, kF16 = 6, kI32 = 12, kI64 = 6 };

extern "C" __global__ void valu_f32(const float* a, const float* b, float* out) {
  const unsigned t = tid_x() + 64 * bid_x();
  const float x = a[t], y = b[t];
  float* o = out + t * kF32;
  o[0] = x + y;
  o[1] = x * y;
  o[2] = __builtin_fmaf(x, y, 0.75f);
  o[3] = x / y;
  o[4] = __builtin_sqrtf(__builtin_fabsf(x));
  o[5] = __builtin_fminf(x, y) - __builtin_fmaxf(x, -y);
  o[6] = __builtin_expf(y * 0.01f);
  o[7] = __builtin_logf(__builtin_fabsf(x) + 1.0f);
  o[8] = (float)(int)x + (float)(unsigned)(y > 0 ? y : 0);
  o[9] = __builtin_floorf(x) * __builtin_truncf(y) + __builtin_ceilf(x * 0.3f);
}

extern "C" __global__ void valu_f16(const half* a, const half* b, const half2* p, half* out, half2* pout) {
  const unsigned t = tid_x() + 64 * bid_x();
  const half x = a[t], y = b[t];
  half* o = out + t * kF16;
  o[0] = x + y;
  o[1] = x * y;
  o[2] = __builtin_fmaf16(x, y, x);
  o[3] = x > y ? x : -y;
  o[4] = (half)((float)x * 0.5f + (float)y);
  o[5] = (half)(int)x;
  const half2 v = p[t];
  pout[2 * t + 0] = v * v + v;
  pout[2 * t + 1] = half2{v.y, v.x} - v;
}

extern "C" __global__ void valu_bf16(const unsigned short* a, const unsigned short* b, unsigned short* out) {
  const unsigned t = tid_x() + 64 * bid_x();
  const float x = bf16_to_f32(a[t]), y = bf16_to_f32(b[t]);
  out[3 * t + 0] = f32_to_bf16(x + y);
  out[3 * t + 1] = f32_to_bf16(x * y);
  out[3 * t + 2] = f32_to_bf16(__builtin_fmaf(x, y, 1.0f));
}

extern "C" __global__ void valu_int(const int* a, const int* b, int* out, const long* la, const long* lb, long* lout) {
  const unsigned t = tid_x() + 64 * bid_x();
  const int p = a[t], q = b[t];
  const unsigned up = (unsigned)p, uq = (unsigned)q;
  int* o = out + t * kI32;
  o[0] = p * q;
  o[1] = q != 0 ? p / q : -1;
  o[2] = q != 0 ? p % q : -1;
  o[3] = uq != 0 ? (int)(up / uq) : -1;
  o[4] = (int)(up >> (uq & 31)) ^ (p << (q & 31)) ^ (p >> (q & 7));
  o[5] = p < q ? p : q;
  o[6] = __builtin_popcount(up) + __builtin_clz(up | 1) * 64 + __builtin_ctz(up | 0x80000000u) * 4096;
  o[7] = (int)((unsigned long)up * uq >> 32);
  o[8] = (p & 0xff) * (q & 0xfff) + (p | q);
  o[9] = (short)p * (short)q + (unsigned char)q;
  o[10] = p > 0 ? (p & q) : (p ^ q);
  o[11] = (int)((long)p * q >> 32);
  const long L = la[t], M = lb[t];
  long* lo = lout + t * kI64;
  lo[0] = L * M;
  lo[1] = L + M;
  lo[2] = M != 0 ? L / M : -1;
  lo[3] = (long)((unsigned long)L >> (q & 63)) + (L << (p & 63));
  lo[4] = M != 0 ? (long)((unsigned long)L % (unsigned long)M) : -1;
  lo[5] = L < M ? L : M;
}

extern "C" __global__ void valu_f64(const double* a, const double* b, double* out) {
  const unsigned t = tid_x() + 64 * bid_x();
  const double x = a[t], y = b[t];
  double* o = out + t * 8;
  o[0] = x + y;
  o[1] = x * y;
  o[2] = __builtin_fma(x, y, -x);
  o[3] = x / y;
  o[4] = __builtin_sqrt(__builtin_fabs(x));
  o[5] = __builtin_fmin(x, y) + __builtin_floor(y);
  o[6] = (double)(int)x + (double)(unsigned)(y > 0 ? y : 0) + (double)(float)y;
  o[7] = __builtin_ldexp(x, (int)t - 64) - __builtin_trunc(x);
}

// Divergence: lane-dependent branches and loop trip counts.
extern "C" __global__ void valu_divergence(const int* a, int* out) {
  const unsigned t = tid_x() + 64 * bid_x();
  int x = a[t];
  int acc = 0;
  for (int i = 0; i < (x & 15); ++i) {
    if ((i ^ x) & 1)
      acc += i * x;
    else
      acc -= i;
    if (acc > 1000)
      break;
  }
  if (t & 1) {
    acc = acc * 3 + 1;
  } else if (t & 2) {
    acc ^= 0x55;
  } else {
    while (x > 1)
      x = (x & 1) ? 3 * x + 1 : x / 2;
    acc += x;
  }
  out[t] = acc;
}
