; LDS exchange across a workgroup: store, release fence + s_barrier + acquire fence, load.
; On gfx12 the barrier is s_barrier_signal / s_barrier_wait and the fence waits for LDS.
; TILEWAVE-EMIT: ir_lds_reverse --format asm --backend llvm
; TILEWAVE-EMIT: ir_lds_reverse --format asm --backend hip
; CHECK-LABEL: {{^}}ir_lds_reverse:
; CHECK: ds_store_b32
; CHECK: s_wait_dscnt 0x0
; CHECK: s_barrier_signal -1
; CHECK-NEXT: s_barrier_wait -1
; CHECK: ds_load_b32
; CHECK: global_store_b32
; CHECK: .amdhsa_group_segment_fixed_size 1024
; CHECK: .group_segment_fixed_size: 1024
