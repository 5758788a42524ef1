; The f16 GEMM's K loop runs two K tiles per iteration (dsl/ops/pipeline_unrolled.hpp), each
; backend and arch: each tile's LDS stage is a compile-time constant, so its operand loads and
; the commit's stores use loop-invariant LDS addresses with the stage in the immediate offset
; (stage 1 of A at +8192, B's stages at 16384 / 24576). In one loop iteration: tile 0 computes
; on stage 0 (B fragments at offset 16384, A row tile 0 at no offset) and commits the fetched
; tile into stage 1 (one store address, offsets 8192 .. 14336 for A and 24576 .. 30720 for B),
; barrier; tile 1 computes on stage 1 (B at 24576, A at 8192 from the same two addresses) and
; commits into stage 0 (offsets 0 .. 6144 and 16384 .. 22528), barrier; one branch. The
; commit's stores follow each other with no wait (one s_wait_loadcnt before the first,
; dsl/ops/pipeline_front.hpp; gemm_k_waits.s counts the waits). No VALU
; address arithmetic (no v_add_nc_u32 / v_or_b32 / v_xor_b32 / v_lshl / v_and: the loop of one
; tile per iteration added the stage to 8 addresses with v_or / v_add), no 64-bit address adds,
; no L0 invalidate.
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK: Inner Loop Header
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal}}
; CHECK: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[B0:[0-9]+]] offset:16384
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal}}
; CHECK: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[A0:[0-9]+]]{{$}}
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal}}
; CHECK: ds_store_b128 v[[S:[0-9]+]], v{{\[[0-9]+:[0-9]+\]}} offset:8192
; CHECK-NEXT: ds_store_b128 v[[S]], v{{\[[0-9]+:[0-9]+\]}} offset:10240
; CHECK: ds_store_b128 v[[S]], v{{\[[0-9]+:[0-9]+\]}} offset:30720
; CHECK-NOT: {{ds_load|v_wmma}}
; CHECK: s_barrier_signal -1
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal|s_cbranch}}
; CHECK: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[B0]] offset:24576
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal|s_cbranch}}
; CHECK: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[A0]] offset:8192
; CHECK-NOT: {{v_add_nc_u32|v_or_b32|v_xor_b32|v_lshl|v_and_b32|v_add_co|global_inv|s_barrier_signal|s_cbranch}}
; CHECK: ds_store_b128 v[[S]], v{{\[[0-9]+:[0-9]+\]}}{{$}}
; CHECK-NEXT: ds_store_b128 v[[S]], v{{\[[0-9]+:[0-9]+\]}} offset:2048
; CHECK: ds_store_b128 v[[S]], v{{\[[0-9]+:[0-9]+\]}} offset:22528
; CHECK-NOT: {{ds_load|v_wmma}}
; CHECK: s_barrier_signal -1
; CHECK-NOT: {{ds_load|ds_store|v_wmma|buffer_load|v_}}
; CHECK: s_barrier_wait -1
; CHECK-NEXT: s_cbranch_scc{{[01]}}
