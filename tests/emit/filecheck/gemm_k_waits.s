; The waits of the f16 GEMM's K loop, each backend and arch, with and without k_whole: per K
; tile (two per loop iteration) three s_wait_dscnt and one s_wait_loadcnt, all explicit
; (dsl/ops/wait_counters.hpp) and all for 0:
;   s_wait_dscnt 0x0    the first k step's fragments (B then A) have arrived
;                       (the second k step's fragment loads are issued after it)
;   v_wmma x 16         the first k step, no wait between them
;   s_wait_dscnt 0x0    the second k step's fragments
;   v_wmma x 16
;   s_wait_loadcnt 0x0  the next stage's buffer loads (dsl/ops/pipeline_front.hpp's commit)
;   ds_store_b128 x 8   no wait between them
;   s_wait_dscnt 0x0    the stores (the barrier's release fence), s_barrier_signal / wait
; Before, both compilers waited per fragment as it was needed and per store for its load: 9
; s_wait_dscnt (8 of them for 1, one per group of 4 WMMAs) and 8 s_wait_loadcnt per K tile.
; DS: any wait on the LDS counter (also combined with the load counter).
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; TILEWAVE-EMIT: gemm --param k_whole=1 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param k_whole=1 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK: Inner Loop Header
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: ds_load_b128
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: ds_load_b128
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load}}
; CHECK: s_wait_loadcnt 0x0
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load|v_wmma}}
; CHECK: ds_store_b128
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load|v_wmma}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NEXT: s_barrier_signal -1
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: ds_load_b128
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: ds_load_b128
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load}}
; CHECK: s_wait_loadcnt 0x0
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load|v_wmma}}
; CHECK: ds_store_b128
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load|v_wmma}}
; CHECK: s_wait_dscnt 0x0
; CHECK-NEXT: s_barrier_signal -1
; CHECK-NOT: {{s_wait_(loadcnt_)?dscnt|s_wait_loadcnt|ds_load|v_wmma}}
; CHECK: s_cbranch_scc{{[01]}}
