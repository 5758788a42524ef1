; The int8 GEMM's K loop (kernels/gemm, dsl/mma/fragment_pipeline.hpp; fp8 and packed int4
; share the shape), each backend and arch: a K tile (64 bytes) is four k steps; a k step's
; fragment set is B's and A's 64-bit fragments, paired into four ds_load_2addr_stride64_b64.
; Each k step: one s_wait_dscnt 0 for its set, the next k step's four loads issued before its
; 16 WMMAs (sched_barrier fences), no LDS wait among the WMMAs; the last k step loads nothing
; more. No v_add_co, no global_inv in the loop.
; TILEWAVE-EMIT: gemm --param a=int8 --param b=int8 --param out=i32 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param a=int8 --param b=int8 --param out=i32 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_int8_int8_i32_{{[a-z0-9_]+}}:
; CHECK: Inner Loop Header
; CHECK-NOT: {{v_wmma|s_wait_(loadcnt_)?dscnt|v_add_co|global_inv}}
; CHECK: ds_load_2addr_stride64_b64
; CHECK-NOT: {{v_wmma|v_add_co|global_inv}}
; CHECK: s_wait_dscnt 0x0
; CHECK-COUNT-4: ds_load_2addr_stride64_b64
; CHECK-NOT: {{s_wait|ds_load|v_add_co|global_inv}}
; CHECK: v_wmma_i32_16x16x16_iu8
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|ds_load|v_add_co|global_inv}}
; CHECK: s_wait_dscnt 0x0
; CHECK-COUNT-4: ds_load_2addr_stride64_b64
; CHECK-NOT: {{s_wait|ds_load|v_add_co|global_inv}}
; CHECK: v_wmma_i32_16x16x16_iu8
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|ds_load|v_add_co|global_inv}}
; CHECK: s_wait_dscnt 0x0
; CHECK-COUNT-4: ds_load_2addr_stride64_b64
; CHECK-NOT: {{s_wait|ds_load|v_add_co|global_inv}}
; CHECK: v_wmma_i32_16x16x16_iu8
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|ds_load|v_add_co|global_inv}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NOT: {{s_wait|ds_load|v_add_co|global_inv}}
; CHECK: v_wmma_i32_16x16x16_iu8
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|ds_load|v_add_co|global_inv}}
; CHECK: s_wait_loadcnt 0x0
; CHECK: s_barrier_signal -1
; CHECK: s_endpgm
