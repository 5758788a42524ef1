#pragma once
// The grouped mode's block of the GEMM composition: which problem of the launch's table a
// workgroup computes, and that problem's addresses, sizes and leading strides. The table is
// GemmGroupRow[rows] (kernels/gemm/gemm_kernel.hpp); its tile_begin increase from 0, so the
// workgroup's problem (the last row whose tile_begin <= its id) is found by binary search in
// ceil(log2(rows)) reads.
#include <dsl/dsl.hpp>

namespace tw::kernels::gemm_kernel {

struct GroupedProblem {
  dsl::Int64 a, b, out, bias, scale_a, scale_b; // addresses
  dsl::Int64 m, n, k, lda, ldb, ldo;
  dsl::Int32 tile_m, tile_n; // the workgroup's output tile in the problem
};

// `workgroup`: the id along x of a grid of every problem's tiles; `tile_cols`: the block
// tile's columns (tiles per problem row = ceil(n / tile_cols)).
GroupedProblem grouped_problem(const dsl::GlobalPtr<dsl::i64>& table, const dsl::Int64& rows,
                               const dsl::Int64& search_steps, const dsl::Int32& workgroup,
                               int tile_cols);

} // namespace tw::kernels::gemm_kernel
