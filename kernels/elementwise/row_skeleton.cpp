// The row skeleton (see row_skeleton.hpp).
#include <kernels/elementwise/row_skeleton.hpp>

#include <dsl/ops/block_reduce.hpp>
#include <kernels/common/arg_check.hpp>

#include <limits>
#include <stdexcept>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

RowPlan row_plan(const std::string& op, int64_t width, int threads, int vec) {
  RowPlan p;
  p.threads = threads;
  p.vec = vec;
  const int64_t per_pass = int64_t(threads) * vec;
  p.runs = static_cast<int>(std::max<int64_t>(1, (width + per_pass - 1) / per_pass));
  if (int64_t(p.runs) * vec > row_register_budget)
    throw ArgumentError(op + ": argument 'x' has rows of " + std::to_string(width) +
                        " elements; expected at most " +
                        std::to_string(int64_t(threads) * row_register_budget) +
                        " (each row is held in the registers of one workgroup of " +
                        std::to_string(threads) + " threads; pass a larger block_size)");
  return p;
}

RowSlice::RowSlice(RowPlan plan, Int64 width, LdsTile<f32, 1, 32> scratch)
    : plan_(plan), width_(width), first_(cast<i64>(thread_id()) * Int64(plan.vec)),
      scratch_(scratch) {}

Int64 RowSlice::col(int k, int j) const {
  return first_ + Int64(int64_t(k) * plan_.threads * plan_.vec + j);
}

Bool RowSlice::valid(int k, int j) const {
  return col(k, j) < width_;
}

std::vector<Values> RowSlice::load(const AnyPtr& row_base, int per_col) const {
  std::vector<Values> v;
  const Int64 pc(per_col);
  for (int k = 0; k < plan_.runs; ++k)
    v.push_back(load_run_or_tail(row_base, col(k, 0) * pc, plan_.vec * per_col, width_ * pc));
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

Float32 RowSlice::reduce(const Float32& partial, Reduce op) const {
  return block_reduce(partial, op, scratch_);
}

Float32 RowSlice::sum(const std::function<Float32(int, int)>& fn) const {
  return reduce(local_sum(fn), Reduce::sum);
}

Float32 RowSlice::max(const std::function<Float32(int, int)>& fn) const {
  return reduce(local_max(fn), Reduce::max);
}

RowSlice RowSlice::part(RowPlan plan, const Int64& width) const {
  if (plan.threads != plan_.threads)
    throw std::logic_error("RowSlice::part: the plan has " + std::to_string(plan.threads) +
                           " threads, the workgroup " + std::to_string(plan_.threads));
  return RowSlice(plan, width, scratch_);
}

std::vector<Values> RowSlice::map(const std::function<Float32(int, int)>& fn) const {
  std::vector<Values> out(static_cast<std::size_t>(plan_.runs));
  for (int k = 0; k < plan_.runs; ++k)
    for (int j = 0; j < plan_.vec; ++j)
      out[static_cast<std::size_t>(k)].push_back(fn(k, j));
  return out;
}

void row_kernel(KernelBuilder& kb, RowPlan plan, const Int64& width, const RowBody& body) {
  if (kb.threads() != plan.threads)
    throw std::logic_error("row_kernel: the workgroup has " + std::to_string(kb.threads()) +
                           " threads, the plan " + std::to_string(plan.threads));
  constexpr auto lds_layout = lds_plan(lds_buffer<f32>("reduce", 1, 32));
  const auto lds = use_lds<lds_layout>(kb);
  const RowSlice slice(plan, width, lds.tile<"reduce">());
  body(slice, cast<i64>(block_id()));
}

} // namespace tw::kernels::elementwise
