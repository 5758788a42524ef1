// RMSNorm and LayerNorm: the row skeleton with the statistics as its reduction and the
// normalization as its second pass over the registers (the strided row loop: the weight and
// bias stay in registers across a workgroup's rows); AdaLN (nothing shared between rows: one
// workgroup per row).
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/row_skeleton.hpp>

namespace tw::kernels {

using namespace elementwise;

namespace {

enum class NormKind { rms, layer };

void run_norm(runtime::Device& device, const NormArgs& args, NormKind kind) {
  const char* op = kind == NormKind::rms ? "rms_norm" : "layer_norm";
  const ArgChecker check(op);
  check.dtype_in(args.x, "x", {DType::f16, DType::bf16, DType::f32});
  check.dtype_in(args.out, "out", {DType::f16, DType::bf16, DType::f32});
  check.same_dtype(args.weight, "weight", args.x, "x");
  if (args.bias)
    check.same_dtype(*args.bias, "bias", args.x, "x");
  const int threads = block_size(check, args.block_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  rows_of(check, args.out, "out", device);
  same_shape(check, args.out, "out", args.x, "x");
  row_vector(check, args.weight, "weight", shape.width, device);
  if (args.bias)
    row_vector(check, *args.bias, "bias", shape.width, device);
  if (!(args.eps >= 0.0f) || !std::isfinite(args.eps))
    check.fail_parameter("eps", "is " + std::to_string(args.eps) + "; expected a finite eps >= 0");
  check.no_overlap(args.out, "out", args.x, "x", /*allow_same=*/true);
  check.no_overlap(args.out, "out", args.weight, "weight");
  if (args.bias)
    check.no_overlap(args.out, "out", *args.bias, "bias");
  if (shape.empty())
    return;
  std::vector<const TensorView*> views = {&args.x, &args.out, &args.weight};
  int vec = access_vec(views);
  if (args.bias)
    vec = std::min(vec, access_vec({&*args.bias}));
  const RowPlan plan = row_plan(op, shape.width, threads, vec);
  const bool has_bias = args.bias.has_value();
  const DType xd = args.x.dtype, od = args.out.dtype;
  const std::string key = std::string(op) + "_" + std::string(dtype_name(xd)) + "_" +
                          std::string(dtype_name(od)) + (has_bias ? "_bias" : "") + "_v" +
                          std::to_string(plan.vec) + "_r" + std::to_string(plan.runs) + "_t" +
                          std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr x = any_ptr_arg(kb, "x", xd), out = any_ptr_arg(kb, "out", od),
                 weight = any_ptr_arg(kb, "weight", xd), bias = any_ptr_arg(kb, "bias", xd);
    const auto [rows, width, ld_x, ld_out, eps, groups] =
        kb.args(scalar<i64>("rows"), scalar<i64>("width"), scalar<i64>("ld_x"),
                scalar<i64>("ld_out"), scalar<f32>("eps"), scalar<i64>("groups"));
    const auto at = [](const std::vector<Values>& t, int k, int j) {
      return t[std::size_t(k)][std::size_t(j)];
    };
    // The weight and bias are the rows' shared tensors: loaded once per workgroup.
    strided_row_kernel(kb, plan, width, rows, groups, [&](const RowSlice& slice) -> RowBody {
      const std::vector<Values> w = slice.load_shared(weight);
      const std::vector<Values> b = has_bias ? slice.load_shared(bias) : std::vector<Values>{};
      return [&, w, b](const RowSlice& s, const Int64& row) {
        const std::vector<Values> v = s.load(x.offset(row * ld_x));
        const Float32 n = cast<f32>(width);
        Float32 center(0.0);
        if (kind == NormKind::layer)
          center = s.sum([&](int k, int j) { return at(v, k, j); }) / n;
        const Float32 var = s.sum([&](int k, int j) {
          const Float32 d = at(v, k, j) - center;
          return d * d;
        }) / n;
        const Float32 inv = Float32(1.0) / sqrt(var + eps);
        s.store(out.offset(row * ld_out), s.map([&](int k, int j) {
          const Float32 y = (at(v, k, j) - center) * inv * at(w, k, j);
          return has_bias ? y + at(b, k, j) : y;
        }));
      };
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(args.x.device_address).ptr(args.out.device_address).ptr(args.weight.device_address);
  a.ptr(has_bias ? args.bias->device_address : 0);
  a.add<int64_t>(shape.rows).add<int64_t>(shape.width);
  a.add<int64_t>(row_stride(args.x)).add<int64_t>(row_stride(args.out)).add<float>(args.eps);
  const int64_t groups = strided_row_groups(plan, shape.rows);
  a.add<int64_t>(groups);
  launch(device, key, build, groups, threads, a);
}

} // namespace

void adaln(runtime::Device& device, const AdaLnArgs& args) {
  const ArgChecker check("adaln");
  check.dtype_in(args.x, "x", {DType::f16, DType::bf16, DType::f32});
  check.dtype_in(args.out, "out", {DType::f16, DType::bf16, DType::f32});
  check.same_dtype(args.scale, "scale", args.x, "x");
  check.same_dtype(args.shift, "shift", args.x, "x");
  const int threads = block_size(check, args.block_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  for (const auto& [t, name] : {std::pair{&args.scale, "scale"}, std::pair{&args.shift, "shift"},
                                std::pair{&args.out, "out"}}) {
    rows_of(check, *t, name, device);
    same_shape(check, *t, name, args.x, "x");
  }
  if (!(args.eps >= 0.0f) || !std::isfinite(args.eps))
    check.fail_parameter("eps", "is " + std::to_string(args.eps) + "; expected a finite eps >= 0");
  check.no_overlap(args.out, "out", args.x, "x", /*allow_same=*/true);
  check.no_overlap(args.out, "out", args.scale, "scale");
  check.no_overlap(args.out, "out", args.shift, "shift");
  if (shape.empty())
    return;
  const int vec = access_vec({&args.x, &args.scale, &args.shift, &args.out});
  const RowPlan plan = row_plan("adaln", shape.width, threads, vec);
  const DType xd = args.x.dtype, od = args.out.dtype;
  const std::string key = "adaln_" + std::string(dtype_name(xd)) + "_" +
                          std::string(dtype_name(od)) + "_v" + std::to_string(plan.vec) + "_r" +
                          std::to_string(plan.runs) + "_t" + std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr x = any_ptr_arg(kb, "x", xd), scale = any_ptr_arg(kb, "scale", xd),
                 shift = any_ptr_arg(kb, "shift", xd), out = any_ptr_arg(kb, "out", od);
    const auto [width, ld_x, ld_scale, ld_shift, ld_out, eps] =
        kb.args(scalar<i64>("width"), scalar<i64>("ld_x"), scalar<i64>("ld_scale"),
                scalar<i64>("ld_shift"), scalar<i64>("ld_out"), scalar<f32>("eps"));
    row_kernel(kb, plan, width, [&](const RowSlice& s, const Int64& row) {
      const std::vector<Values> v = s.load(x.offset(row * ld_x));
      const std::vector<Values> sc = s.load(scale.offset(row * ld_scale));
      const std::vector<Values> sh = s.load(shift.offset(row * ld_shift));
      const auto at = [](const std::vector<Values>& t, int k, int j) {
        return t[std::size_t(k)][std::size_t(j)];
      };
      const Float32 n = cast<f32>(width);
      const Float32 mean = s.sum([&](int k, int j) { return at(v, k, j); }) / n;
      const Float32 var = s.sum([&](int k, int j) {
        const Float32 d = at(v, k, j) - mean;
        return d * d;
      }) / n;
      const Float32 inv = Float32(1.0) / sqrt(var + eps);
      s.store(out.offset(row * ld_out), s.map([&](int k, int j) {
        return (at(v, k, j) - mean) * inv * (Float32(1.0) + at(sc, k, j)) + at(sh, k, j);
      }));
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  for (const TensorView* t : {&args.x, &args.scale, &args.shift, &args.out})
    a.ptr(t->device_address);
  a.add<int64_t>(shape.width);
  for (const TensorView* t : {&args.x, &args.scale, &args.shift, &args.out})
    a.add<int64_t>(row_stride(*t));
  a.add<float>(args.eps);
  launch(device, key, build, shape.rows, threads, a);
}

void rms_norm(runtime::Device& device, const NormArgs& args) {
  run_norm(device, args, NormKind::rms);
}
void layer_norm(runtime::Device& device, const NormArgs& args) {
  run_norm(device, args, NormKind::layer);
}

} // namespace tw::kernels
