// Row sums and row maxima of a rows x cols f32 matrix: one wave per row, 8 rows per 256-thread
// workgroup. Each lane strides over the row (any cols: the loop stops at the real end), then
// the wave combines its 32 partial results: the sum with DPP row moves + permlanex16, the
// maximum with ds_bpermute shuffles (both forms of tw::dsl::lane_reduce).
// The kernel is tw::samples::build_row_reduce (dsl/samples/row_reduce.hpp), also `tilewave emit
// row_reduce`.
#include <dsl/samples/row_reduce.hpp>
#include <tilewave.hpp>

#include <algorithm>
#include <limits>

#include "example_support.hpp"

using tw::samples::build_row_reduce;

int main() {
  return tw::examples::guarded([] {
    namespace ex = tw::examples;
    const tw::ir::Kernel kernel = build_row_reduce();
    const auto code_objects = ex::compile_both(kernel, /*print_ir=*/true);
    const int rows = 13, cols = 100; // neither a multiple of 8 rows nor of 32 columns
    const std::vector<float> x = ex::random_values(std::size_t(rows) * cols, 3);
    std::vector<double> ref_sum(rows, 0.0), ref_max(rows, -1e30);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        ref_sum[r] += x[std::size_t(r) * cols + c];
        ref_max[r] = std::max(ref_max[r], double(x[std::size_t(r) * cols + c]));
      }
    int failures = 0;
    for (const auto& co : code_objects) {
      const auto dx = ex::upload(x);
      const auto ds = ex::upload(std::vector<float>(rows, 0.0f));
      const auto dm = ex::upload(std::vector<float>(rows, 0.0f));
      tw::runtime::KernelArgs args;
      args.ptr(dx).ptr(ds).ptr(dm).add<std::int32_t>(rows).add<std::int32_t>(cols);
      ex::launch(co, {static_cast<std::uint32_t>((rows + 7) / 8)}, {256}, args);
      const auto sums = ex::download<float>(ds, rows), maxima = ex::download<float>(dm, rows);
      double err_sum = 0, err_max = 0;
      for (int r = 0; r < rows; ++r) {
        err_sum = std::max(err_sum, std::abs(sums[r] - ref_sum[r]));
        err_max = std::max(err_max, std::abs(maxima[r] - ref_max[r]));
      }
      const std::string name(tw::emit::backend_name(co.backend));
      // f32 sums of 100 values in [-1, 1): a few ulps of the partial sums.
      failures += ex::check(name + " row sums (DPP)", err_sum, 1e-4);
      failures += ex::check(name + " row maxima (shuffles)", err_max, 0.0);
      for (auto p : {dx, ds, dm})
        ex::device().free(p);
    }
    return failures == 0 ? 0 : 1;
  });
}
