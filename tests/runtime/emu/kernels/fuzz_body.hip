// The executor fuzz target's template (tests/fuzz/fuzz_executor.cpp): a kernel using LDS,
// scratch, a barrier and a global buffer, with a body of 256 s_nop dwords that each fuzz
// input replaces. The clobbers make clang allocate 128 VGPRs and 103 SGPRs (clang reserves
// v128 and up here), so random instructions meet both allocated and unallocated registers.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))

extern "C" __global__ void fuzz_body(unsigned* buf, unsigned n) {
  __shared__ unsigned lds[4096];
  volatile unsigned scratch[64];
  const unsigned lane = __builtin_amdgcn_workitem_id_x();
  lds[lane] = buf[lane % n];
  scratch[lane % 64] = lane;
  __builtin_amdgcn_s_barrier();
  asm volatile(".fill 256, 4, 0xbf800000" ::: "memory", "v127", "s100");
  buf[lane % n] = lds[(lane + 1) % 4096] + scratch[(lane + 3) % 64];
}
