; The kernel library's f16 GEMM (kernels/gemm, 128-bit aligned operands), each backend and
; arch: the K loop issues v_wmma_f32_16x16x16_f16 on LDS operands, a barrier, and
; 128-bit buffer loads of the next tile (clipped edges, the registry's default: one path for
; every tile, so the loop is one basic block); operand tiles come from LDS with one 128-bit read
; each (the tiled layer's k-contiguous 16-bit operand map); nothing goes to scratch.
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK-NOT: scratch_
; CHECK: =>This Inner Loop Header: Depth=1
; CHECK-NOT: s_endpgm
; CHECK-DAG: ds_load_b128
; CHECK-DAG: v_wmma_f32_16x16x16_f16 v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}]
; CHECK-DAG: buffer_load_b128
; CHECK: s_barrier_signal -1
; CHECK-NOT: s_endpgm
; CHECK: s_cbranch_scc{{[01]}} .LBB0_{{[0-9]+}}
; CHECK-NOT: scratch_
; CHECK: s_endpgm
; CHECK: .amdhsa_private_segment_fixed_size 0
; CHECK: ; ScratchSize: 0
