// The iu4_gemm launch on the GEMM composition (the other launches are in launch_gemm.cpp):
// packed int4 / uint4 operands, K-contiguous, i32 output. The kernel reads the operands as
// bytes, so the leading strides go in bytes; K stays in nibbles (an odd K masks the last
// byte's high nibble in the kernel, no host padding).
#include <kernels/gemm/gemm_kernel.hpp>
#include <kernels/gemm/gemm_launch.hpp>

namespace tw::kernels::gemm_launch {

void launch(runtime::Device& device, const Iu4GemmArgs& args, const GemmProblem& p) {
  using namespace gemm_kernel;
  GemmKernelSpec s;
  GemmLaunchArgs g;
  s.a = p.a_dtype;
  s.b = p.b_dtype;
  s.out = DType::i32;
  // a [M, K] row-major: strides[0]; b [K, N] column-major: strides[1] (nibbles, even).
  const int64_t lda_bytes = dtype_storage_bytes(s.a, args.a.strides[0]);
  const int64_t ldb_bytes = dtype_storage_bytes(s.b, args.b.strides[1]);
  s.a_vec_aligned = args.a.device_address % 16 == 0 && lda_bytes % 16 == 0;
  s.b_vec_aligned = args.b.device_address % 16 == 0 && ldb_bytes % 16 == 0;
  g.a = args.a.device_address;
  g.b = args.b.device_address;
  g.out = args.out.device_address;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.lda = lda_bytes;
  g.ldb = ldb_bytes;
  g.ldo = args.out.strides[0];
  run_gemm_kernel(device, s, g);
}

} // namespace tw::kernels::gemm_launch
