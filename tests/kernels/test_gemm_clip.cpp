// gemm_clip_edges (kernels/gemm/gemm_kernel.hpp): which operands of a problem take clipped
// buffer copies and whether out takes clipped stores, worked out by hand from
// buffer_clipped_tile's requirements (16-byte aligned runs wholly inside or outside the
// contiguous extent, leading stride >= that extent, a tile's offsets below 2^31 bytes).
#include <kernels/gemm/gemm_kernel.hpp>

#include <doctest/doctest.h>

using namespace tw;
using namespace tw::kernels::gemm_kernel;
using tw::kernels::DType;
using tw::kernels::MatrixOrder;

namespace {
GemmLaunchArgs problem(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldo) {
  GemmLaunchArgs g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = lda;
  g.ldb = ldb;
  g.ldo = ldo;
  return g;
}
GemmKernelSpec aligned(DType a, DType b) {
  GemmKernelSpec s;
  s.a = a;
  s.b = b;
  s.a_vec_aligned = s.b_vec_aligned = true;
  return s;
}
} // namespace

TEST_CASE("gemm_clip_edges: f16, k-contiguous and m/n-contiguous operands") {
  GemmKernelSpec s = aligned(DType::f16, DType::f16);
  gemm_clip_edges(s, problem(72, 136, 40, 40, 40, 136)); // K = 40: runs of 8 whole
  CHECK(s.a_clipped);
  CHECK(s.b_clipped);
  CHECK(s.out_clipped);
  CHECK(s.name().find("_clipab_clipo") != std::string::npos);
  gemm_clip_edges(s, problem(72, 136, 44, 48, 48, 136)); // K = 44: a run straddles K
  CHECK_FALSE(s.a_clipped);
  CHECK_FALSE(s.b_clipped);
  CHECK(s.out_clipped);
  gemm_clip_edges(s, problem(72, 136, 40, 32, 40, 100)); // lda < K, ldo < N: rows overlap
  CHECK_FALSE(s.a_clipped);
  CHECK(s.b_clipped);
  CHECK_FALSE(s.out_clipped);
  s.a_vec_aligned = false; // the launch found a's rows unaligned
  gemm_clip_edges(s, problem(72, 136, 40, 40, 40, 136));
  CHECK_FALSE(s.a_clipped);
  CHECK(s.b_clipped);
  // m/n-contiguous: the contiguous extent is M (a) / N (b), K is the rows.
  GemmKernelSpec t = aligned(DType::f16, DType::f16);
  t.a_order = MatrixOrder::col_major;
  t.b_order = MatrixOrder::row_major;
  gemm_clip_edges(t, problem(24, 36, 44, 24, 36, 36)); // M = 24 whole runs, N = 36 not
  CHECK(t.a_clipped);
  CHECK_FALSE(t.b_clipped);
  // A tile's offsets: 128 rows of 2^23 f16 reach 2^31 bytes.
  const int64_t wide = int64_t{1} << 23;
  gemm_clip_edges(s = aligned(DType::f16, DType::f16), problem(200, 200, 64, wide, 64, 200));
  CHECK_FALSE(s.a_clipped);
  CHECK(s.b_clipped);
}

