// The few HIP spellings the test kernels need, without HIP headers (-nogpuinc).
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ inline __attribute__((always_inline))

__device__ __forceinline__ unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ __forceinline__ unsigned tid_y() { return __builtin_amdgcn_workitem_id_y(); }
__device__ __forceinline__ unsigned tid_z() { return __builtin_amdgcn_workitem_id_z(); }
__device__ __forceinline__ unsigned bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ __forceinline__ unsigned bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ __forceinline__ unsigned bid_z() { return __builtin_amdgcn_workgroup_id_z(); }
// LDS exchange between waves: release fence, barrier, acquire fence (shared/RDNA4.md).
__device__ __forceinline__ void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
