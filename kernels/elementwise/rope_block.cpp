// The RoPE block (see rope_block.hpp).
#include <kernels/elementwise/rope_block.hpp>

#include <dsl/ops/trig.hpp>
#include <kernels/elementwise/launch.hpp>

#include <cmath>

namespace tw::kernels::elementwise {

using namespace tw::dsl;

Int64 RopeAngles::position(const Int64& token) const {
  Int64 p =
      positions ? cast<i64>(GlobalPtr<i32>(positions->base).load(token)) : position_offset + token;
  if (cos_cache)
    p = min(max(p, Int64(0)), max_pos - Int64(1));
  return p;
}

std::pair<Values, Values> RopeAngles::cos_sin(const Int64& pos, const Int64& first,
                                              int count) const {
  if (cos_cache) {
    const Int64 row = pos * half;
    return {load_run_or_tail(*cos_cache, row + first, count, row + half),
            load_run_or_tail(*sin_cache, row + first, count, row + half)};
  }
  Values c, s;
  const Float32 p = cast<f32>(pos);
  for (int j = 0; j < count; ++j) {
    const Float32 theta = p * exp2(cast<f32>(first + Int64(j)) * freq_exponent);
    const SinCos sc = sincos(theta);
    c.push_back(sc.cos);
    s.push_back(sc.sin);
  }
  return {c, s};
}

int64_t validate_rope_params(const ArgChecker& check, const runtime::Device& device,
                             const RopeParams& p, int64_t tokens) {
  const int64_t half = p.head_dim / 2;
  int64_t max_pos = 0;
  if (p.positions) {
    check.well_formed(*p.positions, "positions");
    check.dtype_in(*p.positions, "positions", {DType::i32});
    check.shape_is(*p.positions, "positions", {tokens}, "one position per token");
    check.contiguous_vector(*p.positions, "positions");
    if (tokens > 0)
      check.on_device(*p.positions, "positions", device);
    check.naturally_aligned(*p.positions, "positions");
  }
  if (p.cos.has_value() != p.sin.has_value())
    check.fail(p.cos ? "sin" : "cos", std::string("is missing; expected both caches (cos and sin) "
                                                  "or neither (computed in the kernel)"));
  if (p.cos) {
    for (const auto& [t, name] : {std::pair{&*p.cos, "cos"}, std::pair{&*p.sin, "sin"}}) {
      check.dtype_in(*t, name, {DType::f16, DType::bf16, DType::f32});
      const Rows c = rows_of(check, *t, name, device);
      if (t->rank() != 2 || c.width != half || c.rows < 1)
        check.fail(name, "has shape " + format_extents(t->shape) + "; expected [max_pos, " +
                             std::to_string(half) + "] (half the rotated dims per position)");
    }
    check.same_dtype(*p.sin, "sin", *p.cos, "cos");
    check.shape_is(*p.sin, "sin", p.cos->shape, "the shape of 'cos'");
    max_pos = p.cos->shape[0];
  }
  if (!std::isfinite(p.base) || !(p.base > 0.0f))
    check.fail_parameter("base", "is " + std::to_string(p.base) + "; expected a finite base > 0");
  return max_pos;
}

void add_rope_args(runtime::KernelArgs& a, const RopeParams& p, int64_t max_pos, int64_t heads) {
  a.ptr(p.positions ? p.positions->device_address : 0);
  a.ptr(p.cos ? p.cos->device_address : 0).ptr(p.sin ? p.sin->device_address : 0);
  a.add<int64_t>(p.position_offset).add<int64_t>(max_pos).add<int64_t>(heads);
  a.add<int64_t>(p.head_dim / 2);
  a.add<float>(static_cast<float>(-2.0 * std::log2(double(p.base)) / double(p.head_dim)));
}

RopeAngles rope_angles_args(KernelBuilder& kb, const RopeParams& p, Int64& heads) {
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

std::string rope_key_part(const RopeParams& p) {
  std::string k = p.style == RopeStyle::neox ? "_neox" : "_interleaved";
  k.append(p.positions ? "_ids" : "_offset");
  if (p.cos)
    k.append("_cache_").append(dtype_name(p.cos->dtype));
  return k;
}

PairRuns load_pairs(const RowSlice& slice, const AnyPtr& base, RopeStyle style, const Int64& half,
                    bool shared) {
  const auto load = [&](const AnyPtr& b, int per_col) {
    return shared ? slice.load_shared(b, per_col) : slice.load(b, per_col);
  };
  if (style == RopeStyle::neox)
    return {load(base, 1), load(base.offset(half), 1)};
  PairRuns r;
  for (const Values& run : load(base, 2)) {
    r.lo.emplace_back();
    r.hi.emplace_back();
    for (std::size_t u = 0; u < run.size(); u += 2) {
      r.lo.back().push_back(run[u]);
      r.hi.back().push_back(run[u + 1]);
    }
  }
  return r;
}

void store_pairs(const RowSlice& slice, const AnyPtr& base, RopeStyle style, const Int64& half,
                 const PairRuns& y) {
  if (style == RopeStyle::neox) {
    slice.store(base, y.lo);
    slice.store(base.offset(half), y.hi);
    return;
  }
  std::vector<Values> runs;
  for (std::size_t k = 0; k < y.lo.size(); ++k) {
    runs.emplace_back();
    for (std::size_t u = 0; u < y.lo[k].size(); ++u) {
      runs.back().push_back(y.lo[k][u]);
      runs.back().push_back(y.hi[k][u]);
    }
  }
  slice.store(base, runs, 2);
}

PairRuns rotate_pairs(const RowSlice& slice, const RopeAngles& angles, const Int64& pos,
                      const PairRuns& x) {
  PairRuns y;
  const RowPlan& plan = slice.plan();
  for (int k = 0; k < plan.runs; ++k) {
    const auto [c, sn] = angles.cos_sin(pos, slice.col(k, 0), plan.vec);
    y.lo.emplace_back();
    y.hi.emplace_back();
    for (int j = 0; j < plan.vec; ++j) {
      const auto [y1, y2] =
          rotate(x.lo_at(k, j), x.hi_at(k, j), c[std::size_t(j)], sn[std::size_t(j)]);
      y.lo.back().push_back(y1);
      y.hi.back().push_back(y2);
    }
  }
  return y;
}

} // namespace tw::kernels::elementwise
