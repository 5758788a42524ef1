; Bounded buffer resource (num_records = n * 4): buffer loads whose out-of-range lanes read 0.
; TILEWAVE-EMIT: ir_buffer_copy --param width=4 --format asm --backend llvm
; TILEWAVE-EMIT: ir_buffer_copy --param width=4 --format asm --backend hip
; CHECK-LABEL: {{^}}ir_buffer_copy_w4:
; CHECK: s_mov_b32 s{{[0-9]+}}, 0x31027000
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK: global_store_b128
