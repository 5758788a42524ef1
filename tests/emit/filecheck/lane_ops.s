; Lane ops: DPP row_xmask butterflies, v_permlanex16_b32 across the two rows of a wave, and
; ds_bpermute_b32 for an arbitrary lane permutation.
; TILEWAVE-EMIT: ir_lane_reduce --format asm --backend llvm
; TILEWAVE-EMIT: ir_lane_reduce --format asm --backend hip
; CHECK-LABEL: {{^}}ir_lane_reduce:
; CHECK-DAG: ds_bpermute_b32
; CHECK-DAG: row_xmask:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
; CHECK-DAG: row_xmask:2 row_mask:0xf bank_mask:0xf bound_ctrl:1
; CHECK-DAG: row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
; CHECK-DAG: row_xmask:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
; CHECK: v_permlanex16_b32
; CHECK: s_endpgm
