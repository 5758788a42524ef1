// The 4-bit quantizers (SVDQuant W4A4 activations, W4A8 weights): one row kernel, the row
// skeleton with a segmented plan whose segments are the quantization groups (each group
// reduces within its lanes, no LDS), the scale rule and the code rule as its blocks.
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/row_skeleton.hpp>
#include <kernels/quant/integer_code.hpp>
#include <kernels/quant/quant_api.hpp>
#include <kernels/quant/scale_args.hpp>

#include <dsl/handles/convert.hpp>

namespace tw::kernels {

using namespace elementwise;

namespace {

// What changes the code of a 4-bit quantizer.
struct Int4Spec {
  std::string op;
  DType x = DType::f16;
  bool asymmetric = false;   // uint4 codes with a zero point (else int4, symmetric)
  bool per_row = false;      // one group per row (W4A8 mode 0)
  bool two_level = false;    // row scale S and a relative group scale r_g = s_g / S
  DType stored = DType::f32; // dtype of the group scale as stored (r_g when two_level)
  int64_t group = 0;         // elements per group (not per_row)
  bool correction = false;   // z_g * s'_g written out (asymmetric)
};

// The largest relative scale: an e4m3's largest finite value, so r_g fits e4m3.
constexpr double relative_scale_max = 448.0;

bool power_of_two_group(int64_t g) {
  return g >= 2 && g <= 2048 && (g & (g - 1)) == 0;
}

void check_group_size(const ArgChecker& check, int64_t g) {
  if (!power_of_two_group(g))
    check.fail_parameter("group_size",
                         "is " + std::to_string(g) + "; expected a power of two from 2 to 2048");
}

// q: packed int4 / uint4 of x's shape with an even row stride; returns its row stride in bytes.
int64_t packed_codes(const ArgChecker& check, const TensorView& q, DType dtype, const TensorView& x,
                     const runtime::Device& device) {
  check.dtype_in(q, "q", {dtype});
  const Rows r = rows_of(check, q, "q", device);
  same_shape(check, q, "q", x, "x");
  if (r.rows > 1 && r.ld % 2 != 0)
    check.fail("q", "has layout " + describe_layout(q) +
                        " (an odd row stride); expected an even row stride so every row of "
                        "packed 4-bit codes starts on a byte");
  return (r.ld + 1) / 2;
}

// A [rows, groups] matrix of per-group values with contiguous rows; returns its row stride.
int64_t per_group(const ArgChecker& check, const TensorView& t, std::string_view arg,
                  std::initializer_list<DType> dtypes, int64_t rows, int64_t groups,
                  const runtime::Device& device) {
  check.dtype_in(t, arg, dtypes);
  check.well_formed(t, arg);
  check.shape_is(t, arg, {rows, groups}, "[rows, ceil(K / group_size)]");
  return rows_of(check, t, arg, device).ld;
}

struct Int4Views {
  const TensorView *x, *q, *scale;
  const TensorView *group_scale = nullptr, *zeros = nullptr, *correction = nullptr;
};

void launch_int4_quant(runtime::Device& device, const ArgChecker& check, const Int4Spec& spec,
                       const Int4Views& v, int threads, int64_t ld_q_bytes, int64_t ld_gs,
                       int64_t ld_z, int64_t ld_c) {
  const Rows shape = rows_of(check, *v.x, "x", device);
  const int64_t columns = (shape.width + 1) / 2; // bytes of packed codes per row
  // A column is a byte of q and the pair of x elements it packs.
  const int max_vec = access_vec_runs(
      {{spec.x, v.x->address(), {shape.ld}, 2}, {DType::uint8, v.q->address(), {ld_q_bytes}, 1}});
  const RowPlan plan =
      spec.per_row ? row_plan(spec.op, columns, threads, max_vec, 2)
                   : segmented_row_plan(spec.op, columns, threads, max_vec, spec.group / 2, 2);
  const std::string key = spec.op + "_" + std::string(dtype_name(spec.x)) +
                          (spec.asymmetric ? "_asym" : "_sym") +
                          (spec.per_row ? "_row" : "_g" + std::to_string(spec.group)) +
                          (spec.two_level ? "_rel_" : "_") + std::string(dtype_name(spec.stored)) +
                          (spec.correction ? "_corr" : "") + "_v" + std::to_string(plan.vec) +
                          "_r" + std::to_string(plan.runs) + "_t" + std::to_string(threads);
  const auto build = [&] {
    using namespace tw::dsl;
    KernelBuilder kb(key, {threads, 1, 1});
    const AnyPtr xp = any_ptr_arg(kb, "x", spec.x), qp = any_ptr_arg(kb, "q", DType::uint8),
                 sp = any_ptr_arg(kb, "scale", DType::f32),
                 gp = any_ptr_arg(kb, "group_scale", spec.stored),
                 zp = any_ptr_arg(kb, "zeros", DType::uint8),
                 cp = any_ptr_arg(kb, "correction", DType::f32);
    const auto [k, ld_x, ld_q, lg, lz, lc, groups] = kb.args(
        scalar<i64>("k"), scalar<i64>("ld_x"), scalar<i64>("ld_q"), scalar<i64>("ld_group_scale"),
        scalar<i64>("ld_zeros"), scalar<i64>("ld_correction"), scalar<i64>("groups"));
    row_kernel(kb, plan, (k + Int64(1)) / Int64(2), [&](const RowSlice& s, const Int64& row) {
      // x[k][2j + e]: element e of column j of run k (0 past K).
      const std::vector<Values> x = s.load(xp.offset(row * ld_x), 2, k);
      const auto el = [&](int r, int j, int e) {
        return x[std::size_t(r)][std::size_t(2 * j + e)];
      };
      const int passes = spec.per_row ? 1 : plan.passes();
      const auto pass_of = [&](int r) { return spec.per_row ? 0 : r / plan.segment_runs; };
      // The group statistics: s_g (and lo, the group's minimum with 0, when asymmetric).
      std::vector<Float32> s_g, lo;
      for (int p = 0; p < passes; ++p) {
        if (spec.asymmetric) {
          const Float32 hi =
              max(s.segment_reduce(p, Reduce::max,
                                   [&](int r, int j) { return max(el(r, j, 0), el(r, j, 1)); }),
                  Float32(0.0));
          lo.push_back(
              min(s.segment_reduce(p, Reduce::min,
                                   [&](int r, int j) { return min(el(r, j, 0), el(r, j, 1)); }),
                  Float32(0.0)));
          s_g.push_back((hi - lo.back()) / Float32(15.0));
        } else {
          const auto magnitude = [&](int r, int j) {
            return max(abs(el(r, j, 0)), abs(el(r, j, 1)));
          };
          const Float32 amax =
              spec.per_row ? s.max(magnitude) : s.segment_reduce(p, Reduce::max, magnitude);
          s_g.push_back(amax / Float32(7.0));
        }
      }
      // The scales as stored (what the codes use), and the row scale S of two-level scaling.
      std::vector<Float32> stored, used;
      Float32 row_scale(1.0);
      if (spec.two_level) {
        const Float32 top = s.max([&](int r, int) { return s_g[std::size_t(pass_of(r))]; });
        row_scale = select(top == Float32(0.0), Float32(1.0), top / Float32(relative_scale_max));
      }
      for (int p = 0; p < passes; ++p) {
        const std::size_t u = std::size_t(p);
        stored.push_back(round_to(spec.stored, spec.two_level ? s_g[u] / row_scale : s_g[u]));
        used.push_back(spec.two_level ? stored.back() * row_scale : stored.back());
      }
      // The codes: zero point z_g, then clamp(round_half_even(x / s') + z_g) into 4 bits.
      const Float32 code_lo(spec.asymmetric ? 0.0 : -8.0), code_hi(spec.asymmetric ? 15.0 : 7.0);
      std::vector<Float32> zero;
      for (int p = 0; p < passes; ++p) {
        const std::size_t u = std::size_t(p);
        zero.push_back(spec.asymmetric ? select(used[u] == Float32(0.0), Float32(0.0),
                                                integer_code(-lo[u] / used[u], 0, 15))
                                       : Float32(0.0));
      }
      const auto nibble = [&](int r, int j, int e) {
        const std::size_t u = std::size_t(pass_of(r));
        const Float32 c =
            min(max(round_half_even(el(r, j, e) / used[u]) + zero[u], code_lo), code_hi);
        const Float32 q = select(used[u] == Float32(0.0), Float32(0.0), c);
        return spec.asymmetric ? q : select(q < Float32(0.0), q + Float32(16.0), q);
      };
      s.store(qp.offset(row * ld_q), s.map([&](int r, int j) {
        // The high nibble of a row's last byte is past an odd K: written 0.
        const Float32 high =
            select(s.col(r, j) * Int64(2) + Int64(1) < k, nibble(r, j, 1), Float32(0.0));
        return nibble(r, j, 0) + high * Float32(16.0);
      }));
      if (!spec.per_row)
        for (int p = 0; p < passes; ++p) {
          const std::size_t u = std::size_t(p);
          const Int64 g = s.segment(p);
          if_(s.segment_lane() == 0 && g < groups, [&] {
            store_one(gp, row * lg + g, stored[u]);
            if (spec.asymmetric)
              store_one(zp, row * lz + g, zero[u]);
            if (spec.correction)
              store_one(cp, row * lc + g, zero[u] * used[u]);
          });
        }
      if (spec.per_row || spec.two_level)
        if_(thread_id() == 0, [&] { store_one(sp, row, spec.per_row ? used[0] : row_scale); });
    });
    return kb.finish();
  };
  runtime::KernelArgs a;
  for (const TensorView* t : {v.x, v.q, v.scale, v.group_scale, v.zeros, v.correction})
    a.ptr(t ? t->device_address : 0);
  a.add<int64_t>(shape.width).add<int64_t>(shape.ld).add<int64_t>(ld_q_bytes);
  a.add<int64_t>(ld_gs).add<int64_t>(ld_z).add<int64_t>(ld_c);
  a.add<int64_t>(spec.per_row ? 1 : (shape.width + spec.group - 1) / spec.group);
  launch(device, key, build, shape.rows, threads, a);
}

} // namespace

void quant_svdquant(runtime::Device& device, const QuantSvdquantArgs& args) {
  const ArgChecker check("quant_svdquant");
  check.dtype_in(args.x, "x", {DType::f16, DType::bf16});
  const int threads = block_size(check, args.block_size);
  check_group_size(check, args.group_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  const int64_t ld_q = packed_codes(check, args.q, DType::int4, args.x, device);
  const int64_t groups = (shape.width + args.group_size - 1) / args.group_size;
  check.same_dtype(args.scale, "scale", args.x, "x");
  const int64_t ld_s =
      per_group(check, args.scale, "scale", {args.x.dtype}, shape.rows, groups, device);
  check.no_overlap(args.q, "q", args.x, "x");
  check.no_overlap(args.scale, "scale", args.x, "x");
  check.no_overlap(args.scale, "scale", args.q, "q");
  if (shape.empty())
    return;
  Int4Spec spec{
      .op = "quant_svdquant", .x = args.x.dtype, .stored = args.x.dtype, .group = args.group_size};
  // The group scales are the `group_scale` of the kernel; it has no row scale.
  launch_int4_quant(device, check, spec, {&args.x, &args.q, nullptr, &args.scale}, threads, ld_q,
                    ld_s, 0, 0);
}

void quant_w4a8(runtime::Device& device, const QuantW4a8Args& args) {
  const ArgChecker check("quant_w4a8");
  check.dtype_in(args.x, "x", {DType::f16, DType::bf16, DType::f32});
  const int threads = block_size(check, args.block_size);
  if (args.mode < 0 || args.mode > 2)
    check.fail_parameter("mode", "is " + std::to_string(args.mode) +
                                     "; expected 0 (per channel), 1 (per group, symmetric) or "
                                     "2 (per group, asymmetric with a zero point)");
  const bool grouped = args.mode != 0, asymmetric = args.mode == 2;
  if (grouped)
    check_group_size(check, args.group_size);
  const Rows shape = rows_of(check, args.x, "x", device);
  const int64_t ld_q =
      packed_codes(check, args.q, asymmetric ? DType::uint4 : DType::int4, args.x, device);
  quant_args::check_per_row_scale(check, args.scale, "scale", shape.rows, device);
  const int64_t groups = grouped ? (shape.width + args.group_size - 1) / args.group_size : 0;
  const std::string mode_text = "mode " + std::to_string(args.mode);
  const auto presence = [&](const std::optional<TensorView>& t, const char* arg, bool wanted,
                            const char* why) {
    if (t.has_value() != wanted)
      check.fail(arg, std::string(t ? "is given" : "is missing") + " with " + mode_text +
                          "; expected it " + why);
  };
  presence(args.group_scale, "group_scale", grouped, "for modes 1 and 2 only");
  presence(args.zeros, "zeros", asymmetric, "for mode 2 only");
  if (args.correction && !asymmetric)
    check.fail("correction", "is given with " + mode_text + "; expected it for mode 2 only");
  int64_t ld_gs = 0, ld_z = 0, ld_c = 0;
  if (grouped)
    ld_gs = per_group(check, *args.group_scale, "group_scale", {DType::e4m3, DType::f32},
                      shape.rows, groups, device);
  if (asymmetric)
    ld_z = per_group(check, *args.zeros, "zeros", {DType::uint8}, shape.rows, groups, device);
  if (args.correction)
    ld_c =
        per_group(check, *args.correction, "correction", {DType::f32}, shape.rows, groups, device);
  std::vector<std::pair<const TensorView*, const char*>> outs = {{&args.q, "q"},
                                                                 {&args.scale, "scale"}};
  if (args.group_scale)
    outs.push_back({&*args.group_scale, "group_scale"});
  if (args.zeros)
    outs.push_back({&*args.zeros, "zeros"});
  if (args.correction)
    outs.push_back({&*args.correction, "correction"});
  for (std::size_t i = 0; i < outs.size(); ++i) {
    check.no_overlap(*outs[i].first, outs[i].second, args.x, "x");
    for (std::size_t j = 0; j < i; ++j)
      check.no_overlap(*outs[i].first, outs[i].second, *outs[j].first, outs[j].second);
  }
  if (shape.empty())
    return;
  Int4Spec spec{.op = "quant_w4a8",
                .x = args.x.dtype,
                .asymmetric = asymmetric,
                .per_row = !grouped,
                .two_level = grouped,
                .stored = grouped ? args.group_scale->dtype : DType::f32,
                .group = grouped ? args.group_size : 0,
                .correction = args.correction.has_value()};
  launch_int4_quant(device, check, spec,
                    {&args.x, &args.q, &args.scale, args.group_scale ? &*args.group_scale : nullptr,
                     args.zeros ? &*args.zeros : nullptr,
                     args.correction ? &*args.correction : nullptr},
                    threads, ld_q, ld_gs, ld_z, ld_c);
}

} // namespace tw::kernels
