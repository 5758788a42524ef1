// RoPE (the map skeleton over [tokens * heads, head_dim / 2] pairs) and RMSNorm + RoPE (the row
// skeleton over each head), both with the RoPE block (rope_block.hpp).
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
  if (p.positions) {
    check.well_formed(*p.positions, "positions");
    check.dtype_in(*p.positions, "positions", {DType::i32});
    check.shape_is(*p.positions, "positions", {r.x.rows}, "one position per token");
    check.contiguous_vector(*p.positions, "positions");
    if (r.x.rows > 0)
      check.on_device(*p.positions, "positions", device);
    check.naturally_aligned(*p.positions, "positions");
  }
  if (p.cos.has_value() != p.sin.has_value())
    check.fail(p.cos ? "sin" : "cos", std::string("is missing; expected both caches (cos and sin) "
                                                  "or neither (computed in the kernel)"));
  if (p.cos) {
    for (const auto& [t, name] : {std::pair{&*p.cos, "cos"}, std::pair{&*p.sin, "sin"}}) {
      check.dtype_in(*t, name, float_dtypes);
      const Rows c = rows_of(check, *t, name, device);
      if (t->rank() != 2 || c.width != r.half || c.rows < 1)
        check.fail(name, "has shape " + format_extents(t->shape) + "; expected [max_pos, " +
                             std::to_string(r.half) + "] (head_dim / 2 per position)");
    }
    check.same_dtype(*p.sin, "sin", *p.cos, "cos");
    check.shape_is(*p.sin, "sin", p.cos->shape, "the shape of 'cos'");
    r.max_pos = p.cos->shape[0];
  }
  if (!std::isfinite(p.base) || !(p.base > 0.0f))
    check.fail_parameter("base", "is " + std::to_string(p.base) + "; expected a finite base > 0");
  check.no_overlap(out, "out", x, "x", /*allow_same=*/true);
  return r;
}

// The kernel arguments after the tensors, in order (rope_angles_args reads them).
void add_rope_args(runtime::KernelArgs& a, const RopeParams& p, const RopeShape& s) {
  a.ptr(p.positions ? p.positions->device_address : 0);
  a.ptr(p.cos ? p.cos->device_address : 0).ptr(p.sin ? p.sin->device_address : 0);
  a.add<int64_t>(p.position_offset).add<int64_t>(s.max_pos).add<int64_t>(s.heads);
  a.add<int64_t>(s.half);
  a.add<float>(static_cast<float>(-2.0 * std::log2(double(p.base)) / double(p.head_dim)));
}

RopeAngles rope_angles_args(dsl::KernelBuilder& kb, const RopeParams& p, dsl::Int64& heads) {
  using namespace tw::dsl;
  RopeAngles a;
  const AnyPtr pos = any_ptr_arg(kb, "positions", DType::i32);
  const DType cd = p.cos ? p.cos->dtype : DType::f32;
  const AnyPtr c = any_ptr_arg(kb, "cos", cd), s = any_ptr_arg(kb, "sin", cd);
  const auto [offset, max_pos, h, half, freq] =
      kb.args(scalar<i64>("position_offset"), scalar<i64>("max_pos"), scalar<i64>("heads"),
              scalar<i64>("half"), scalar<f32>("freq_exponent"));
  if (p.positions)
    a.positions = pos;
  if (p.cos) {
    a.cos_cache = c;
    a.sin_cache = s;
  }
  a.position_offset = offset;
  a.max_pos = max_pos;
  a.freq_exponent = freq;
  a.half = half;
  heads = h;
  return a;
}

