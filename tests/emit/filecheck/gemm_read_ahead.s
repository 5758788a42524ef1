; The f16 GEMM's K loop (kernels/gemm, dsl/mma/fragment_pipeline.hpp), each backend and arch:
; the operand fragments are read one k step ahead. A K tile (32 elements) is two k steps; each
; k step's fragment set is B's four fragments (one LDS address, offsets 16384 .. 19456 in stage
; 0) and A's four row tiles (another address, offsets 0 .. 3072). At the top of the loop the
; first set is loaded, one s_wait_dscnt 0 waits for it, then the second set's 8 ds_loads are
; issued before the first k step's WMMAs (held there by a sched_barrier, mask 6: only SALU /
; VALU cross); the WMMAs of a k step have no LDS wait between them (the explicit one covers
; them; gemm_k_waits.s counts the waits). No 64-bit address adds (v_add_co) and no L0
; invalidate (global_inv) in the loop.
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK: Inner Loop Header
; CHECK-NOT: {{v_wmma|s_wait_(loadcnt_)?dscnt|v_add_co|global_inv}}
; CHECK-DAG: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[B:[0-9]+]] offset:16384
; CHECK-DAG: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[B]] offset:19456
; CHECK-DAG: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[A:[0-9]+]]{{$}}
; CHECK-DAG: ds_load_b128 v{{\[[0-9]+:[0-9]+\]}}, v[[A]] offset:3072
; CHECK-NOT: {{v_wmma|v_add_co|global_inv}}
; CHECK: s_wait_dscnt 0x0
; CHECK-COUNT-8: ds_load_b128
; CHECK-NOT: {{v_wmma|s_wait|v_add_co|global_inv}}
; CHECK: ; sched_barrier mask(0x00000006)
; CHECK-NOT: {{s_wait|ds_load|v_add_co|global_inv}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|ds_load|v_add_co|global_inv}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NOT: {{s_wait|ds_load|v_add_co|global_inv}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|ds_load|v_add_co|global_inv}}
; CHECK: s_wait_loadcnt 0x0
; CHECK: s_barrier_signal -1
; CHECK: s_endpgm
