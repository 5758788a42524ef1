#pragma once
// Sample DSL kernel (examples/03_row_reduce.cpp, `tilewave emit row_reduce`): row sums and row
// maxima of a rows x cols row-major f32 matrix, one wave per row, 8 rows per 256-thread
// workgroup. Each lane strides over the row (any cols: the loop stops at the real end), then
// the wave combines its 32 partial results: the sum with DPP row moves + permlanex16, the
// maximum with ds_bpermute shuffles (both forms of tw::dsl::lane_reduce).
// Arguments: x, sums, maxima (f32 pointers), rows, cols (i32); launch ceil(rows / 8)
// workgroups of 256 threads.
#include <dsl/dsl.hpp>

#include <limits>

namespace tw::samples {

inline constexpr int row_reduce_rows_per_block = 8; // one wave per row

inline ir::Kernel build_row_reduce() {
  using namespace tw::dsl;
  constexpr int kWaves = row_reduce_rows_per_block;
  KernelBuilder kb("row_reduce", {32 * kWaves, 1, 1});
  auto [x, sums, maxima, rows, cols] =
      kb.args(gptr<f32>("x"), gptr<f32>("sums"), gptr<f32>("maxima"), scalar<i32>("rows"),
              scalar<i32>("cols"));
  const Int32 row = block_id() * kWaves + wave_id();
  if_(row < rows, [&] {
    const GlobalPtr<f32> xr = x.offset(cast<i64>(row) * cast<i64>(cols));
    const Float32 lowest = -std::numeric_limits<float>::infinity();
    auto [s, m] = for_range(lane_id(), cols, Int32(32), carry(Float32(0.0f), lowest),
                            [&](Int32 c, Float32 s, Float32 m) {
                              const Float32 v = xr.load(c);
                              return carry(s + v, max(m, v));
                            });
    const Float32 total = lane_reduce(s, Reduce::sum, 32, Via::dpp);
    const Float32 largest = lane_reduce(m, Reduce::max, 32, Via::shuffle);
    if_(lane_id() == 0, [&] {
      sums.store(row, total);
      maxima.store(row, largest);
    });
  });
  return kb.finish();
}

} // namespace tw::samples