TEST_CASE("gemm_clip_edges: 1-byte operands, MX, packed int4, quantized activations, split-K") {
  GemmKernelSpec s = aligned(DType::e4m3, DType::e4m3);
  gemm_clip_edges(s, problem(72, 40, 80, 80, 80, 40)); // runs of 16
  CHECK(s.a_clipped);
  CHECK(s.b_clipped);
  gemm_clip_edges(s, problem(72, 40, 72, 80, 80, 40)); // K = 72: a run of 16 straddles
  CHECK_FALSE(s.a_clipped);
  CHECK_FALSE(s.b_clipped);
  // w8a16 keeps its masked copies and stores (VGPRs and the K loop, gemm_clip_support).
  GemmKernelSpec w = aligned(DType::f16, DType::int8);
  gemm_clip_edges(w, problem(10, 40, 48, 48, 48, 40));
  CHECK_FALSE(w.a_clipped);
  CHECK_FALSE(w.b_clipped);
  CHECK_FALSE(w.out_clipped);
  // MX, activation quantization and packed int4 clip like the others (their scratch, issue 14).
  GemmKernelSpec mx = aligned(DType::e4m3, DType::e4m3);
  mx.mx_block_scales = true;
  gemm_clip_edges(mx, problem(72, 40, 128, 128, 128, 40));
  CHECK(mx.a_clipped);
  CHECK(mx.b_clipped);
  CHECK(mx.out_clipped);
  // Packed int4: K counts nibbles, lda / ldb bytes: K = 128 is 64-byte rows, whole runs of 16.
  GemmKernelSpec iu4 = aligned(DType::int4, DType::int4);
  gemm_clip_edges(iu4, problem(72, 40, 128, 64, 64, 40));
  CHECK(iu4.a_clipped);
  CHECK(iu4.b_clipped);
  // K = 100 nibbles: 50-byte rows, a run of 16 straddles.
  gemm_clip_edges(iu4, problem(72, 40, 100, 64, 64, 40));
  CHECK_FALSE(iu4.a_clipped);
  CHECK_FALSE(iu4.b_clipped);
  // Activation quantization: a is x in global memory (bf16 here), so its runs are 8 elements:
  // K = 72 is 144-byte rows of x (whole runs) but 72-byte rows of the int8 b (a run straddles).
  GemmKernelSpec q = aligned(DType::e4m3, DType::e4m3);
  q.act_quant = ActQuant::dynamic_rowwise;
  q.x = DType::bf16;
  gemm_clip_edges(q, problem(72, 40, 72, 72, 80, 40));
  CHECK(q.a_clipped);
  CHECK_FALSE(q.b_clipped);
  CHECK(q.out_clipped);
  // Split-K: the partial pass stores the workspace (no out), the reduce pass copies no operand.
  GemmKernelSpec part = gemm_partial_pass(aligned(DType::f16, DType::f16));
  gemm_clip_edges(part, problem(64, 64, 64, 64, 64, 64));
  CHECK(part.a_clipped);
  CHECK_FALSE(part.out_clipped);
  GemmKernelSpec red = gemm_reduce_pass(aligned(DType::f16, DType::f16));
  gemm_clip_edges(red, problem(64, 64, 64, 64, 64, 64));
  CHECK_FALSE(red.a_clipped);
  CHECK(red.out_clipped);
}

TEST_CASE("gemm kernel: clipped flags the kernel cannot honour are refused with a sentence") {
  GemmKernelSpec s = aligned(DType::f16, DType::f16);
  s.a_vec_aligned = false;
  s.a_clipped = true;
  CHECK_THROWS_WITH_AS(build_gemm_kernel(s),
                       doctest::Contains("a_clipped / b_clipped need the operand's 16-byte"),
                       std::invalid_argument);
}