std::string rope_key(const char* op, const TensorView& x, const TensorView& out,
                     const RopeParams& p, int vec, int threads) {
  std::string k = op;
  k.append("_").append(dtype_name(x.dtype)).append("_").append(dtype_name(out.dtype));
  k.append(p.style == RopeStyle::neox ? "_neox" : "_interleaved");
  k.append(p.positions ? "_ids" : "_offset");
  if (p.cos)
    k.append("_cache_").append(dtype_name(p.cos->dtype));
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
    map_runs(ins, outs, tokens * heads, angles.half, vec,
             [&](const Int64& row, const Int64& col, const std::vector<Values>& in) {
               const auto [c, sn] = angles.cos_sin(angles.position(row / heads), col, vec);
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
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(args.x.device_address).ptr(args.out.device_address);
  a.add<int64_t>(s.x.rows).add<int64_t>(row_stride(args.x)).add<int64_t>(row_stride(args.out));
  add_rope_args(a, p, s);
  launch(device, key, build,
         blocks_for(check, map_threads(s.x.rows * s.heads, s.half, vec), threads), threads, a);
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
  const bool neox = p.style == RopeStyle::neox;
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr x = any_ptr_arg(kb, "x", args.x.dtype),
                 out = any_ptr_arg(kb, "out", args.out.dtype),
                 weight = any_ptr_arg(kb, "weight", args.x.dtype);
    const auto [ld_x, ld_out, eps, tokens] = kb.args(scalar<i64>("ld_x"), scalar<i64>("ld_out"),
                                                     scalar<f32>("eps"), scalar<i64>("tokens"));
    Int64 heads;
    const RopeAngles angles = rope_angles_args(kb, p, heads);
    const Int64 head_dim = angles.half * Int64(2);
    row_kernel(kb, plan, angles.half, tokens * heads, [&](const RowSlice& sl, const Int64& row) {
      const Int64 token = row / heads, head = row - token * heads;
      const AnyPtr xr = x.offset(token * ld_x + head * head_dim),
                   orow = out.offset(token * ld_out + head * head_dim);
      // lo[k][j] / hi[k][j]: the two elements of pair (k, j).
      std::vector<Values> lo, hi, wlo, whi;
      const auto split = [&](const std::vector<Values>& pairs, std::vector<Values>& a,
                             std::vector<Values>& b) {
        for (const Values& run : pairs) {
          a.emplace_back();
          b.emplace_back();
          for (std::size_t u = 0; u < run.size(); u += 2) {
            a.back().push_back(run[u]);
            b.back().push_back(run[u + 1]);
          }
        }
      };
      if (neox) {
        lo = sl.load(xr);
        hi = sl.load(xr.offset(angles.half));
        wlo = sl.load(weight);
        whi = sl.load(weight.offset(angles.half));
      } else {
        split(sl.load(xr, 2), lo, hi);
        split(sl.load(weight, 2), wlo, whi);
      }
      const auto at = [](const std::vector<Values>& t, int k, int j) {
        return t[std::size_t(k)][std::size_t(j)];
      };
      const Float32 ss = sl.sum(
          [&](int k, int j) { return at(lo, k, j) * at(lo, k, j) + at(hi, k, j) * at(hi, k, j); });
      const Float32 inv = Float32(1.0) / sqrt(ss / cast<f32>(head_dim) + eps);
      const Int64 pos = angles.position(token);
      std::vector<Values> ylo, yhi, ypairs;
      for (int k = 0; k < plan.runs; ++k) {
        const auto [c, sn] = angles.cos_sin(pos, sl.col(k, 0), plan.vec);
        ylo.emplace_back();
        yhi.emplace_back();
        ypairs.emplace_back();
        for (int j = 0; j < plan.vec; ++j) {
          const std::size_t u = std::size_t(j);
          const auto [y1, y2] = rotate(at(lo, k, j) * inv * at(wlo, k, j),
                                       at(hi, k, j) * inv * at(whi, k, j), c[u], sn[u]);
          ylo.back().push_back(y1);
          yhi.back().push_back(y2);
          ypairs.back().push_back(y1);
          ypairs.back().push_back(y2);
        }
      }
      if (neox) {
        sl.store(orow, ylo);
        sl.store(orow.offset(angles.half), yhi);
      } else {
        sl.store(orow, ypairs, 2);
      }
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  a.ptr(args.x.device_address).ptr(args.out.device_address).ptr(args.weight.device_address);
  a.add<int64_t>(row_stride(args.x)).add<int64_t>(row_stride(args.out)).add<float>(args.eps);
  a.add<int64_t>(s.x.rows);
  add_rope_args(a, p, s);
  launch(device, key, build, row_groups(plan, s.x.rows * s.heads), threads, a);
}

} // namespace tw::kernels
