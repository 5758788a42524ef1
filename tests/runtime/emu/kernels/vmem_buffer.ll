; Buffer loads and stores of every width through resources the kernels build from pointers
; (llvm.amdgcn.make.buffer.rsrc), for the buffer fast path's tests
; (tests/runtime/emu/test_memory_fast_path.cpp). LLVM IR because clang has no structured-buffer
; builtins. params (i32): [0] the source's num_records, [1] the loads' soffset, [2] the
; destination's num_records, [3] the stores' soffset. offs (i32): lane t's voffset in bytes.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8), i32, i32, i32)
declare <3 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v3i32(ptr addrspace(8), i32, i32, i32)
declare <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
declare i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8), i32, i32, i32)
declare i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v4i32(<4 x i32>, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v3i32(<3 x i32>, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32>, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i16(i16, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i8(i8, ptr addrspace(8), i32, i32, i32)
declare <2 x i32> @llvm.amdgcn.struct.ptr.buffer.load.v2i32(ptr addrspace(8), i32, i32, i32, i32)
declare i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32, i32)
declare void @llvm.amdgcn.struct.ptr.buffer.store.v2i32(<2 x i32>, ptr addrspace(8), i32, i32, i32, i32)

; Raw (offen) buffers, OOB_SELECT 3 (bytes past num_records read 0 / are dropped): lane t loads
; b128 / b96 / b64 / b32 / u16 / i16 / u8 / i8 at its voffset (plus instruction offsets) and
; stores them as b128 / b96 / b64 / b32 / b16 / b8 / b32 / b32 at t * 64 + 0 .. 55.
define amdgpu_kernel void @buffer_raw(ptr addrspace(1) %src, ptr addrspace(1) %params,
                                      ptr addrspace(1) %offs, ptr addrspace(1) %dst) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %nrs32 = load i32, ptr addrspace(1) %params
  %p1 = getelementptr i32, ptr addrspace(1) %params, i32 1
  %soff = load i32, ptr addrspace(1) %p1
  %p2 = getelementptr i32, ptr addrspace(1) %params, i32 2
  %nrd32 = load i32, ptr addrspace(1) %p2
  %p3 = getelementptr i32, ptr addrspace(1) %params, i32 3
  %soffd = load i32, ptr addrspace(1) %p3
  %nrs = zext i32 %nrs32 to i64
  %nrd = zext i32 %nrd32 to i64
  %rs = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %src, i16 0, i64 %nrs, i32 822099968)
  %rd = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %dst, i16 0, i64 %nrd, i32 822099968)
  %po = getelementptr i32, ptr addrspace(1) %offs, i32 %t
  %o = load i32, ptr addrspace(1) %po
  %o4 = add i32 %o, 4
  %o8 = add i32 %o, 8
  %o16 = add i32 %o, 16
  %o2 = add i32 %o, 2
  %o1 = add i32 %o, 1
  %o3 = add i32 %o, 3
  %a = call <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8) %rs, i32 %o, i32 %soff, i32 0)
  %b = call <3 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v3i32(ptr addrspace(8) %rs, i32 %o16, i32 %soff, i32 0)
  %c = call <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8) %rs, i32 %o4, i32 %soff, i32 0)
  %d = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %rs, i32 %o8, i32 %soff, i32 0)
  %e = call i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8) %rs, i32 %o2, i32 %soff, i32 0)
  %f = call i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8) %rs, i32 %o1, i32 %soff, i32 0)
  %g16 = call i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8) %rs, i32 %o, i32 %soff, i32 0)
  %g = sext i16 %g16 to i32
  %h8 = call i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8) %rs, i32 %o3, i32 %soff, i32 0)
  %h = sext i8 %h8 to i32
  %q = mul i32 %t, 64
  %q16 = add i32 %q, 16
  %q28 = add i32 %q, 28
  %q36 = add i32 %q, 36
  %q40 = add i32 %q, 40
  %q42 = add i32 %q, 42
  %q44 = add i32 %q, 44
  %q48 = add i32 %q, 48
  call void @llvm.amdgcn.raw.ptr.buffer.store.v4i32(<4 x i32> %a, ptr addrspace(8) %rd, i32 %q, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.v3i32(<3 x i32> %b, ptr addrspace(8) %rd, i32 %q16, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32> %c, ptr addrspace(8) %rd, i32 %q28, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %d, ptr addrspace(8) %rd, i32 %q36, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i16(i16 %e, ptr addrspace(8) %rd, i32 %q40, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i8(i8 %f, ptr addrspace(8) %rd, i32 %q42, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %g, ptr addrspace(8) %rd, i32 %q44, i32 %soffd, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %h, ptr addrspace(8) %rd, i32 %q48, i32 %soffd, i32 0)
  ret void
}

; Structured (idxen + offen) buffers of 24-byte records, OOB_SELECT 0 (index < num_records and
; offset < stride per component): lane t loads b64 and b32 from record t at its voffset, and
; stores the b64 into record t of the destination at voffset 4 and the b32 raw at t * 4 past
; the records.
define amdgpu_kernel void @buffer_struct(ptr addrspace(1) %src, ptr addrspace(1) %params,
                                         ptr addrspace(1) %offs, ptr addrspace(1) %dst) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %nrs32 = load i32, ptr addrspace(1) %params
  %p1 = getelementptr i32, ptr addrspace(1) %params, i32 1
  %soff = load i32, ptr addrspace(1) %p1
  %p2 = getelementptr i32, ptr addrspace(1) %params, i32 2
  %nrd32 = load i32, ptr addrspace(1) %p2
  %nrs = zext i32 %nrs32 to i64
  %nrd = zext i32 %nrd32 to i64
  %rs = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %src, i16 24, i64 %nrs, i32 16793600)
  %rd = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %dst, i16 24, i64 %nrd, i32 16793600)
  %rr = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %dst, i16 0, i64 4096, i32 822099968)
  %po = getelementptr i32, ptr addrspace(1) %offs, i32 %t
  %o = load i32, ptr addrspace(1) %po
  %o4 = add i32 %o, 4
  %a = call <2 x i32> @llvm.amdgcn.struct.ptr.buffer.load.v2i32(ptr addrspace(8) %rs, i32 %t, i32 %o, i32 %soff, i32 0)
  %b = call i32 @llvm.amdgcn.struct.ptr.buffer.load.i32(ptr addrspace(8) %rs, i32 %t, i32 %o4, i32 %soff, i32 0)
  call void @llvm.amdgcn.struct.ptr.buffer.store.v2i32(<2 x i32> %a, ptr addrspace(8) %rd, i32 %t, i32 4, i32 0, i32 0)
  %q = mul i32 %t, 4
  %q2 = add i32 %q, 1536
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %b, ptr addrspace(8) %rr, i32 %q2, i32 0, i32 0)
  ret void
}
