// A kernel whose only VALU work is v_trig_preop_f64, which the emulator does not implement:
// the launch must fail with an error naming the instruction (test_valu_kernels.cpp).
#include "hip_min.h"

extern "C" __global__ void valu_unimplemented(const double* in, double* out) {
  out[tid_x()] = __builtin_amdgcn_trig_preop(in[tid_x()], 1);
}
