; Structured buffer loads (idxen + offen, stride 16, index bound) and raw buffer atomics,
; in range and out of range. LLVM IR because clang has no structured-buffer builtins.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.struct.buffer.load.i32(<4 x i32>, i32, i32, i32, i32)
declare i32 @llvm.amdgcn.raw.buffer.atomic.add.i32(i32, <4 x i32>, i32, i32, i32)

define amdgpu_kernel void @structured(<4 x i32> %rsrc, <4 x i32> %counter, <4 x i32> %empty,
                                      ptr addrspace(1) %out) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %v = call i32 @llvm.amdgcn.struct.buffer.load.i32(<4 x i32> %rsrc, i32 %t, i32 4, i32 0, i32 0)
  %p0 = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %p0
  %old = call i32 @llvm.amdgcn.raw.buffer.atomic.add.i32(i32 1, <4 x i32> %counter, i32 0, i32 0, i32 0)
  %t1 = add i32 %t, 64
  %p1 = getelementptr i32, ptr addrspace(1) %out, i32 %t1
  store i32 %old, ptr addrspace(1) %p1
  %none = call i32 @llvm.amdgcn.raw.buffer.atomic.add.i32(i32 5, <4 x i32> %empty, i32 0, i32 0, i32 0)
  %t2 = add i32 %t, 128
  %p2 = getelementptr i32, ptr addrspace(1) %out, i32 %t2
  store i32 %none, ptr addrspace(1) %p2
  ret void
}
