; The f16 GEMM's K loop (kernels/gemm, 128-bit aligned operands), each backend and arch: no
; 64-bit VALU address arithmetic (v_add_co / v_add_co_ci) on the path an interior K tile takes.
; The block of WMMAs on the LDS stage (with its ds_load operand reads and the commit of the next
; tile into LDS) has none, and the whole-tile copy path reads A and B with 8 raw buffer loads
; in a row from two SGPR descriptors at 32-bit VGPR offsets (dsl/copy/buffer_global_tile.hpp,
; load_both_whole_or_masked; each descriptor's base moves with scalar adds and is masked to 48
; bits). Only the edge-tile path, taken by tiles that cross the matrix's edge, keeps 64-bit
; per-lane addresses. (Both backends lay the WMMA block out before the copy block.)
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK: s_barrier_signal -1
; CHECK: ds_load_b128
; CHECK-NOT: v_add_co
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: v_add_co
; CHECK: ds_store_b128
; CHECK-NOT: v_add_co
; CHECK: s_barrier_signal -1
; CHECK: s_and_b32 s{{[0-9]+}}, s{{[0-9]+}}, 0xffff
; CHECK-NEXT: s_and_b32 s{{[0-9]+}}, s{{[0-9]+}}, 0xffff
; CHECK-NOT: v_add_co
; CHECK-COUNT-8: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK: s_endpgm
