// Cross-lane LDS-crossbar instructions: ds_swizzle (quad-permute and bit-mask modes),
// ds_permute (scatter) and ds_bpermute (gather) with inactive lanes.
#include "hip_min.h"

extern "C" __global__ void lanes(const int* in, int* out) {
  const unsigned t = tid_x(); // 64 threads = 2 waves
  const int v = in[t];
  // Quad permute [3,2,1,0]: offset = 0x8000 | 3 | 2 << 2 | 1 << 4 | 0 << 6.
  out[t * 5 + 0] = __builtin_amdgcn_ds_swizzle(v, 0x8000 | 3 | (2 << 2) | (1 << 4));
  // Bit-mask mode: and 0x1f, or 0, xor 5 -> source lane = lane ^ 5.
  out[t * 5 + 1] = __builtin_amdgcn_ds_swizzle(v, (5 << 10) | 0x1f);
  // Scatter to lane (31 - lane).
  out[t * 5 + 2] = __builtin_amdgcn_ds_permute(int((31 - t % 32) * 4), v);
  // Gather from lane (lane + 3) % 32 with only even lanes active: odd sources read 0.
  int g = -1;
  if ((t & 1) == 0)
    g = __builtin_amdgcn_ds_bpermute(int(((t % 32) + 3) * 4), v);
  out[t * 5 + 3] = g;
  // Gather with an address past lane 31 wraps (lane index is taken modulo 32).
  out[t * 5 + 4] = __builtin_amdgcn_ds_bpermute(int((t % 32 + 40) * 4), v);
}
