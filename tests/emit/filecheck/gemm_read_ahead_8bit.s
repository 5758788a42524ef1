; The int8 GEMM's K loop (kernels/gemm, dsl/mma/fragment_pipeline.hpp; fp8 and int4 share the
; shape), each backend and arch: 64-bit A fragments are read ahead two row tiles at a time, the
; pair in one ds_load_2addr_stride64_b64 (row tiles 16 rows = 1024 bytes apart on one LDS
; address). In an LDS stage's WMMA block, row tiles 2 and 3 (offsets 4 and 6 x 512 bytes) are
; loaded before the 8 WMMAs of row tiles 0 and 1, which wait with loads still in flight; those
; of row tiles 2 and 3 come after the next k step's fragments are issued (sched_barrier fences,
; mask 6), again waiting with loads in flight. No v_add_co, no global_inv in the block.
; TILEWAVE-EMIT: gemm --param a=int8 --param b=int8 --param out=i32 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param a=int8 --param b=int8 --param out=i32 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_int8_int8_i32_{{[a-z0-9_]+}}:
; CHECK: s_barrier_signal -1
; CHECK: ds_load_2addr_stride64_b64 v{{\[}}[[R01:[0-9]+]]:{{[0-9]+}}], v[[BASE:[0-9]+]] offset1:2
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt}}
; CHECK: ds_load_2addr_stride64_b64 v{{\[}}[[R23:[0-9]+]]:{{[0-9]+}}], v[[BASE]] offset0:4 offset1:6
; CHECK: ; sched_barrier mask(0x00000006)
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt 0x0}}
; CHECK: s_wait_dscnt 0x{{[1-9]}}
; CHECK-NEXT: v_wmma_i32_16x16x16_iu8 v[{{[0-9]+:[0-9]+}}], v{{\[}}[[R01]]:
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt 0x0}}
; CHECK-COUNT-7: v_wmma_i32_16x16x16_iu8
; CHECK-NEXT: ; sched_barrier mask(0x00000006)
; CHECK-NEXT: ds_load_2addr_stride64_b64
; CHECK-NOT: {{v_add_co|global_inv|s_wait_dscnt}}
; CHECK: ; sched_barrier mask(0x00000006)
; CHECK-NEXT: s_wait_dscnt 0x{{[1-9]}}
; CHECK-NEXT: v_wmma_i32_16x16x16_iu8 v[{{[0-9]+:[0-9]+}}], v{{\[}}[[R23]]:
; CHECK-NOT: {{v_add_co|global_inv}}
; CHECK: s_barrier_signal -1
; CHECK: s_endpgm
