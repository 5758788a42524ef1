#pragma once
// The row skeleton: every row kernel (RMSNorm, LayerNorm, AdaLN, int8 rowwise quantization,
// RMSNorm + RoPE, ...) is one workgroup per row that loads the row into registers once,
// reduces over it (block_reduce through LDS), then makes a second pass over the registers and
// writes the row once. The operation is the block passed to row_kernel.
//
// Thread t of a `threads`-thread workgroup holds `runs` runs of `vec` consecutive elements:
// run k covers columns (k * threads + t) * vec .. + vec (128-bit accesses where the rows are
// 16-byte aligned, a masked tail at the end of the row, masked-off runs past it). The host
// picks vec from the alignment and runs = ceil(width / (threads * vec)) (row_plan below), so
// the whole row is in registers; the values of elements past the row are 0 and the reductions
// skip them.
#include <kernels/elementwise/typed_access.hpp>

#include <functional>

namespace tw::kernels::elementwise {

struct RowPlan {
  int threads = 256; // workgroup size
  int vec = 1;       // elements per run (1, 2, 4, 8, 16)
  int runs = 1;      // runs per thread
};

// At most this many f32 values of one row tensor per thread (a plan past it is rejected).
inline constexpr int row_register_budget = 64;

// The plan for rows of `width` elements; throws ArgumentError when
// the row does not fit in registers (width > threads * row_register_budget).
RowPlan row_plan(const std::string& op, int64_t width, int threads, int vec);

// This thread's share of one row.
class RowSlice {
public:
  RowSlice(RowPlan plan, dsl::Int64 width, dsl::LdsTile<dsl::f32, 1, 32> scratch);

  const RowPlan& plan() const { return plan_; }
  const dsl::Int64& width() const { return width_; }
  // The column of element j of run k, and whether it is inside the row.
  dsl::Int64 col(int k, int j) const;
  dsl::Bool valid(int k, int j) const;

  // The row starting at `row_base` (element 0 of the row): runs[k][j] (0 past the row). With
  // per_col = 2 a column is a pair of adjacent elements: runs[k] holds 2 * vec elements.
  std::vector<Values> load(const AnyPtr& row_base, int per_col = 1) const;
  // Writes the valid elements of `v` (same shape as load's result).
  void store(const AnyPtr& row_base, const std::vector<Values>& v, int per_col = 1) const;

  // Block-wide sum / max of fn(k, j) over the valid elements (every thread gets the result).
  dsl::Float32 sum(const std::function<dsl::Float32(int k, int j)>& fn) const;
  dsl::Float32 max(const std::function<dsl::Float32(int k, int j)>& fn) const;
  // The same in two steps, for a row held as several slices (one block reduction for all):
  // this thread's partial sum / max, then the block-wide combination of partials.
  dsl::Float32 local_sum(const std::function<dsl::Float32(int k, int j)>& fn) const;
  dsl::Float32 local_max(const std::function<dsl::Float32(int k, int j)>& fn) const;
  dsl::Float32 reduce(const dsl::Float32& partial, dsl::Reduce op) const;
  // Another share of the same row (e.g. the head's RoPE tail next to its other columns): `width`
  // elements under `plan` (same threads), with this slice's reduction scratch.
  RowSlice part(RowPlan plan, const dsl::Int64& width) const;
  // v'[k][j] = fn(k, j) for every element held (valid or not).
  std::vector<Values> map(const std::function<dsl::Float32(int k, int j)>& fn) const;

private:
  RowPlan plan_;
  dsl::Int64 width_;
  dsl::Int64 first_; // column of element 0 of run 0
  dsl::LdsTile<dsl::f32, 1, 32> scratch_;
};

// The body of a row kernel: called once, for the workgroup's row `row` (0 .. rows - 1).
using RowBody = std::function<void(const RowSlice& slice, const dsl::Int64& row)>;

// Traces the row loop into the current KernelBuilder (one workgroup per row; the kernel's
// workgroup size must be plan.threads; its LDS holds the reduction scratch).
void row_kernel(dsl::KernelBuilder& kb, RowPlan plan, const dsl::Int64& width, const RowBody& body);

} // namespace tw::kernels::elementwise
