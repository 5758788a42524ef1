// fp8 (OCP E4M3FN) / bf8 (E5M2) conversions: pack, unpack, stochastic rounding.
#include "hip_min.h"

typedef float float2 __attribute__((ext_vector_type(2)));

enum { kSlots = 12 };

extern "C" __global__ void valu_fp8(const float* a, const float* b, const unsigned* rnd, unsigned* out) {
  const unsigned t = tid_x();
  const float x = a[t], y = b[t];
  const unsigned r = rnd[t];
  unsigned* o = out + t * kSlots;
  unsigned p = __builtin_amdgcn_cvt_pk_fp8_f32(x, y, 0x11223344, false);  // low word
  p = __builtin_amdgcn_cvt_pk_fp8_f32(y, x, p, true);                     // high word
  o[0] = p;
  unsigned q = __builtin_amdgcn_cvt_pk_bf8_f32(x, y, 0x55667788, true);
  o[1] = q;
  unsigned s = __builtin_amdgcn_cvt_sr_fp8_f32(x, r, 0xa0b0c0d0, 0);
  s = __builtin_amdgcn_cvt_sr_fp8_f32(y, r ^ 0x9e3779b9u, s, 3);
  o[2] = s;
  unsigned sb = __builtin_amdgcn_cvt_sr_bf8_f32(x, r, 0, 1);
  sb = __builtin_amdgcn_cvt_sr_bf8_f32(y, ~r, sb, 2);
  o[3] = sb;
  const unsigned w = (unsigned)(t * 0x01030507u) ^ 0x3c38b8c0u;
  o[4] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cvt_f32_fp8(w, 0));
  o[5] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cvt_f32_fp8(w, 3));
  o[6] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cvt_f32_bf8(w, 1));
  o[7] = __builtin_bit_cast(unsigned, __builtin_amdgcn_cvt_f32_bf8(w, 2));
  const float2 lo = __builtin_amdgcn_cvt_pk_f32_fp8(w, false), hi = __builtin_amdgcn_cvt_pk_f32_bf8(w, true);
  // Copy the elements first: clang-22 folds __builtin_bit_cast(unsigned, v.y) of an
  // ext_vector element to element 0.
  const float e0 = lo.x, e1 = lo.y, e2 = hi.x, e3 = hi.y;
  o[8] = __builtin_bit_cast(unsigned, e0);
  o[9] = __builtin_bit_cast(unsigned, e1);
  o[10] = __builtin_bit_cast(unsigned, e2);
  o[11] = __builtin_bit_cast(unsigned, e3);
}
