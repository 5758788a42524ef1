; TILEWAVE-EMIT: ir_if_else --format asm --backend llvm
; TILEWAVE-EMIT: ir_if_else --format asm --backend hip
; CHECK-LABEL: {{^}}ir_if_else:
; CHECK: s_and_saveexec_b32
; CHECK: global_load_b32
; CHECK-DAG: v_cmp_{{.*}}0
; CHECK-DAG: v_sqrt_f32
; CHECK: global_store_b32
