; d16 loads (global_load_d16_hi_i8, ds_load_u16_d16_hi) and 16-bit LDS / global stores; LLVM IR
; so that the d16 forms are selected.
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
@lds = internal addrspace(3) global [256 x i16] poison, align 16
define amdgpu_kernel void @d16(ptr addrspace(1) %in16, ptr addrspace(1) %in8, ptr addrspace(1) %out) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr i16, ptr addrspace(1) %in16, i32 %t
  %a = load i16, ptr addrspace(1) %pa
  %t2 = add i32 %t, 64
  %pb = getelementptr i16, ptr addrspace(1) %in16, i32 %t2
  %b = load i16, ptr addrspace(1) %pb
  %v0 = insertelement <2 x i16> poison, i16 %a, i32 0
  %v1 = insertelement <2 x i16> %v0, i16 %b, i32 1
  %pc = getelementptr i8, ptr addrspace(1) %in8, i32 %t
  %c = load i8, ptr addrspace(1) %pc
  %cs = sext i8 %c to i16
  %w0 = insertelement <2 x i16> %v1, i16 %cs, i32 1
  %pl = getelementptr i16, ptr addrspace(3) @lds, i32 %t
  store i16 %a, ptr addrspace(3) %pl
  %hi = extractelement <2 x i16> %v1, i32 1
  %pl2 = getelementptr i16, ptr addrspace(3) @lds, i32 %t2
  store i16 %hi, ptr addrspace(3) %pl2
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %r = sub i32 63, %t
  %pr = getelementptr i16, ptr addrspace(3) @lds, i32 %r
  %x = load i16, ptr addrspace(3) %pr
  %r2 = add i32 %r, 64
  %pr2 = getelementptr i16, ptr addrspace(3) @lds, i32 %r2
  %y = load i16, ptr addrspace(3) %pr2
  %u0 = insertelement <2 x i16> poison, i16 %x, i32 0
  %u1 = insertelement <2 x i16> %u0, i16 %y, i32 1
  %o = getelementptr <2 x i16>, ptr addrspace(1) %out, i32 %t
  store <2 x i16> %v1, ptr addrspace(1) %o
  %t3 = add i32 %t, 64
  %o2 = getelementptr <2 x i16>, ptr addrspace(1) %out, i32 %t3
  store <2 x i16> %u1, ptr addrspace(1) %o2
  %t4 = add i32 %t, 128
  %o3 = getelementptr <2 x i16>, ptr addrspace(1) %out, i32 %t4
  store <2 x i16> %w0, ptr addrspace(1) %o3
  %ob = getelementptr i16, ptr addrspace(1) %out, i32 512
  %ob2 = getelementptr i16, ptr addrspace(1) %ob, i32 %t
  store i16 %hi, ptr addrspace(1) %ob2
  ret void
}
declare void @llvm.amdgcn.s.barrier()
