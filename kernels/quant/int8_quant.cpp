// int8 quantization (tensorwise with a caller scale or abs-max, rowwise abs-max) and FP8
// dequantization: the map and row skeletons with the quantization rule as their block.
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/map_skeleton.hpp>
#include <kernels/elementwise/row_skeleton.hpp>
#include <kernels/quant/quant_api.hpp>
#include <kernels/quant/quant_rules.hpp>
#include <kernels/quant/scale_args.hpp>

#include <dsl/handles/convert.hpp>
#include <dsl/ops/block_reduce.hpp>

#include <cmath>

namespace tw::kernels {

using namespace elementwise;
using quant_rules::absmax_scale;
using quant_rules::int8_code;

namespace {

std::string suffix(std::initializer_list<DType> dtypes, int vec, int threads) {
  std::string k;
  for (DType d : dtypes)
    k.append("_").append(dtype_name(d));
  k.append("_v").append(std::to_string(vec)).append("_t").append(std::to_string(threads));
  return k;
}

// One scale element: shape [], [1] or [1, 1].
void tensorwise_scale(const ArgChecker& check, const TensorView& s, std::string_view arg,
                      const runtime::Device& device) {
  check.well_formed(s, arg);
  if (s.numel() != 1 || s.rank() > 2)
    check.fail(arg, "has shape " + format_extents(s.shape) +
                        "; expected one element ([], [1] or [1, 1]) for a tensorwise scale");
  check.dtype_in(s, arg, {DType::f32});
  check.on_device(s, arg, device);
  check.naturally_aligned(s, arg);
}

// Row abs-max into `amax` [rows] (f32).
void launch_row_amax(runtime::Device& device, const ArgChecker& check, const TensorView& x,
                     const Rows& shape, int threads, runtime::DevicePtr amax) {
  const int vec = access_vec({&x});
  const RowPlan plan = row_plan(check.op(), shape.width, threads, vec);
  const std::string key =
      "row_amax" + suffix({x.dtype}, vec, threads) + "_r" + std::to_string(plan.runs);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr xp = any_ptr_arg(kb, "x", x.dtype), out = any_ptr_arg(kb, "amax", DType::f32);
    const auto [width, ld] = kb.args(scalar<i64>("width"), scalar<i64>("ld"));
    row_kernel(kb, plan, width, [&](const RowSlice& s, const Int64& row) {
      const std::vector<Values> v = s.load(xp.offset(row * ld));
      const Float32 m = s.max([&](int k, int j) { return abs(v[std::size_t(k)][std::size_t(j)]); });
      if_(thread_id() == 0, [&] { store_one(out, row, m); });
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(x.device_address).ptr(amax).add<int64_t>(shape.width).add<int64_t>(row_stride(x));
  launch(device, key, build, shape.rows, threads, a);
}

// One workgroup: scale[0] = absmax_scale(max of amax[0 .. rows)).
void launch_amax_to_scale(runtime::Device& device, int64_t rows, int threads,
                          runtime::DevicePtr amax, runtime::DevicePtr scale) {
  const std::string key = "amax_to_int8_scale_t" + std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    auto [in, out, n] = kb.args(gptr<f32>("amax"), gptr<f32>("scale"), scalar<i64>("rows"));
    constexpr auto lds_layout = lds_plan(lds_buffer<f32>("reduce", 1, 32));
    const auto lds = use_lds<lds_layout>(kb);
    auto [m] = for_range(cast<i64>(thread_id()), n, Int64(threads), carry(Float32(0.0)),
                         [&](Int64 i, Float32 acc) { return carry(max(acc, in.load(i))); });
    const Float32 amax_all = block_reduce(m, Reduce::max, lds.tile<"reduce">());
    if_(thread_id() == 0, [&] { out.store(Int64(0), absmax_scale(amax_all)); });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(amax).ptr(scale).add<int64_t>(rows);
  launch(device, key, build, 1, threads, a);
}

// q = int8_code(x / scale[0]) over the tensor.
void launch_quant_tensorwise(runtime::Device& device, const ArgChecker& check, const TensorView& x,
                             const TensorView& q, const Rows& shape, int threads,
                             runtime::DevicePtr scale) {
  const int vec = access_vec({&x, &q});
  const std::string key = "quant_int8_tensor" + suffix({x.dtype}, vec, threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const MapArgs m = map_args(kb, {{"x", x.dtype}}, {{"q", DType::int8}});
    auto [sp] = kb.args(gptr<f32>("scale"));
    const Float32 s = sp.load(Int64(0));
    map_rows(
        m.inputs, m.outputs, m.rows, m.width, vec,
        [&](const Int64&, const Int64&, const Values& v) { return Values{int8_code(v[0] / s)}; });
    return kb.finish();
  };
  runtime::KernelArgs a = map_kernel_args({&x}, {&q}, shape);
  a.ptr(scale);
  launch(device, key, build, blocks_for(check, map_threads(shape.rows, shape.width, vec), threads),
         threads, a);
}

// Rowwise: one workgroup per row, abs-max, scale[row], codes.
void launch_quant_rowwise(runtime::Device& device, const ArgChecker& check, const TensorView& x,
                          const TensorView& q, const TensorView& scale, const Rows& shape,
                          int threads) {
  const int vec = access_vec({&x, &q});
  const RowPlan plan = row_plan(check.op(), shape.width, threads, vec);
  const std::string key =
      "quant_int8_row" + suffix({x.dtype}, vec, threads) + "_r" + std::to_string(plan.runs);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr xp = any_ptr_arg(kb, "x", x.dtype), qp = any_ptr_arg(kb, "q", DType::int8),
                 sp = any_ptr_arg(kb, "scale", DType::f32);
    const auto [width, ld_x, ld_q] =
        kb.args(scalar<i64>("width"), scalar<i64>("ld_x"), scalar<i64>("ld_q"));
    row_kernel(kb, plan, width, [&](const RowSlice& s, const Int64& row) {
      const std::vector<Values> v = s.load(xp.offset(row * ld_x));
      const auto at = [&](int k, int j) { return v[std::size_t(k)][std::size_t(j)]; };
      const Float32 scl = absmax_scale(s.max([&](int k, int j) { return abs(at(k, j)); }));
      s.store(qp.offset(row * ld_q),
              s.map([&](int k, int j) { return int8_code(at(k, j) / scl); }));
      if_(thread_id() == 0, [&] { store_one(sp, row, scl); });
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(x.device_address).ptr(q.device_address).ptr(scale.device_address);
  a.add<int64_t>(shape.width).add<int64_t>(row_stride(x)).add<int64_t>(row_stride(q));
  launch(device, key, build, shape.rows, threads, a);
}

} // namespace

void quant_int8(runtime::Device& device, const QuantInt8Args& args) {
  const ArgChecker check("quant_int8");
  check.dtype_in(args.x, "x", {DType::f16, DType::bf16, DType::f32});
  check.dtype_in(args.q, "q", {DType::int8});
  const int threads = block_size(check, args.block_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  rows_of(check, args.q, "q", device);
  same_shape(check, args.q, "q", args.x, "x");
  const bool rowwise = args.granularity == QuantGranularity::rowwise;
  if (rowwise)
    quant_args::check_per_row_scale(check, args.scale, "scale", shape.rows, device);
  else
    tensorwise_scale(check, args.scale, "scale", device);
  if (args.given_scale) {
    if (rowwise)
      check.fail_parameter("given_scale", "is set with rowwise granularity; expected a caller "
                                          "scale only for tensorwise quantization");
    if (!std::isfinite(*args.given_scale))
      check.fail_parameter("given_scale", "is " + std::to_string(*args.given_scale) +
                                              "; expected a finite scale (its sign is kept)");
  }
  check.no_overlap(args.q, "q", args.x, "x");
  check.no_overlap(args.scale, "scale", args.x, "x");
  check.no_overlap(args.scale, "scale", args.q, "q");
  if (args.given_scale) {
    // s = sign(S) * max(|S|, 1e-30): the scale the codes use, and what `scale` returns.
    const float g = *args.given_scale;
    const float s = std::copysign(std::max(std::abs(g), 1e-30f), g);
    device.copy_to_device(args.scale.device_address, &s, sizeof s);
  }
  if (shape.empty()) {
    if (!rowwise && !args.given_scale) {
      const float one = 1.0f; // abs-max of nothing: the all-zero rule
      device.copy_to_device(args.scale.device_address, &one, sizeof one);
    }
    return;
  }
  if (rowwise)
    return launch_quant_rowwise(device, check, args.x, args.q, args.scale, shape, threads);
  if (!args.given_scale) {
    const runtime::DevicePtr amax = device.allocate(size_t(shape.rows) * sizeof(float));
    try {
      launch_row_amax(device, check, args.x, shape, threads, amax);
      launch_amax_to_scale(device, shape.rows, threads, amax, args.scale.device_address);
    } catch (...) {
      device.free(amax);
      throw;
    }
    device.free(amax);
  }
  launch_quant_tensorwise(device, check, args.x, args.q, shape, threads, args.scale.device_address);
}

void dequant_fp8(runtime::Device& device, const DequantFp8Args& args) {
  const ArgChecker check("dequant_fp8");
  check.dtype_in(args.x, "x", {DType::e4m3, DType::e5m2});
  check.dtype_in(args.out, "out", {DType::bf16, DType::f16, DType::f32});
  const int threads = block_size(check, args.block_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  rows_of(check, args.out, "out", device);
  same_shape(check, args.out, "out", args.x, "x");
  const bool rowwise = args.scale.numel() != 1; // one scale: tensorwise (also for one row)
  if (rowwise)
    quant_args::check_per_row_scale(check, args.scale, "scale", shape.rows, device);
  else
    tensorwise_scale(check, args.scale, "scale", device);
  check.no_overlap(args.out, "out", args.x, "x");
  check.no_overlap(args.out, "out", args.scale, "scale");
  if (shape.empty())
    return;
  const int vec = access_vec({&args.x, &args.out});
  const std::string key = std::string("dequant_fp8_") + (rowwise ? "row" : "tensor") +
                          suffix({args.x.dtype, args.out.dtype}, vec, threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const MapArgs m = map_args(kb, {{"x", args.x.dtype}}, {{"out", args.out.dtype}});
    auto [sp] = kb.args(gptr<f32>("scale"));
    const auto scaled = [&](const Float32& scale) {
      return RunOp([scale](const Int64&, const Int64&, const std::vector<Values>& in) {
        Values y;
        for (const Float32& v : in[0])
          y.push_back(v * scale);
        return std::vector<Values>{y};
      });
    };
    if (rowwise) // a workgroup per row: the row's scale is read once per wave, not per run
      map_row_runs(m.inputs, m.outputs, m.width, vec,
                   [&](const Int64& row) { return scaled(sp.load(row)); });
    else
      map_runs(m.inputs, m.outputs, m.rows, m.width, vec, scaled(sp.load(Int64(0))));
    return kb.finish();
  };
  runtime::KernelArgs a = map_kernel_args({&args.x}, {&args.out}, shape);
  a.ptr(args.scale.device_address);
  launch(device, key, build,
         rowwise ? blocks_for(check, shape.rows, 1)
                 : blocks_for(check, map_threads(shape.rows, shape.width, vec), threads),
         threads, a);
}

} // namespace tw::kernels
