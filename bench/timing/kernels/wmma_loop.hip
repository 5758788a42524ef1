// A WMMA throughput loop, the kind of microbenchmark behind the published ~200 TFLOP/s bf16
// of the RX 9070 XT (carlushuang/gcnasm; shared/RDNA4.md): each wave runs `iters` rounds of
// four independent bf16 WMMA accumulations (written here, not that code).
#define __global__ __attribute__((global))

typedef short v8s __attribute__((ext_vector_type(8)));
typedef float v8f __attribute__((ext_vector_type(8)));

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(32, 32)))
wmma_bf16_loop(const v8s* ab, v8f* out, int iters) {
  const unsigned lane = __builtin_amdgcn_workitem_id_x();
  const v8s a = ab[lane], b = ab[lane + 32];
  v8f c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (int i = 0; i < iters; ++i) {
    c0 = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c0);
    c1 = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c1);
    c2 = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c2);
    c3 = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c3);
  }
  out[__builtin_amdgcn_workgroup_id_x() * 32 + lane] = c0 + c1 + c2 + c3;
}
