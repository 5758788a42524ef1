// The gfx12 transpose loads through clang's builtins, one wave: lane l passes the address
// src + offs[l] (bytes) and writes the 2 (b64) / 4 (b128) dwords it received to
// out[l * 4 + v] (test_vmem_load_tr.cpp derives the expected values from the documented lane
// layout). Also a partial-EXEC launch (lanes >= active skip the load) for the EXEC rule.
#include "hip_min.h"

typedef int v2i __attribute__((ext_vector_type(2)));
typedef short v8s __attribute__((ext_vector_type(8)));
typedef __attribute__((address_space(1))) v2i global_v2i;
typedef __attribute__((address_space(1))) v8s global_v8s;

extern "C" __global__ void load_tr_b128(const unsigned char* src, const unsigned* offs,
                                        unsigned* out) {
  const unsigned l = tid_x();
  const v8s r = __builtin_amdgcn_global_load_tr_b128_v8i16((global_v8s*)(src + offs[l]));
  unsigned w[4];
  __builtin_memcpy(w, &r, sizeof(w));
  for (int v = 0; v < 4; ++v)
    out[l * 4 + v] = w[v];
}

extern "C" __global__ void load_tr_b64(const unsigned char* src, const unsigned* offs,
                                       unsigned* out) {
  const unsigned l = tid_x();
  const v2i r = __builtin_amdgcn_global_load_tr_b64_v2i32((global_v2i*)(src + offs[l]));
  out[l * 4 + 0] = (unsigned)r[0];
  out[l * 4 + 1] = (unsigned)r[1];
}

// Only lanes below `active` execute the load (EXEC is not all ones when active < 32).
extern "C" __global__ void load_tr_b64_partial(const unsigned char* src, const unsigned* offs,
                                               unsigned* out, unsigned active) {
  const unsigned l = tid_x();
  if (l < active) {
    const v2i r = __builtin_amdgcn_global_load_tr_b64_v2i32((global_v2i*)(src + offs[l]));
    out[l * 4 + 0] = (unsigned)r[0];
    out[l * 4 + 1] = (unsigned)r[1];
  }
}
