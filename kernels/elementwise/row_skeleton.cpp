// The row skeleton (see row_skeleton.hpp).
#include <kernels/elementwise/row_skeleton.hpp>

#include <dsl/ops/block_reduce.hpp>
#include <dsl/ops/reduce.hpp>
#include <kernels/common/arg_check.hpp>
#include <kernels/elementwise/launch.hpp>

#include <bit>
#include <limits>
#include <stdexcept>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

RowPlan row_plan(const std::string& op, int64_t width, int threads, int vec, int per_col) {
  RowPlan p;
  p.threads = threads;
  p.vec = vec;
  const int64_t per_pass = int64_t(threads) * vec;
  p.runs = static_cast<int>(std::max<int64_t>(1, (width + per_pass - 1) / per_pass));
  if (int64_t(p.runs) * vec * per_col > row_register_budget)
    throw ArgumentError(op + ": argument 'x' has rows of " + std::to_string(width * per_col) +
                        " elements; expected at most " +
                        std::to_string(int64_t(threads) * row_register_budget) +
                        " (each row is held in the registers of one workgroup of " +
                        std::to_string(threads) + " threads; pass a larger block_size)");
  return p;
}

RowPlan segmented_row_plan(const std::string& op, int64_t width, int threads, int vec,
                           int64_t segment, int per_col) {
  if (segment < 1 || (segment & (segment - 1)) != 0)
    throw std::logic_error("segmented_row_plan: segment " + std::to_string(segment) +
                           " is not a power of two");
  RowPlan p;
  p.threads = threads;
  p.vec = static_cast<int>(std::min<int64_t>(vec, segment));
  p.lanes = static_cast<int>(std::min<int64_t>(32, segment / p.vec));
  p.segment_runs = static_cast<int>(segment / (int64_t(p.lanes) * p.vec));
  const int64_t segments = (width + segment - 1) / segment;
  const int64_t per_pass = p.segments_per_pass();
  const int64_t passes = std::max<int64_t>(1, (segments + per_pass - 1) / per_pass);
  const int64_t per_thread = int64_t(p.segment_runs) * p.vec * per_col; // elements per pass
  if (passes * per_thread > row_register_budget)
    throw ArgumentError(
        op + ": argument 'x' has rows of " + std::to_string(width * per_col) +
        " elements; expected at most " +
        std::to_string(row_register_budget / per_thread * per_pass * segment * per_col) +
        " (each row is held in the registers of one workgroup of " + std::to_string(threads) +
        " threads; pass a larger block_size)");
  p.runs = static_cast<int>(passes) * p.segment_runs;
  return p;
}

RowPlan packed_row_plan(const std::string& op, int64_t width, int threads, int vec, int per_col) {
  const int64_t runs = std::max<int64_t>(1, (width + vec - 1) / vec);
  if (runs > 32 || vec * per_col > row_register_budget)
    return row_plan(op, width, threads, vec, per_col);
  RowPlan p;
  p.threads = threads;
  p.vec = vec;
  p.rows_per_group = threads / static_cast<int>(std::bit_ceil(uint64_t(runs)));
  return p;
}

int64_t row_groups(const RowPlan& plan, int64_t rows) {
  return (rows + plan.rows_per_group - 1) / plan.rows_per_group;
}

int64_t strided_row_groups(const RowPlan& plan, int64_t rows) {
  return std::min(row_groups(plan, rows), resident_workgroups(plan.threads));
}

RowSlice::RowSlice(RowPlan plan, Int64 width, LdsTile<f32, 1, 32> scratch)
    : plan_(plan), width_(width),
      first_(cast<i64>(plan.rows_per_group > 1 ? thread_id() % plan.row_threads() : thread_id()) *
             Int64(plan.vec)),
      scratch_(scratch) {}

Float32 RowSlice::reduce(const Float32& v, Reduce op) const {
  if (plan_.rows_per_group == 1)
    return block_reduce(v, op, scratch_);
  return plan_.row_threads() > 1 ? lane_reduce(v, op, plan_.row_threads()) : v;
}

