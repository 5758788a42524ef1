// A user's shared library of kernel builders, as `tilewave emit --plugin` loads it: a row
// softmax written in the DSL, registered with TILEWAVE_KERNEL_PLUGIN (emit/kernel_plugin.hpp).
#include <tilewave.hpp>

namespace {

using namespace tw::dsl;

// y[r, :] = softmax(x[r, :]) for `cols` columns, one wave per row, cols / 32 values per lane.
tw::ir::Kernel build_row_softmax(int cols) {
  KernelBuilder kb("user_row_softmax_" + std::to_string(cols), {32, 1, 1});
  auto [x, y] = kb.args(gptr<f32>("x"), gptr<f32>("y"));
  const Int64 row = cast<i64>(block_id()) * cols;
  const Int64 lane = cast<i64>(lane_id());
  Float32 m = Float32(-1e30);
  for (int c = 0; c < cols; c += 32)
    m = max(m, x.load(row + lane + c));
  m = lane_reduce(m, Reduce::max);
  Float32 sum = 0.0f;
  for (int c = 0; c < cols; c += 32)
    sum = sum + exp2((x.load(row + lane + c) - m) * 1.4426950408889634f);
  sum = lane_reduce(sum, Reduce::sum);
  for (int c = 0; c < cols; c += 32)
    y.store(row + lane + c, exp2((x.load(row + lane + c) - m) * 1.4426950408889634f) / sum);
  return kb.finish();
}

} // namespace

TILEWAVE_KERNEL_PLUGIN(registry) {
  registry.add({"user_row_softmax",
                "row softmax of a rows x cols f32 matrix (a test plugin)",
                {{"cols", "128", "row length: 32, 64, 128 or 256"}},
                [](const tw::emit::ParamReader& p) {
                  return build_row_softmax(static_cast<int>(p.one_of("cols", {32, 64, 128, 256})));
                },
                {}});
}
