; The GEMM family's barriers (kernels/gemm: dsl::pipeline's lds_barrier, the fused kernels' scale
; exchange, the LoRA and MX K loops) fence LDS only: no global_inv (L0 invalidate) anywhere in
; the kernel, K loop included, on each backend and arch.
; TILEWAVE-EMIT: gemm --format asm --backend llvm
; TILEWAVE-EMIT: gemm --format asm --backend hip
; TILEWAVE-EMIT: gemm --param a=e4m3 --param b=e4m3 --param out=bf16 --param quant=dynamic --param x=bf16 --param scale_out=1 --param lora=1 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param a=e4m3 --param b=e4m3 --param out=bf16 --param quant=dynamic --param x=bf16 --param scale_out=1 --param lora=1 --format asm --backend hip
; TILEWAVE-EMIT: gemm --param a=e4m3 --param b=e4m3 --param out=bf16 --param mx=1 --format asm --backend llvm
; TILEWAVE-EMIT: gemm --param a=int4 --param b=int4 --param out=i32 --format asm --backend hip
; CHECK-LABEL: {{^}}tw_gemm_{{[a-z0-9_]+}}:
; CHECK-NOT: global_inv
; CHECK: {{(in Loop: Header=BB0_[0-9]+|=>This Inner Loop Header:)}} Depth=1
; CHECK-NOT: global_inv
; CHECK: s_barrier_signal -1
; CHECK-NOT: global_inv
; CHECK: s_endpgm
