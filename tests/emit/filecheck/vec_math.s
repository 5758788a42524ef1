; Element-wise Vec<f16, 8> math compiles to the packed VOP3P forms (two f16 per VGPR) and the
; f16 transcendentals; Vec<bf16, 8> has no packed form on gfx12 (it computes in f32).
; TILEWAVE-EMIT: vec_math_f16 --format asm --backend llvm
; TILEWAVE-EMIT: vec_math_f16 --format asm --backend hip
; CHECK-LABEL: {{^}}vec_math_f16:
; CHECK-DAG: v_pk_add_f16
; CHECK-DAG: v_pk_mul_f16
; CHECK-DAG: v_pk_fma_f16
; CHECK-DAG: v_pk_max_num_f16
; CHECK-DAG: v_pk_min_num_f16
; CHECK-DAG: v_exp_f16
; CHECK-DAG: v_rcp_f16
; CHECK: s_endpgm
