; The f16 GEMM's K loop (kernels/gemm, 128-bit aligned operands with clipped edges: the
; registry's defaults), each backend and arch: the loop is one basic block with no 64-bit VALU
; address arithmetic (v_add_co / v_add_co_ci); it reads A and B with 8 raw buffer loads from two
; SGPR descriptors at 32-bit VGPR offsets (dsl/copy/buffer_clipped_tile.hpp; each descriptor's
; base moves with scalar adds), the edge tiles' loads included: no global load anywhere in the
; kernel (before the edges were clipped, edge tiles took a masked path with 64-bit per-lane
; addresses).
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_f16_f16_f32_{{[a-z0-9_]+}}:
; CHECK-NOT: global_load
; CHECK: =>This Inner Loop Header: Depth=1
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: buffer_load_b128 v[{{[0-9]+:[0-9]+}}], v{{[0-9]+}}, s[{{[0-9]+:[0-9]+}}], null offen
; CHECK-NOT: v_add_co
; CHECK: s_cbranch_scc{{[01]}} .LBB0_{{[0-9]+}}
; CHECK-NOT: global_load
; CHECK: s_endpgm