Int64 RowSlice::col(int k, int j) const {
  if (!plan_.segmented())
    return first_ + Int64(int64_t(k) * plan_.row_threads() * plan_.vec + j);
  const int pass = k / plan_.segment_runs, r = k % plan_.segment_runs;
  return segment(pass) * Int64(plan_.segment_columns()) +
         cast<i64>(segment_lane()) * Int64(plan_.vec) +
         Int64(int64_t(r) * plan_.lanes * plan_.vec + j);
}

Int64 RowSlice::segment(int pass) const {
  const int lanes = plan_.segment_lanes();
  return Int64(int64_t(pass) * plan_.segments_per_pass()) + cast<i64>(thread_id() / lanes);
}

Int32 RowSlice::segment_lane() const {
  return Int32(thread_id() % plan_.segment_lanes());
}

Float32 RowSlice::segment_reduce(int pass, Reduce op,
                                 const std::function<Float32(int, int)>& fn) const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const Float32 identity(op == Reduce::sum ? 0.0 : op == Reduce::max ? -inf : inf);
  Float32 acc = identity;
  for (int k = pass * plan_.segment_runs; k < (pass + 1) * plan_.segment_runs; ++k)
    for (int j = 0; j < plan_.vec; ++j) {
      const Float32 v = select(valid(k, j), fn(k, j), identity);
      acc = op == Reduce::sum ? acc + v : op == Reduce::max ? ops::max(acc, v) : ops::min(acc, v);
    }
  if (!plan_.segmented())
    return block_reduce(acc, op, scratch_);
  return plan_.lanes > 1 ? lane_reduce(acc, op, plan_.lanes) : acc;
}

Bool RowSlice::valid(int k, int j) const {
  return col(k, j) < width_;
}

std::vector<Values> RowSlice::load(const AnyPtr& row_base, int per_col) const {
  return load(row_base, per_col, width_ * Int64(per_col));
}

std::vector<Values> RowSlice::load(const AnyPtr& row_base, int per_col, const Int64& end) const {
  std::vector<Values> v;
  const Int64 pc(per_col);
  for (int k = 0; k < plan_.runs; ++k)
    v.push_back(load_run_or_tail(row_base, col(k, 0) * pc, plan_.vec * per_col, end));
  return v;
}

std::vector<Values> RowSlice::load_shared(const AnyPtr& base, int per_col) const {
  const int slot_lanes = plan_.row_threads();
  if (plan_.rows_per_group == 1 || slot_lanes >= 32)
    return load(base, per_col);
  // Lane l of a wave holds the columns of lane l % slot_lanes of its first slot.
  const Int32 lane = lane_id();
  const Int64 end = select(lane < Int32(slot_lanes), width_ * Int64(per_col), Int64(0));
  std::vector<Values> v = load(base, per_col, end);
  const Int32 src = lane % Int32(slot_lanes);
  for (Values& run : v)
    for (Float32& x : run)
      x = shuffle(x, src);
  return v;
}

void RowSlice::store(const AnyPtr& row_base, const std::vector<Values>& v, int per_col) const {
  const Int64 pc(per_col);
  for (int k = 0; k < plan_.runs; ++k)
    store_run_or_tail(row_base, col(k, 0) * pc, v[static_cast<std::size_t>(k)], width_ * pc);
}

Float32 RowSlice::local_sum(const std::function<Float32(int, int)>& fn) const {
  Float32 acc(0.0);
  for (int k = 0; k < plan_.runs; ++k)
    for (int j = 0; j < plan_.vec; ++j)
      acc = acc + select(valid(k, j), fn(k, j), Float32(0.0));
  return acc;
}