TEST_CASE("gemm_clip_edges: k_whole for K a multiple of the K tile and a clipped k-contiguous "
          "operand") {
  GemmKernelSpec s = aligned(DType::f16, DType::f16); // K tile 32
  gemm_clip_edges(s, problem(72, 136, 4096, 4096, 4096, 136));
  CHECK(s.k_whole);
  CHECK(s.name().find("_clipab_kw_clipo") != std::string::npos);
  gemm_clip_edges(s, problem(72, 136, 96, 96, 96, 136)); // 3 K tiles
  CHECK(s.k_whole);
  gemm_clip_edges(s, problem(72, 136, 40, 40, 40, 136)); // clipped, K edge of 8
  CHECK(s.a_clipped);
  CHECK_FALSE(s.k_whole);
  CHECK(s.name().find("_kw") == std::string::npos);
  gemm_clip_edges(s, problem(72, 136, 64, 32, 32, 136)); // lda, ldb < K: nothing clipped
  CHECK_FALSE(s.k_whole);
  // Only an m/n-contiguous operand clipped: its K tiles move along rows (num_records), no flag.
  GemmKernelSpec t = aligned(DType::f16, DType::f16);
  t.a_order = MatrixOrder::col_major;
  t.b_order = MatrixOrder::row_major;
  gemm_clip_edges(t, problem(24, 40, 64, 24, 40, 40));
  CHECK(t.a_clipped);
  CHECK_FALSE(t.k_whole);
  t.b_vec_aligned = false; // a m-contiguous, b k-contiguous but masked: still no flag
  t.b_order = MatrixOrder::col_major;
  gemm_clip_edges(t, problem(24, 40, 64, 24, 64, 40));
  CHECK_FALSE(t.k_whole);
  t.b_vec_aligned = true; // b k-contiguous and clipped
  gemm_clip_edges(t, problem(24, 40, 64, 24, 64, 40));
  CHECK(t.k_whole);
  // 8-bit operands: K tile 64.
  GemmKernelSpec e = aligned(DType::e4m3, DType::e4m3);
  gemm_clip_edges(e, problem(72, 40, 128, 128, 128, 40));
  CHECK(e.k_whole);
  gemm_clip_edges(e, problem(72, 40, 96, 96, 96, 40)); // a multiple of 32, not of 64
  CHECK(e.a_clipped);
  CHECK_FALSE(e.k_whole);
  // MX clips its operands as well; w8a16 and the reduce pass clip none: no flag.
  GemmKernelSpec mx = aligned(DType::e4m3, DType::e4m3);
  mx.mx_block_scales = true;
  gemm_clip_edges(mx, problem(72, 40, 128, 128, 128, 40));
  CHECK(mx.k_whole);
  GemmKernelSpec w = aligned(DType::f16, DType::int8);
  gemm_clip_edges(w, problem(72, 40, 128, 128, 128, 40));
  CHECK_FALSE(w.k_whole);
  GemmKernelSpec red = gemm_reduce_pass(aligned(DType::f16, DType::f16));
  gemm_clip_edges(red, problem(64, 64, 64, 64, 64, 64));
  CHECK_FALSE(red.k_whole);
  GemmKernelSpec part = gemm_partial_pass(aligned(DType::f16, DType::f16));
  gemm_clip_edges(part, problem(64, 64, 64, 64, 64, 64));
  CHECK(part.k_whole);
  // Packed int4 (K tile 64 bytes = 128 nibbles): K even as well. K = 127 nibbles is 64-byte
  // rows (clipped, one whole K tile) whose last high nibble lies past K: no flag, the commit
  // clears that nibble.
  GemmKernelSpec iu4 = aligned(DType::int4, DType::int4);
  gemm_clip_edges(iu4, problem(72, 40, 128, 64, 64, 40));
  CHECK(iu4.k_whole);
  gemm_clip_edges(iu4, problem(72, 40, 127, 64, 64, 40));
  CHECK(iu4.a_clipped);
  CHECK(iu4.b_clipped);
  CHECK_FALSE(iu4.k_whole);
}

TEST_CASE("gemm kernel: k_whole without a clipped k-contiguous operand is refused") {
  GemmKernelSpec s = aligned(DType::f16, DType::f16);
  s.k_whole = true; // nothing clipped
  CHECK_THROWS_WITH_AS(build_gemm_kernel(s),
                       doctest::Contains("k_whole needs a clipped k-contiguous operand"),
                       std::invalid_argument);
  s.a_order = MatrixOrder::col_major;
  s.b_order = MatrixOrder::row_major;
  s.a_clipped = s.b_clipped = true; // clipped, but both m/n-contiguous
  CHECK_THROWS_WITH_AS(build_gemm_kernel(s),
                       doctest::Contains("k_whole needs a clipped k-contiguous operand"),
                       std::invalid_argument);
}
