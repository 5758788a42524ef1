; Element-wise f32 add with one 128-bit access per operand, both backends: global loads and
; stores of 128 bits, no scratch, explicit kernarg segment of 28 bytes (3 pointers + i32).
; TILEWAVE-EMIT: ir_vector_add --param width=4 --format asm --backend llvm
; TILEWAVE-EMIT: ir_vector_add --param width=4 --format asm --backend hip
; GFX1200: .amdgcn_target "amdgcn-amd-amdhsa--gfx1200"
; GFX1201: .amdgcn_target "amdgcn-amd-amdhsa--gfx1201"
; CHECK-LABEL: {{^}}ir_vector_add_w4:
; CHECK-NOT: scratch_
; CHECK: global_load_b128
; CHECK: global_load_b128
; CHECK-NOT: scratch_
; CHECK: global_store_b128
; CHECK: s_endpgm
; CHECK: .amdhsa_kernel ir_vector_add_w4
; CHECK: .amdhsa_private_segment_fixed_size 0
; CHECK: .amdhsa_kernarg_size 28
; CHECK: .amdhsa_wavefront_size32 1
; CHECK: .max_flat_workgroup_size: 256
