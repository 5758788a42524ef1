; 2:4 sparse SWMMAC; index_key 1 selects the high 16 bits of the index VGPR (the backends
; fold the shift into the modifier).
; TILEWAVE-EMIT: ir_swmmac_tile --param index_key=1 --format asm --backend llvm
; TILEWAVE-EMIT: ir_swmmac_tile --param index_key=1 --format asm --backend hip
; CHECK-LABEL: {{^}}ir_swmmac_tile:
; CHECK-NOT: v_lshrrev_b32{{.*}}16,
; CHECK: v_swmmac_f32_16x16x32_f16 v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}} index_key:1
