// int8 ConvRot: the row skeleton with a segmented plan whose segments are the Hadamard groups;
// the logical K is loaded (the rest of the last group reads 0), the Hadamard block rotates each
// group in registers, then the int8 abs-max rule quantizes the full rotated width.
#include <kernels/elementwise/hadamard_block.hpp>
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/row_skeleton.hpp>
#include <kernels/quant/integer_code.hpp>
#include <kernels/quant/quant_api.hpp>

#include <bit>
#include <cmath>

namespace tw::kernels {

using namespace elementwise;

int64_t convrot_group(int64_t k, int64_t group_size) {
  return std::min<int64_t>(group_size, int64_t(std::bit_ceil(uint64_t(std::max<int64_t>(k, 1)))));
}

int64_t convrot_width(int64_t k, int64_t group_size) {
  const int64_t n = convrot_group(k, group_size);
  return (k + n - 1) / n * n;
}

void quant_convrot(runtime::Device& device, const QuantConvrotArgs& args) {
  const ArgChecker check("quant_convrot");
  check.dtype_in(args.x, "x", {DType::f16, DType::bf16, DType::f32});
  check.dtype_in(args.q, "q", {DType::int8});
  const int threads = block_size(check, args.block_size);
  const int64_t gs = args.group_size;
  if (gs < 2 || gs > 2048 || (gs & (gs - 1)) != 0)
    check.fail_parameter("group_size",
                         "is " + std::to_string(gs) + "; expected a power of two from 2 to 2048");
  const Rows shape = rows_of(check, args.x, "x", device);
  const int64_t n = convrot_group(shape.width, gs), width = convrot_width(shape.width, gs);
  check.well_formed(args.q, "q");
  Extents q_shape = args.x.shape;
  q_shape.back() = width;
  check.shape_is(args.q, "q", q_shape,
                 "x's shape with the last dimension the Hadamard width ceil(K / " +
                     std::to_string(n) + ") * " + std::to_string(n));
  const Rows qr = rows_of(check, args.q, "q", device);
  check.well_formed(args.scale, "scale");
  const bool scale_ok =
      (args.scale.rank() == 1 && args.scale.shape[0] == shape.rows) ||
      (args.scale.rank() == 2 && args.scale.shape[0] == shape.rows && args.scale.shape[1] == 1);
  if (!scale_ok)
    check.fail("scale", "has shape " + format_extents(args.scale.shape) + "; expected [" +
                            std::to_string(shape.rows) + "] or [" + std::to_string(shape.rows) +
                            ", 1] (one scale per row)");
  if (shape.rows > 1 && args.scale.strides[0] != 1)
    check.fail("scale",
               "has layout " + describe_layout(args.scale) + "; expected contiguous scales");
  check.dtype_in(args.scale, "scale", {DType::f32});
  if (shape.rows > 0)
    check.on_device(args.scale, "scale", device);
  check.naturally_aligned(args.scale, "scale");
  check.no_overlap(args.q, "q", args.x, "x");
  check.no_overlap(args.scale, "scale", args.x, "x");
  check.no_overlap(args.scale, "scale", args.q, "q");
  if (shape.empty())
    return;
  const int vec = access_vec_runs({{args.x.dtype, args.x.address(), {shape.ld}, 1},
                                   {DType::int8, args.q.address(), {qr.ld}, 1}});
  const RowPlan plan = segmented_row_plan(check.op(), width, threads, vec, n);
  const std::string key = "quant_convrot_" + std::string(dtype_name(args.x.dtype)) + "_n" +
                          std::to_string(n) + "_v" + std::to_string(plan.vec) + "_r" +
                          std::to_string(plan.runs) + "_t" + std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr xp = any_ptr_arg(kb, "x", args.x.dtype), qp = any_ptr_arg(kb, "q", DType::int8),
                 sp = any_ptr_arg(kb, "scale", DType::f32);
    const auto [k, padded, ld_x, ld_q] =
        kb.args(scalar<i64>("k"), scalar<i64>("width"), scalar<i64>("ld_x"), scalar<i64>("ld_q"));
    row_kernel(kb, plan, padded, [&](const RowSlice& s, const Int64& row) {
      std::vector<Values> y = s.load(xp.offset(row * ld_x), 1, k);
      hadamard_segments(s, y);
      const Float32 norm(1.0 / std::sqrt(double(n)));
      for (Values& run : y)
        for (Float32& e : run)
          e = e * norm;
      const auto at = [&](int r, int j) { return y[std::size_t(r)][std::size_t(j)]; };
      const Float32 amax = s.max([&](int r, int j) { return abs(at(r, j)); });
      const Float32 scl = select(amax == Float32(0.0), Float32(1.0), amax / Float32(127.0));
      s.store(qp.offset(row * ld_q),
              s.map([&](int r, int j) { return integer_code(at(r, j) / scl, -128, 127); }));
      if_(thread_id() == 0, [&] { store_one(sp, row, scl); });
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(args.x.device_address).ptr(args.q.device_address).ptr(args.scale.device_address);
  a.add<int64_t>(shape.width).add<int64_t>(width).add<int64_t>(shape.ld).add<int64_t>(qr.ld);
  launch(device, key, build, shape.rows, threads, a);
}

} // namespace tw::kernels