Float32 RowSlice::local_max(const std::function<Float32(int, int)>& fn) const {
  Float32 acc(-std::numeric_limits<double>::infinity());
  for (int k = 0; k < plan_.runs; ++k)
    for (int j = 0; j < plan_.vec; ++j)
      acc = ops::max(
          acc, select(valid(k, j), fn(k, j), Float32(-std::numeric_limits<double>::infinity())));
  return acc;
}

Float32 RowSlice::sum(const std::function<Float32(int, int)>& fn) const {
  return reduce(local_sum(fn), Reduce::sum);
}

Float32 RowSlice::max(const std::function<Float32(int, int)>& fn) const {
  return reduce(local_max(fn), Reduce::max);
}

RowSlice RowSlice::part(RowPlan plan, const Int64& width) const {
  if (plan.threads != plan_.threads || plan.rows_per_group != plan_.rows_per_group)
    throw std::logic_error("RowSlice::part: the plan has " + std::to_string(plan.threads) +
                           " threads and " + std::to_string(plan.rows_per_group) +
                           " rows per workgroup, the slice " + std::to_string(plan_.threads) +
                           " and " + std::to_string(plan_.rows_per_group));
  return RowSlice(plan, width, scratch_);
}

std::vector<Values> RowSlice::map(const std::function<Float32(int, int)>& fn) const {
  std::vector<Values> out(static_cast<std::size_t>(plan_.runs));
  for (int k = 0; k < plan_.runs; ++k)
    for (int j = 0; j < plan_.vec; ++j)
      out[static_cast<std::size_t>(k)].push_back(fn(k, j));
  return out;
}

namespace {

// The workgroup's reduction scratch and its slice of the rows (checks the workgroup size).
RowSlice workgroup_slice(KernelBuilder& kb, const RowPlan& plan, const Int64& width) {
  if (kb.threads() != plan.threads)
    throw std::logic_error("row_kernel: the workgroup has " + std::to_string(kb.threads()) +
                           " threads, the plan " + std::to_string(plan.threads));
  constexpr auto lds_layout = lds_plan(lds_buffer<f32>("reduce", 1, 32));
  const auto lds = use_lds<lds_layout>(kb);
  return RowSlice(plan, width, lds.tile<"reduce">());
}

// This thread's row of the row group starting at `first` (several rows per workgroup).
Int64 packed_row(const RowPlan& plan, const Int64& first) {
  return first + cast<i64>(thread_id() / plan.row_threads());
}

} // namespace

void row_kernel(KernelBuilder& kb, RowPlan plan, const Int64& width, const RowBody& body) {
  if (plan.rows_per_group != 1)
    throw std::logic_error("row_kernel: a plan of several rows per workgroup needs the rows");
  row_kernel(kb, plan, width, Int64(), body);
}

void row_kernel(KernelBuilder& kb, RowPlan plan, const Int64& width, const Int64& rows,
                const RowBody& body) {
  const RowSlice slice = workgroup_slice(kb, plan, width);
  if (plan.rows_per_group == 1)
    return body(slice, cast<i64>(block_id()));
  const Int64 row = packed_row(plan, cast<i64>(block_id()) * Int64(plan.rows_per_group));
  if_(row < rows, [&] { body(slice, row); });
}

void strided_row_kernel(KernelBuilder& kb, RowPlan plan, const Int64& width, const Int64& rows,
                        const Int64& groups, const RowSetup& setup) {
  const RowSlice slice = workgroup_slice(kb, plan, width);
  const RowBody body = setup(slice);
  const Int64 per_group(plan.rows_per_group);
  // The loop bounds are uniform across the workgroup (the block reductions' barriers need it);
  // with several rows per workgroup, the rows past the end skip the body (lane reductions only).
  for_range(cast<i64>(block_id()) * per_group, rows, groups * per_group, [&](const Int64& first) {
    if (plan.rows_per_group == 1)
      return body(slice, first);
    const Int64 row = packed_row(plan, first);
    if_(row < rows, [&] { body(slice, row); });
  });
}

} // namespace tw::kernels::elementwise
