; The f16 GEMM's K loop with k_whole (K a multiple of the K tile, the launch's pick for such K;
; kernels/gemm/gemm_kernel.hpp), each backend and arch: the clipped k-contiguous tiles of A and B
; are read with loop-invariant offsets (dsl ClippedCols::whole_or_none), so the loop has no
; v_cndmask and no v_med3 (without the flag each K tile chose its 8 runs' offsets for the K
; edge: 16 v_cndmask and 2 v_med3 per iteration of two tiles), and no other VALU but the WMMAs
; either. A and B are walked along K through one descriptor each, made before the loop
; (dsl/copy/buffer_clipped_walk.hpp): a K tile's 8 loads take its column offset as their SGPR
; soffset, one scalar compare and select per K tile that A and B share (2^31, past every
; num_records, for the tile past K: it reads 0). No descriptor is rebuilt in the loop: no 64-bit
; scalar base add (s_add_nc_u64), no mask of the base's high word (s_and_b32), no records select
; per operand (s_cselect ..., 0), no scalar copies (s_mov_b32): with a descriptor per K tile the
; loop had 10 SALU per K tile, now 4 (bench_gemm's K-loop mix, 84 -> 78 instructions per K
; tile). The epilogue's clipped stores still choose per column (after the loop).
; TILEWAVE-EMIT: gemm --param k_whole=1 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param k_whole=1 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_rcvv_clipab_kw_clipo_{{[a-z0-9_]+}}:
; CHECK: Inner Loop Header
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32}}
; CHECK: s_cselect_b32 s[[SO0:[0-9]+]], s{{[0-9]+}}, 0x80000000
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32|s_cselect}}
; CHECK-COUNT-8: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], s[[SO0]] offen
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32|s_cselect|buffer_load}}
; CHECK: v_wmma_f32_16x16x16_f16
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32|s_cselect|buffer_load}}
; CHECK: s_barrier_signal -1
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32|buffer_load}}
; CHECK: s_cselect_b32 s[[SO1:[0-9]+]], s{{[0-9]+}}, 0x80000000
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32|s_cselect}}
; CHECK-COUNT-8: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], s[[SO1]] offen
; CHECK-NOT: {{v_cndmask|v_med3|v_cmp|v_add|v_mov|v_or|v_and|v_lshl|s_add_nc_u64|s_and_b32|s_mov_b32|s_cselect|buffer_load}}
; CHECK: s_barrier_signal -1
; CHECK-NOT: {{ds_load|ds_store|v_wmma|buffer_load|v_|s_add_nc_u64|s_and_b32|s_mov_b32|s_cselect}}
; CHECK: s_barrier_wait -1
; CHECK-NEXT: s_cbranch_scc{{[01]}} .LBB0_{{[0-9]+}}
