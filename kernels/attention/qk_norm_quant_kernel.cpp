// The quant QK-norm kernel (qk_norm_quant_kernel.hpp): the row skeleton over each (token,
// head), the head held as two slices (the columns before the RoPE tail, and the tail's pairs);
// RMSNorm, the RoPE block and the shared quantization rules on the registers.
#include <kernels/attention/qk_norm_quant_kernel.hpp>
#include <kernels/elementwise/rope_block.hpp>
#include <kernels/quant/quant_rules.hpp>

namespace tw::kernels::qk_norm_quant_kernel {

using namespace elementwise;

namespace {
// The RopeParams the RoPE block reads when it builds (which position source and angle source;
// the tensors themselves are kernel arguments).
RopeParams rope_shape(const QkNormQuantKernelSpec& s) {
  RopeParams r;
  r.style = s.style;
  if (s.position_ids) {
    TensorView ids;
    ids.dtype = DType::i32;
    r.positions = ids;
  }
  if (s.cache) {
    TensorView c;
    c.dtype = *s.cache;
    r.cos = c;
    r.sin = c;
  }
  return r;
}
} // namespace

QkNormQuantKernelSpec make_spec(DType x, DType codes, RopeStyle style, bool position_ids,
                                std::optional<DType> cache, int64_t head_dim, int64_t rope_dim,
                                int vec, int threads) {
  QkNormQuantKernelSpec s;
  s.x = x;
  s.codes = codes;
  s.style = style;
  s.position_ids = position_ids;
  s.cache = cache;
  s.threads = threads;
  s.nope_plan = row_plan("qk_norm_quant", std::max<int64_t>(head_dim - rope_dim, 1), threads, vec);
  s.pair_plan = row_plan("qk_norm_quant", rope_dim / 2, threads, vec);
  return s;
}

std::string QkNormQuantKernelSpec::name() const {
  return "qk_norm_quant_" + std::string(dtype_name(x)) + "_" + std::string(dtype_name(codes)) +
         rope_key_part(rope_shape(*this)) + "_v" + std::to_string(pair_plan.vec) + "_rn" +
         std::to_string(nope_plan.runs) + "_rp" + std::to_string(pair_plan.runs) + "_t" +
         std::to_string(threads);
}

ir::Kernel build_qk_norm_quant_kernel(const QkNormQuantKernelSpec& s) {
  const DType xd = s.x, codes = s.codes;
  const RopeParams rope = rope_shape(s);
  const RowPlan &nope_plan = s.nope_plan, &pair_plan = s.pair_plan;
  const float qmax = quant_rules::code_max(codes);
  using namespace tw::dsl;
  KernelBuilder kb(s.name(), {s.threads, 1, 1});
  const AnyPtr x = any_ptr_arg(kb, "x", xd), out = any_ptr_arg(kb, "out", codes),
               weight = any_ptr_arg(kb, "weight", xd), scale = any_ptr_arg(kb, "scale", DType::f32);
  const auto [ld_x, ld_out, head_dim, nope_dim, eps] =
      kb.args(scalar<i64>("ld_x"), scalar<i64>("ld_out"), scalar<i64>("head_dim"),
              scalar<i64>("nope_dim"), scalar<f32>("eps"));
  Int64 heads;
  const RopeAngles angles = rope_angles_args(kb, rope, heads);
  row_kernel(kb, pair_plan, angles.half, [&](const RowSlice& pairs, const Int64& row) {
    const RowSlice plain = pairs.part(nope_plan, nope_dim);
    const Int64 token = row / heads, head = row - token * heads;
    const AnyPtr xr = x.offset(token * ld_x + head * head_dim),
                 orow = out.offset(token * ld_out + head * head_dim);
    // The head: plain columns [0, nope_dim), then the tail's pairs.
    const std::vector<Values> xn = plain.load(xr), wn = plain.load(weight);
    const PairRuns xp = load_pairs(pairs, xr.offset(nope_dim), rope.style, angles.half);
    const PairRuns wp = load_pairs(pairs, weight.offset(nope_dim), rope.style, angles.half);
    const auto at = [](const std::vector<Values>& t, int k, int j) {
      return t[std::size_t(k)][std::size_t(j)];
    };
    const Float32 ss = pairs.reduce(plain.local_sum([&](int k, int j) {
      return at(xn, k, j) * at(xn, k, j);
    }) + pairs.local_sum([&](int k, int j) {
      return xp.lo_at(k, j) * xp.lo_at(k, j) + xp.hi_at(k, j) * xp.hi_at(k, j);
    }),
                                    Reduce::sum);
    const Float32 inv = Float32(1.0) / sqrt(ss / cast<f32>(head_dim) + eps);
    const std::vector<Values> yn =
        plain.map([&](int k, int j) { return at(xn, k, j) * inv * at(wn, k, j); });
    PairRuns normed;
    normed.lo = pairs.map([&](int k, int j) { return xp.lo_at(k, j) * inv * wp.lo_at(k, j); });
    normed.hi = pairs.map([&](int k, int j) { return xp.hi_at(k, j) * inv * wp.hi_at(k, j); });
    const PairRuns yp = rotate_pairs(pairs, angles, angles.position(token), normed);
    const Float32 amax =
        pairs.reduce(max(plain.local_max([&](int k, int j) { return abs(at(yn, k, j)); }),
                         pairs.local_max([&](int k, int j) {
                           return max(abs(yp.lo_at(k, j)), abs(yp.hi_at(k, j)));
                         })),
                     Reduce::max);
    const Float32 s_row = quant_rules::absmax_scale(amax, qmax);
    const auto code = [&](const Float32& y) { return quant_rules::code_of(codes, y / s_row); };
    plain.store(orow, plain.map([&](int k, int j) { return code(at(yn, k, j)); }));
    PairRuns cp;
    cp.lo = pairs.map([&](int k, int j) { return code(yp.lo_at(k, j)); });
    cp.hi = pairs.map([&](int k, int j) { return code(yp.hi_at(k, j)); });
    store_pairs(pairs, orow.offset(nope_dim), rope.style, angles.half, cp);
    if_(thread_id() == 0, [&] { store_one(scale, row, s_row); });
  });
  return kb.finish();
}

} // namespace tw::kernels::qk_norm_quant_kernel
