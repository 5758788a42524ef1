; TILEWAVE-EMIT: ir_buffer_copy --format llvm --backend llvm
; CHECK: [[RSRC:%[0-9a-z.]+]] = {{.*}}call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %x, i16 0, i64 %{{[0-9a-z.]+}}, i32 822243328)
; CHECK: call {{float|i32}} @llvm.amdgcn.raw.ptr.buffer.load.{{f32|i32}}(ptr addrspace(8) [[RSRC]], i32 %{{[0-9a-z.]+}}, i32 0, i32 0)
