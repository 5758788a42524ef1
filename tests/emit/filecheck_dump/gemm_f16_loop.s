; The DSL tiled f16 GEMM (examples/05_gemm_f16.cpp, 16-byte rows), TILEWAVE_DUMP assembly, each
; backend, gfx1201: the K loop (one basic block: clipped edges, no masked path) issues
; v_wmma_f32_16x16x16_f16 on LDS operands, a barrier, and 128-bit buffer loads of the next
; tile; operand tiles come from LDS with one 128-bit read
; each (the tiled layer's k-contiguous 16-bit operand map); nothing goes to scratch; the
; pipeline's barriers fence LDS only, so no global_inv (L0 invalidate) anywhere (checked by
; --implicit-check-not=global_inv in tests/emit/CMakeLists.txt).
; CHECK-LABEL: {{^}}gemm_f16_128x128x32_align16:
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
