; The LLVM backend's LDS block and barrier before codegen.
; TILEWAVE-EMIT: ir_lds_reverse --format llvm --backend llvm
; CHECK: @ir_lds_reverse.lds = internal {{(unnamed_addr )?}}addrspace(3) global [1024 x i8] poison, align 16
; CHECK: store float {{.*}}, ptr addrspace(3)
; CHECK: fence syncscope("workgroup") release
; CHECK-NEXT: tail call void @llvm.amdgcn.s.barrier()
; CHECK-NEXT: fence syncscope("workgroup") acquire
; CHECK: load float, ptr addrspace(3)
