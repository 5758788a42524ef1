; A K loop of one v_wmma_f32_16x16x16_f16 per step fed by two 128-bit loads, accumulator
; carried in VGPRs (the GEMM inner-loop shape), both backends: the loop body holds the loads
; and the WMMA, branches back, and nothing spills to scratch.
; TILEWAVE-EMIT: ir_wmma_loop --format asm --backend llvm
; TILEWAVE-EMIT: ir_wmma_loop --format asm --backend hip
; CHECK-LABEL: {{^}}ir_wmma_loop:
; CHECK-NOT: scratch_
; CHECK: [[LOOP:.LBB0_[0-9]+]]:{{.*(Loop Header|%for.body)}}
; CHECK-NOT: s_endpgm
; CHECK: global_load_b128
; CHECK-NOT: s_endpgm
; CHECK: global_load_b128
; CHECK-NOT: s_endpgm
; CHECK: v_wmma_f32_16x16x16_f16 v[[[D:[0-9]+]]:{{[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[[[D]]:{{[0-9]+}}]
; CHECK-NOT: s_endpgm
; CHECK: s_cbranch_{{[a-z0-9]+}} [[LOOP]]
; CHECK-NOT: scratch_
; CHECK: s_endpgm
; CHECK: .amdhsa_private_segment_fixed_size 0
; CHECK: ; ScratchSize: 0
