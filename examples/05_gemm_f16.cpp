// C = A * B with f16 inputs and f32 accumulation, written only with the DSL.
//  - one 128-thread workgroup (4 waves as 2 x 2) computes a 128 x 128 tile of C; each wave
//    issues 4 x 4 v_wmma_f32_16x16x16_f16 per k step (tw::atoms::wmma_f32_16x16x16_f16);
//  - K advances 32 at a time through LDS double buffering (pipeline<2>): the global loads of
//    the next K tile (128-bit, tw::atoms::global_load_b128) are in flight while the WMMAs run;
//  - A is M x K row-major, B is K x N column-major (both with k contiguous), C is M x N
//    row-major; any M, N, K: lanes past the real shape read 0 and never write.
//  - `row_align` is the host's promise about the byte alignment of every row of A and column
//    of B: 16 (K a multiple of 8, 16-byte aligned buffers) lets the copies use 128-bit loads;
//    2 works for any K (the example runs both: K = 72 and K = 70).
// The kernel is tw::samples::build_gemm_f16 (dsl/samples/gemm_f16.hpp), also `tilewave emit
// gemm_f16`.
#include <dsl/samples/gemm_f16.hpp>
#include <tilewave.hpp>

#include "example_support.hpp"

using tw::samples::build_gemm_f16;
using GemmConfig = tw::samples::GemmF16Config;

// Runs the kernel built for `row_align` on an M x N x K product; returns the failures.
int run_gemm(int row_align, std::int64_t M, std::int64_t N, std::int64_t K) {
  namespace ex = tw::examples;
  std::printf("--- row alignment %d bytes, M = %lld, N = %lld, K = %lld\n", row_align,
              static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K));
  const auto code_objects = ex::compile_both(build_gemm_f16(row_align), /*print_ir=*/false);
  std::vector<std::uint16_t> a(M * K), b(K * N);
  const auto ra = ex::random_values(a.size(), 6), rb = ex::random_values(b.size(), 7);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = tw::num::f32_to_f16(ra[i]); // a[m * K + k]
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = tw::num::f32_to_f16(rb[i]); // b[n * K + k]
  std::vector<double> ref(M * N, 0.0);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k)
        ref[m * N + n] +=
            double(tw::num::f16_to_f32(a[m * K + k])) * tw::num::f16_to_f32(b[n * K + k]);
  const auto blocks = [](std::int64_t x, int t) {
    return static_cast<std::uint32_t>((x + t - 1) / t);
  };
  int failures = 0;
  for (const auto& co : code_objects) {
    const auto da = ex::upload(a), db = ex::upload(b);
    const auto dc = ex::upload(std::vector<float>(M * N, 0.0f));
    tw::runtime::KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).add<std::int64_t>(M).add<std::int64_t>(N).add<std::int64_t>(K);
    ex::launch(co, {blocks(M, GemmConfig::bm), blocks(N, GemmConfig::bn)},
               {static_cast<std::uint32_t>(GemmConfig::mma.threads)}, args);
    const auto c = ex::download<float>(dc, M * N);
    double err = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
      err = std::max(err, std::abs(c[i] - ref[i]));
    // f32 accumulation of K products of magnitude < 1.
    failures += ex::check(std::string(tw::emit::backend_name(co.backend)) + " GEMM", err, 1e-4);
    for (auto p : {da, db, dc})
      ex::device().free(p);
  }
  return failures;
}

int main() {
  return tw::examples::guarded([] {
    // Ragged in every direction: 2 x 2 workgroups, the last ones partly past M and N; K = 72
    // is 2 full K tiles + 8 (the rest of the third tile reads zeros); K = 70 also ends inside
    // a 128-bit run (the edge runs are loaded element by element).
    const int failures = run_gemm(16, 200, 136, 72) + run_gemm(2, 200, 136, 70);
    return failures == 0 ? 0 : 1;
  });
}
