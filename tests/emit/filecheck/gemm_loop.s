; The kernel library's f16 GEMM (kernels/gemm, 128-bit aligned operands), each backend and
; arch: the K loop issues v_wmma_f32_16x16x16_f16 on LDS operands, a barrier, and
; 128-bit loads of the next tile (with clipped edges, the default: buffer_load_b128 for every
; tile; without: global_load_b128 on the edge-tile path checked here, buffer loads on the
; whole-tile path, gemm_copy_addresses.s); operand tiles come from LDS with one 128-bit read
; each (the tiled layer's k-contiguous 16-bit operand map); nothing goes to scratch.
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; TILEWAVE-EMIT: gemm --param a_clipped=0 --param b_clipped=0 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param a_clipped=0 --param b_clipped=0 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK-NOT: scratch_
; CHECK: in Loop: Header=BB0_[[H:[0-9]+]] Depth=1
; CHECK-NOT: s_endpgm
; CHECK: ds_load_b128
; CHECK-NOT: s_endpgm
; CHECK: v_wmma_f32_16x16x16_f16 v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}]
; CHECK-NOT: s_endpgm
; CHECK: s_barrier_signal -1
; CHECK: =>This Inner Loop Header: Depth=1
; CHECK-NOT: s_endpgm
; CHECK: {{(global|buffer)_load_b128}}
; CHECK-NOT: s_endpgm
; CHECK: in Loop: Header=BB0_[[H]] Depth=1
; CHECK-NOT: scratch_
; CHECK: s_endpgm
; CHECK: .amdhsa_private_segment_fixed_size 0
; CHECK: ; ScratchSize: 0
