; One wave, one WMMA per 16-bit atom, both backends and both arches.
; TILEWAVE-EMIT: ir_wmma_tile --format asm --backend llvm
; TILEWAVE-EMIT: ir_wmma_tile --format asm --backend hip
; TILEWAVE-EMIT: ir_wmma_tile --param atom=v_wmma_f32_16x16x16_bf16 --format asm --backend llvm
; CHECK-LABEL: {{^}}ir_wmma_tile:
; CHECK: v_mbcnt_lo_u32_b32
; CHECK: global_load_b128
; CHECK: v_wmma_f32_16x16x16_{{bf16|f16}} v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], 0
; CHECK: global_store_b32
; CHECK: .amdhsa_next_free_vgpr
; CHECK: .max_flat_workgroup_size: 32
