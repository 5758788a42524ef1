; The f16 GEMM's K loop with k_whole (K a multiple of the K tile, the launch's pick for such K;
; kernels/gemm/gemm_kernel.hpp), each backend and arch: the clipped k-contiguous tiles of A and B
; are read with loop-invariant offsets (dsl ClippedCols::whole_or_none), so the loop has no
; v_cndmask and no v_med3 (without the flag each K tile chose its 8 runs' offsets for the K
; edge: 16 v_cndmask and 2 v_med3 per iteration of two tiles), and no other VALU but the WMMAs
; either; a tile past K reads 0 through the descriptor's num_records (an s_cselect per
; descriptor). The epilogue's clipped stores still choose per column (after the loop).
; TILEWAVE-EMIT: gemm --param k_whole=1 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param k_whole=1 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_rcvv_clipab_kw_clipo_{{[a-z0-9_]+}}:
; CHECK: Inner Loop Header
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl}}
; CHECK: s_cselect_b32 s{{[0-9]+}}, s{{[0-9]+}}, 0
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl}}
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl}}
; CHECK: s_barrier_signal -1
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl}}
; CHECK: s_barrier_signal -1
; CHECK-NOT: {{ds_load|ds_store|v_wmma|buffer_load|v_}}
; CHECK: s_barrier_wait -1
; CHECK-NEXT: s_cbranch_scc{{[01]}} .LBB0_{{[0-9]+}}
