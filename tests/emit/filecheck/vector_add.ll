; The LLVM backend's IR after O3: an amdgpu_kernel whose parameters are the IR's kernel
; arguments in order, a 128-bit vector load per operand, the exact workgroup size.
; TILEWAVE-EMIT: ir_vector_add --param width=4 --param block=128 --format llvm --backend llvm
; CHECK: target triple = "amdgcn-amd-amdhsa"
; CHECK: define protected amdgpu_kernel void @ir_vector_add_w4(ptr addrspace(1) {{.*}}%a, ptr addrspace(1) {{.*}}%b, ptr addrspace(1) {{.*}}%c, i32 {{.*}}%n)
; CHECK-DAG: tail call {{.*}}i32 @llvm.amdgcn.workgroup.id.x()
; CHECK-DAG: tail call {{.*}}i32 @llvm.amdgcn.workitem.id.x()
; CHECK: load <4 x float>, ptr addrspace(1) {{.*}}, align 16
; CHECK: load <4 x float>, ptr addrspace(1) {{.*}}, align 16
; CHECK: fadd <4 x float>
; CHECK: store <4 x float> {{.*}}, align 16
; CHECK: attributes #{{[0-9]+}} = { {{.*}}"amdgpu-flat-work-group-size"="128,128"
; GFX1200-SAME: "target-cpu"="gfx1200"
; GFX1201-SAME: "target-cpu"="gfx1201"
; CHECK: !{i32 1, !"amdhsa_code_object_version", i32 600}
