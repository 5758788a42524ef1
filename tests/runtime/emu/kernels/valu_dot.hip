// Dot products, mixed-precision FMA and the hardware sin / cos / exp / log builtins.
#include "hip_min.h"

typedef _Float16 half;
typedef half half2 __attribute__((ext_vector_type(2)));
typedef __bf16 bf16x2 __attribute__((ext_vector_type(2)));

enum { kSlots = 14 };

extern "C" __global__ void valu_dot(const unsigned* a, const unsigned* b, const float* c, unsigned* out) {
  const unsigned t = tid_x();
  const unsigned x = a[t], y = b[t];
  const float z = c[t];
  unsigned* o = out + t * kSlots;
  const half2 hx = __builtin_bit_cast(half2, x), hy = __builtin_bit_cast(half2, y);
  o[0] = __builtin_bit_cast(unsigned, __builtin_amdgcn_fdot2(hx, hy, z, false));
  o[1] = __builtin_bit_cast(unsigned, __builtin_amdgcn_fdot2_f32_bf16(__builtin_bit_cast(bf16x2, x),
                                                                     __builtin_bit_cast(bf16x2, y), z, false));
  o[2] = __builtin_amdgcn_udot4(x, y, t, false);
  o[3] = (unsigned)__builtin_amdgcn_sudot4(true, (int)x, false, (int)y, (int)t - 16, false);
  o[4] = (unsigned)__builtin_amdgcn_sudot8(true, (int)x, true, (int)y, 7, false);
  o[5] = __builtin_amdgcn_udot8(x, y, 1, false);
  o[6] = __builtin_amdgcn_udot4(x, y, 0xfffffff0u, true); // clamp: saturates at 2^32-1
  o[7] = __builtin_bit_cast(unsigned, __builtin_amdgcn_dot4_f32_fp8_bf8((int)x, (int)y, z));
  o[8] = __builtin_bit_cast(unsigned, __builtin_amdgcn_dot4_f32_bf8_bf8((int)x, (int)y, z));
  // Mixed precision: f16 inputs widened into an f32 FMA (v_fma_mix_f32 at -O3).
  o[9] = __builtin_bit_cast(unsigned, __builtin_fmaf((float)hx.x, (float)hy.y, z));
  const float r = z * 0.001f;
  o[10] = __builtin_bit_cast(unsigned, __builtin_amdgcn_sinf(r));
  o[11] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cosf(r));
  o[12] = __builtin_bit_cast(unsigned, __builtin_amdgcn_exp2f(r));
  o[13] = __builtin_bit_cast(unsigned, __builtin_amdgcn_logf(__builtin_fabsf(z) + 1.0f));
}
