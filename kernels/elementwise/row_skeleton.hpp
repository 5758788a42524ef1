#pragma once
// The row skeleton: every row kernel (RMSNorm, LayerNorm, AdaLN, int8 rowwise quantization,
// RMSNorm + RoPE, ...) is one workgroup per row that loads the row into registers once,
// reduces over it (block_reduce through LDS), then makes a second pass over the registers and
// writes the row once. The operation is the block passed to row_kernel. Rows that share a
// tensor (a [width] weight) use strided_row_kernel instead: a machine-sized grid whose
// workgroups loop over the rows and load the shared tensor once, before the loop.
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
  // Segmented plans (segmented_row_plan): the row is cut into segments of
  // lanes * segment_runs * vec columns; segment s of pass p (runs p * segment_runs ..) is held
  // by the `lanes` consecutive threads (s mod threads / lanes) * lanes .. Lane l of a segment
  // holds its runs r at columns (r * lanes + l) * vec. The plain plan is one segment of
  // `threads` lanes per pass (lanes 0 stands for that).
  int lanes = 0;
  int segment_runs = 1;
  // Short rows (packed_row_plan): a workgroup holds rows_per_group rows, row i of the group in
  // threads i * row_threads() .. + row_threads() (a power of two up to one wave), which reduce
  // with lane operations.
  int rows_per_group = 1;

  int row_threads() const { return threads / rows_per_group; }
  bool segmented() const { return lanes != 0; }
  int segment_lanes() const { return segmented() ? lanes : threads; }
  int segments_per_pass() const { return threads / segment_lanes(); }
  int passes() const { return runs / segment_runs; }
  int64_t segment_columns() const { return int64_t(segment_lanes()) * segment_runs * vec; }
};

// At most this many f32 values of one row tensor per thread (a plan past it is rejected).
inline constexpr int row_register_budget = 64;

// The plan for rows of `width` columns of `per_col` elements; throws ArgumentError when the
// row does not fit in registers (width * per_col > threads * row_register_budget).
RowPlan row_plan(const std::string& op, int64_t width, int threads, int vec, int per_col = 1);

// A plan whose segments are groups of `segment` columns (a power of two): each group is held by
// at most one wave (lanes = min(32, segment / vec), so a group reduces with lane operations,
// no LDS) and runs = passes * segment_runs hold the whole row. `per_col` elements per column
// count against the register budget. Throws ArgumentError naming `arg` when the row does not
// fit.
RowPlan segmented_row_plan(const std::string& op, int64_t width, int threads, int vec,
                           int64_t segment, int per_col = 1);

// The plan for short rows: when a row needs at most one wave of `vec`-column runs, the
// workgroup takes several rows (row_threads = the next power of two of ceil(width / vec)
// threads each), so no lane idles for want of columns; otherwise row_plan.
RowPlan packed_row_plan(const std::string& op, int64_t width, int threads, int vec,
                        int per_col = 1);

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
  // The same with the elements at and past `end` (an element index, <= width * per_col) read
  // as 0: a row whose last column is partial (packed pairs of an odd-length row) or that is
  // zero-filled up to a wider width.
  std::vector<Values> load(const AnyPtr& row_base, int per_col, const dsl::Int64& end) const;
  // A tensor every row of the workgroup shares (a [width] weight): as load, but in a plan of
  // several rows per workgroup only the first row slot of each wave reads it and the wave's
  // other slots take it from those lanes (shuffle), so it is read once per wave, not per slot.
  std::vector<Values> load_shared(const AnyPtr& base, int per_col = 1) const;
  // Writes the valid elements of `v` (same shape as load's result).
  void store(const AnyPtr& row_base, const std::vector<Values>& v, int per_col = 1) const;

  // Block-wide sum / max of fn(k, j) over the valid elements (every thread gets the result).
  dsl::Float32 sum(const std::function<dsl::Float32(int k, int j)>& fn) const;
  dsl::Float32 max(const std::function<dsl::Float32(int k, int j)>& fn) const;
  // Segmented plans: the segment (group) index this thread holds in `pass`, its lane in it, and
  // the sum / max / min of fn(k, j) over the valid elements of that segment (every lane of
  // the segment gets it; runs k of the pass only).
  dsl::Int64 segment(int pass) const;
  dsl::Int32 segment_lane() const;
  dsl::Float32 segment_reduce(int pass, dsl::Reduce op,
                              const std::function<dsl::Float32(int k, int j)>& fn) const;
  // sum / max in two steps, for a row held as several slices (one reduction for all): this
  // thread's partial sum / max, then the combination of partials over the row's threads.
  dsl::Float32 local_sum(const std::function<dsl::Float32(int k, int j)>& fn) const;
  dsl::Float32 local_max(const std::function<dsl::Float32(int k, int j)>& fn) const;
  dsl::Float32 reduce(const dsl::Float32& partial, dsl::Reduce op) const;
  // Another share of the same row (e.g. the head's RoPE tail next to its other columns): `width`
  // elements under `plan` (same threads and rows per workgroup), with this slice's reduction
  // scratch.
  RowSlice part(RowPlan plan, const dsl::Int64& width) const;

  // v'[k][j] = fn(k, j) for every element held (valid or not).
  std::vector<Values> map(const std::function<dsl::Float32(int k, int j)>& fn) const;

private:
  RowPlan plan_;
  dsl::Int64 width_;
  dsl::Int64 first_; // column of element 0 of run 0 (plain plans)
  dsl::LdsTile<dsl::f32, 1, 32> scratch_;
};

// The body of a row kernel: called once, for the workgroup's row `row` (0 .. rows - 1).
using RowBody = std::function<void(const RowSlice& slice, const dsl::Int64& row)>;

// Traces the row loop into the current KernelBuilder (one workgroup per row; the kernel's
// workgroup size must be plan.threads; its LDS holds the reduction scratch).
void row_kernel(dsl::KernelBuilder& kb, RowPlan plan, const dsl::Int64& width, const RowBody& body);
// The same for plans with several rows per workgroup: the body runs for rows < `rows` only.
void row_kernel(dsl::KernelBuilder& kb, RowPlan plan, const dsl::Int64& width,
                const dsl::Int64& rows, const RowBody& body);
// Workgroups of a row kernel over `rows` rows.
int64_t row_groups(const RowPlan& plan, int64_t rows);

// The strided row loop, for kernels whose rows share a tensor (a [width] weight and bias, a
// [head_dim] weight): workgroup g of `groups` (the grid, strided_row_groups) takes the plan's row
// groups g, g + groups, g + 2 * groups, ..., so the shared tensor is read once per workgroup
// instead of once per row. `setup` runs once per workgroup, before the loop (it loads what the
// rows share and keeps it in registers), and returns the body every row of the workgroup runs
// (rows < `rows` only).
using RowSetup = std::function<RowBody(const RowSlice& slice)>;
void strided_row_kernel(dsl::KernelBuilder& kb, RowPlan plan, const dsl::Int64& width,
                        const dsl::Int64& rows, const dsl::Int64& groups, const RowSetup& setup);
// The grid of a strided row kernel: one workgroup per row group up to what the machine keeps
// resident (resident_workgroups in launch.hpp), so each shared byte is read `grid` times.
int64_t strided_row_groups(const RowPlan& plan, int64_t rows);

} // namespace tw::kernels::elementwise
