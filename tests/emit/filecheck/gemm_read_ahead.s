; The f16 GEMM's K loop (kernels/gemm, dsl/mma/fragment_pipeline.hpp), each backend and arch:
; the next operand fragment's ds_load is issued before the current WMMAs. In the WMMA block of
; an LDS stage, A row tile 1 (offset 1024) is loaded with the B fragments and A row tile 0,
; ahead of row tile 0's WMMAs; row tile 2 (offset 2048) is loaded before the 4 WMMAs that use
; row tile 1, which wait for it with one load (row tile 2's) still in flight (s_wait_dscnt 1,
; no full LDS drain); row tile 3 likewise before row tile 2's WMMAs. The order is held by
; the sched_barrier fences (mask 6: only SALU / VALU cross, so scalar and vector ALU work, and
; after row tile 1's load the next stage's buffer loads, may sit between a load, its fence and
; the wait; no WMMA or other LDS load may). One LDS address per operand and k
; step: the row tiles are immediate offsets from it. No 64-bit address adds (v_add_co) and no
; L0 invalidate (global_inv) in the block.
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK: s_barrier_signal -1
; CHECK: ds_load_b128 v{{\[}}[[A0:[0-9]+]]:{{[0-9]+}}], v[[BASE:[0-9]+]]{{$}}
; CHECK-NOT: v_add_co
; CHECK: ds_load_b128 v{{\[}}[[A1:[0-9]+]]:{{[0-9]+}}], v[[BASE]] offset:1024
; CHECK-NOT: {{v_wmma|v_add_co|global_inv}}
; CHECK: ; sched_barrier mask(0x00000006)
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt 0x0}}
; CHECK: s_wait_dscnt 0x{{[1-9]}}
; CHECK-NEXT: v_wmma_f32_16x16x16_f16 v[{{[0-9]+:[0-9]+}}], v{{\[}}[[A0]]:
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt 0x0}}
; CHECK: ds_load_b128 v{{\[}}[[A2:[0-9]+]]:{{[0-9]+}}], v[[BASE]] offset:2048
; CHECK-NOT: {{v_wmma|ds_load}}
; CHECK: ; sched_barrier mask(0x00000006)
; CHECK-NOT: {{v_wmma|ds_load|s_wait_dscnt 0x0}}
; CHECK: s_wait_dscnt 0x1
; CHECK-COUNT-4: v_wmma_f32_16x16x16_f16 v[{{[0-9]+:[0-9]+}}], v{{\[}}[[A1]]:
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt 0x0}}
; CHECK: ds_load_b128 v{{\[}}[[A3:[0-9]+]]:{{[0-9]+}}], v[[BASE]] offset:3072
; CHECK-NOT: {{v_wmma|ds_load}}
; CHECK: ; sched_barrier mask(0x00000006)
; CHECK-NOT: {{v_wmma|ds_load|s_wait_dscnt 0x0}}
; CHECK: s_wait_dscnt 0x1
; CHECK-COUNT-4: v_wmma_f32_16x16x16_f16 v[{{[0-9]+:[0-9]+}}], v{{\[}}[[A2]]:
; CHECK-NOT: {{v_add_co|global_inv}}
; CHECK: s_barrier_signal -1
; CHECK: s_endpgm
