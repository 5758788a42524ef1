; A loop with a carried f32 and an if / else with a result.
; TILEWAVE-EMIT: ir_loop_sum --format asm --backend llvm
; TILEWAVE-EMIT: ir_loop_sum --format asm --backend hip
; CHECK-LABEL: {{^}}ir_loop_sum:
; CHECK: [[LOOP:.LBB0_[0-9]+]]:
; CHECK: global_load_b32
; CHECK: v_add_f32
; CHECK: s_cbranch_{{[a-z0-9]+}} [[LOOP]]
; CHECK: global_store_b32
