// RoPE (the map skeleton over [tokens * heads, head_dim / 2] pairs, the heads of a token grouped
// so its angles are read or computed once) and RMSNorm + RoPE (the strided row skeleton over
// each head, the weight loaded once per workgroup), both with the RoPE block (rope_block.hpp).
#include <kernels/elementwise/elementwise_api.hpp>
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/map_skeleton.hpp>
#include <kernels/elementwise/rope_block.hpp>
#include <kernels/elementwise/row_skeleton.hpp>

#include <cmath>

namespace tw::kernels {

using namespace elementwise;

namespace {

constexpr std::initializer_list<DType> float_dtypes = {DType::f16, DType::bf16, DType::f32};

// What a validated RoPE problem is.
struct RopeShape {
  Rows x;
  int64_t heads = 0, half = 0, max_pos = 0;
};

RopeShape validate_rope(const ArgChecker& check, const runtime::Device& device, const TensorView& x,
                        const TensorView& out, const RopeParams& p) {
  check.dtype_in(x, "x", float_dtypes);
  check.dtype_in(out, "out", float_dtypes);
  RopeShape r;
  r.x = rows_of(check, x, "x", device);
  rows_of(check, out, "out", device);
  same_shape(check, out, "out", x, "x");
  if (p.head_dim <= 0 || p.head_dim % 2 != 0)
    check.fail_parameter("head_dim", "is " + std::to_string(p.head_dim) +
                                         "; expected an even head dimension > 0");
  if (r.x.width % p.head_dim != 0)
    check.fail("x", "has rows of " + std::to_string(r.x.width) +
                        " elements; expected a multiple of "
                        "head_dim " +
                        std::to_string(p.head_dim) + " (heads * head_dim)");
  r.heads = r.x.width / p.head_dim;
  r.half = p.head_dim / 2;
  r.max_pos = validate_rope_params(check, device, p, r.x.rows);
  check.no_overlap(out, "out", x, "x", /*allow_same=*/true);
  return r;
}

std::string rope_key(const char* op, const TensorView& x, const TensorView& out,
                     const RopeParams& p, int vec, int threads) {
  std::string k = op;
  k.append("_").append(dtype_name(x.dtype)).append("_").append(dtype_name(out.dtype));
  k.append(rope_key_part(p));
  k.append("_v").append(std::to_string(vec)).append("_t").append(std::to_string(threads));
  return k;
}

std::vector<RunAlignment> rope_alignment(const TensorView& x, const TensorView& out,
                                         const RopeParams& p) {
  const int pc = p.style == RopeStyle::interleaved ? 2 : 1;
  const int64_t half = p.head_dim / 2;
  std::vector<RunAlignment> r = {
      {x.dtype, x.address(), {row_stride(x), p.head_dim, half}, pc},
      {out.dtype, out.address(), {row_stride(out), p.head_dim, half}, pc}};
  if (p.cos) {
    r.push_back({p.cos->dtype, p.cos->address(), {half}, 1});
    r.push_back({p.sin->dtype, p.sin->address(), {half}, 1});
  }
  return r;
}

} // namespace

void rope(runtime::Device& device, const RopeArgs& args) {
  const ArgChecker check("rope");
  const int threads = block_size(check, args.block_size);
  const RopeParams& p = args.rope;
  const RopeShape s = validate_rope(check, device, args.x, args.out, p);
  if (s.x.empty())
    return;
  const int vec = access_vec_runs(rope_alignment(args.x, args.out, p));
  const std::string key = rope_key("rope", args.x, args.out, p, vec, threads);
  const bool neox = p.style == RopeStyle::neox;
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr x = any_ptr_arg(kb, "x", args.x.dtype),
                 out = any_ptr_arg(kb, "out", args.out.dtype);
    const auto [tokens, ld_x, ld_out] =
        kb.args(scalar<i64>("tokens"), scalar<i64>("ld_x"), scalar<i64>("ld_out"));
    Int64 heads;
    const RopeAngles angles = rope_angles_args(kb, p, heads);
    const Int64 head_dim = angles.half * Int64(2);
    const auto head_start = [&](const Int64& ld, int64_t shift) {
      return RowStart([=, &heads](const Int64& row) {
        const Int64 token = row / heads;
        return token * ld + (row - token * heads) * head_dim + angles.half * Int64(shift);
      });
    };
    std::vector<MapTensor> ins, outs;
    if (neox) {
      ins = {{x, Int64(), head_start(ld_x, 0), 1}, {x, Int64(), head_start(ld_x, 1), 1}};
      outs = {{out, Int64(), head_start(ld_out, 0), 1}, {out, Int64(), head_start(ld_out, 1), 1}};
    } else {
      ins = {{x, Int64(), head_start(ld_x, 0), 2}};
      outs = {{out, Int64(), head_start(ld_out, 0), 2}};
    }
    // The heads of a token share its angles: each thread gets the (cos, sin) of its run of
    // pairs once (one read of the token's cache row) and rotates that run in every head.
    map_grouped_runs(
        ins, outs, tokens, heads, angles.half, vec, [&](const Int64& token, const Int64& col) {
          const std::pair<Values, Values> cs = angles.cos_sin(angles.position(token), col, vec);
          return RunOp([&, cs](const Int64&, const Int64&, const std::vector<Values>& in) {
            const auto& [c, sn] = cs;
            std::vector<Values> y(outs.size());
            for (int j = 0; j < vec; ++j) {
              const std::size_t u = std::size_t(j);
              if (neox) {
                const auto [y1, y2] = rotate(in[0][u], in[1][u], c[u], sn[u]);
                y[0].push_back(y1);
                y[1].push_back(y2);
              } else {
                const auto [y1, y2] = rotate(in[0][2 * u], in[0][2 * u + 1], c[u], sn[u]);
                y[0].push_back(y1);
                y[0].push_back(y2);
              }
            }
            return y;
          });
        });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(args.x.device_address).ptr(args.out.device_address);
  a.add<int64_t>(s.x.rows).add<int64_t>(row_stride(args.x)).add<int64_t>(row_stride(args.out));
  add_rope_args(a, p, s.max_pos, s.heads);
  launch(device, key, build, blocks_for(check, map_threads(s.x.rows, s.half, vec), threads),
         threads, a);
}

void rms_norm_rope(runtime::Device& device, const RmsNormRopeArgs& args) {
  const ArgChecker check("rms_norm_rope");
  const int threads = block_size(check, args.block_size);
  const RopeParams& p = args.rope;
  const RopeShape s = validate_rope(check, device, args.x, args.out, p);
  check.same_dtype(args.weight, "weight", args.x, "x");
  row_vector(check, args.weight, "weight", p.head_dim, device);
  if (!(args.eps >= 0.0f) || !std::isfinite(args.eps))
    check.fail_parameter("eps", "is " + std::to_string(args.eps) + "; expected a finite eps >= 0");
  check.no_overlap(args.out, "out", args.weight, "weight");
  if (s.x.empty())
    return;
  std::vector<RunAlignment> al = rope_alignment(args.x, args.out, p);
  al.push_back({args.weight.dtype,
                args.weight.address(),
                {s.half},
                p.style == RopeStyle::interleaved ? 2 : 1});
  const int vec = access_vec_runs(al);
  // A head is a short row: several heads per workgroup, none of its lanes idle.
  const RowPlan plan = packed_row_plan("rms_norm_rope", s.half, threads, vec);
  const std::string key = rope_key("rms_norm_rope", args.x, args.out, p, vec, threads) + "_r" +
                          std::to_string(plan.runs) + "_rows" + std::to_string(plan.rows_per_group);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr x = any_ptr_arg(kb, "x", args.x.dtype),
                 out = any_ptr_arg(kb, "out", args.out.dtype),
                 weight = any_ptr_arg(kb, "weight", args.x.dtype);
    const auto [ld_x, ld_out, eps, tokens, groups] =
        kb.args(scalar<i64>("ld_x"), scalar<i64>("ld_out"), scalar<f32>("eps"),
                scalar<i64>("tokens"), scalar<i64>("groups"));
    Int64 heads;
    const RopeAngles angles = rope_angles_args(kb, p, heads);
    const Int64 head_dim = angles.half * Int64(2);
    // The [head_dim] weight is shared by every head: loaded once per wave of a workgroup.
    strided_row_kernel(
        kb, plan, angles.half, tokens * heads, groups, [&](const RowSlice& slice) -> RowBody {
          const PairRuns w_pairs = load_pairs(slice, weight, p.style, angles.half, /*shared=*/true);
          return [&, w_pairs](const RowSlice& sl, const Int64& row) {
            const Int64 token = row / heads, head = row - token * heads;
            const AnyPtr xr = x.offset(token * ld_x + head * head_dim),
                         orow = out.offset(token * ld_out + head * head_dim);
            const PairRuns x_pairs = load_pairs(sl, xr, p.style, angles.half);
            const Float32 ss = sl.sum([&](int k, int j) {
              return x_pairs.lo_at(k, j) * x_pairs.lo_at(k, j) +
                     x_pairs.hi_at(k, j) * x_pairs.hi_at(k, j);
            });
            const Float32 inv = Float32(1.0) / sqrt(ss / cast<f32>(head_dim) + eps);
            PairRuns normed;
            normed.lo = sl.map(
                [&](int k, int j) { return x_pairs.lo_at(k, j) * inv * w_pairs.lo_at(k, j); });
            normed.hi = sl.map(
                [&](int k, int j) { return x_pairs.hi_at(k, j) * inv * w_pairs.hi_at(k, j); });
            store_pairs(sl, orow, p.style, angles.half,
                        rotate_pairs(sl, angles, angles.position(token), normed));
          };
        });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(args.x.device_address).ptr(args.out.device_address).ptr(args.weight.device_address);
  a.add<int64_t>(row_stride(args.x)).add<int64_t>(row_stride(args.out)).add<float>(args.eps);
  const int64_t groups = strided_row_groups(plan, s.x.rows * s.heads);
  a.add<int64_t>(s.x.rows).add<int64_t>(groups);
  add_rope_args(a, p, s.max_pos, s.heads);
  launch(device, key, build, groups, threads, a);
}

} // namespace tw::kernels
