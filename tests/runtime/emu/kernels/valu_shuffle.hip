// Cross-lane operations: DPP (mov / update), DPP8, ds_bpermute, permlane16 / x16 / _var,
// readlane, readfirstlane, mbcnt, a wave reduction.
#include "hip_min.h"

enum { kSlots = 18 };

extern "C" __global__ void valu_shuffle(const int* a, int* out) {
  const unsigned t = tid_x();
  const int x = a[t];
  int* o = out + t * kSlots;
  o[0] = __builtin_amdgcn_mov_dpp(x, 0x1b, 0xf, 0xf, false);             // quad_perm [3,2,1,0]
  o[1] = __builtin_amdgcn_update_dpp(-1, x, 0x101, 0xf, 0xf, false);     // row_shl:1
  o[2] = __builtin_amdgcn_update_dpp(-1, x, 0x112, 0xf, 0xf, true);      // row_shr:2, bound_ctrl
  o[3] = __builtin_amdgcn_update_dpp(-1, x, 0x123, 0xa, 0x5, false);     // row_ror:3, masks
  o[4] = __builtin_amdgcn_update_dpp(-1, x, 0x140, 0xf, 0xf, false);     // row_mirror
  o[5] = __builtin_amdgcn_update_dpp(-1, x, 0x141, 0xf, 0xf, false);     // row_half_mirror
  o[6] = __builtin_amdgcn_update_dpp(-1, x, 0x155, 0xf, 0xf, false);     // row_share:5
  o[7] = __builtin_amdgcn_update_dpp(-1, x, 0x166, 0xf, 0xf, false);     // row_xmask:6
  o[8] = __builtin_amdgcn_mov_dpp8(x, 0x00fac688);                       // dpp8:[0,1,2,3,4,5,6,7]^...
  o[9] = __builtin_amdgcn_permlane16(-1, x, 0x01234567, 0x89abcdef, false, false);
  o[10] = __builtin_amdgcn_permlanex16(-1, x, 0x76543210, 0xfedcba98, false, false);
  o[11] = __builtin_amdgcn_permlane16_var(-1, x, t * 5, false, false);
  o[12] = __builtin_amdgcn_permlanex16_var(-1, x, t * 3, false, false);
  o[13] = __builtin_amdgcn_ds_bpermute((int)((t * 7 + 3) & 31) * 4, x);
  o[14] = __builtin_amdgcn_readfirstlane(x) + __builtin_amdgcn_readlane(x, 9);
  o[15] = __builtin_amdgcn_mbcnt_lo(0x5555aaaau, 100);
  // Butterfly sum over the wave with DPP / permlanex16 (as a reduction kernel does).
  int s = x;
  s += __builtin_amdgcn_mov_dpp(s, 0xb1, 0xf, 0xf, false); // quad_perm [1,0,3,2]
  s += __builtin_amdgcn_mov_dpp(s, 0x4e, 0xf, 0xf, false); // quad_perm [2,3,0,1]
  s += __builtin_amdgcn_update_dpp(0, s, 0x141, 0xf, 0xf, false); // half mirror
  s += __builtin_amdgcn_update_dpp(0, s, 0x140, 0xf, 0xf, false); // mirror
  s += __builtin_amdgcn_permlanex16(0, s, 0x76543210, 0xfedcba98, false, false);
  o[16] = s;
  // Under divergence: the first active lane of the lanes with bit 2 set is lane 4 of the wave.
  int d = -1;
  if (t & 4)
    d = __builtin_amdgcn_readfirstlane(x);
  o[17] = d;
}
