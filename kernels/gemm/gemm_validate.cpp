// Argument validation of the GEMM entry points (the rules are in gemm_api.hpp and
// docs/kernels.md). Each check throws ArgumentError before the device is touched.
#include <kernels/gemm/gemm_api.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace tw::kernels {

namespace {

using runtime::Device;

// What every tensor argument needs: well formed, in the launch device's memory, its start
// aligned to its element size.
void check_memory(const ArgChecker& chk, const Device& dev, const TensorView& t,
                  std::string_view arg) {
  chk.well_formed(t, arg);
  chk.on_device(t, arg, dev);
  chk.naturally_aligned(t, arg);
}

// An f32 scale: one element (tensorwise) or `count` elements along one dimension, stored
// contiguously (rowwise). `per` names what each scale belongs to ("row of 'a' (M)").
ScaleGranularity check_scale(const ArgChecker& chk, const Device& dev, const TensorView& t,
                             std::string_view arg, int64_t count, std::string_view per) {
  check_memory(chk, dev, t, arg);
  chk.dtype_in(t, arg, {DType::f32});
  const std::string c = std::to_string(count);
  const auto rule = [&] {
    return "a tensorwise scale (shape [], [1] or [1, 1]) or one scale per " + std::string(per) +
           " = " + c + " (shape [" + c + "], [" + c + ", 1] or [1, " + c + "])";
  };
  if (t.rank() > 2)
    chk.fail(arg, "has rank " + std::to_string(t.rank()) + " (shape " + format_extents(t.shape) +
                      "); expected " + rule());
  int long_dims = 0, long_dim = -1;
  for (int d = 0; d < t.rank(); ++d)
    if (t.shape[d] != 1) {
      ++long_dims;
      long_dim = d;
    }
  if (long_dims == 0)
    return count == 1 ? ScaleGranularity::rowwise : ScaleGranularity::tensorwise;
  if (long_dims > 1 || t.shape[long_dim] != count)
    chk.fail(arg, "has shape " + format_extents(t.shape) + "; expected " + rule());
  if (t.strides[long_dim] != 1)
    chk.fail(arg, "has shape " + describe_layout(t) +
                      "; expected the scales to be contiguous (stride 1 along the dimension of " +
                      c + ")");
  return ScaleGranularity::rowwise;
}

// The output: [M, N], one of `dtypes`, row-major.
// Checks `out` as the problem's [M, N] row-major output and records its dtype in `p`.
void check_out(const ArgChecker& chk, const Device& dev, const TensorView& out, GemmProblem& p,
               std::initializer_list<DType> dtypes, std::string_view why) {
  check_memory(chk, dev, out, "out");
  chk.dtype_in(out, "out", dtypes);
  chk.rank(out, "out", 2);
  chk.shape_is(out, "out", {p.m, p.n}, why);
  chk.order(out, "out", row_major_only);
  p.out_dtype = out.dtype;
}

// Checks the optional [N] bias against `out` and records its presence in `p`.
void check_bias(const ArgChecker& chk, const Device& dev, const std::optional<TensorView>& bias,
                const TensorView& out, GemmProblem& p) {
  p.has_bias = bias.has_value();
  if (!bias)
    return;
  check_memory(chk, dev, *bias, "bias");
  chk.same_dtype(*bias, "bias", out, "out");
  chk.rank(*bias, "bias", 1);
  chk.shape_is(*bias, "bias", {out.shape[1]}, "[N], one per output column");
  chk.contiguous_vector(*bias, "bias");
}

struct NamedInput {
  const TensorView* view;
  std::string_view name;
};

// `out` is written: it must not share memory with any input.
void check_no_overlap(const ArgChecker& chk, const TensorView& out, std::string_view out_arg,
                      std::initializer_list<NamedInput> inputs) {
  for (const NamedInput& in : inputs)
    if (in.view)
      chk.no_overlap(out, out_arg, *in.view, in.name);
}

const TensorView* opt(const std::optional<TensorView>& t) {
  return t ? &*t : nullptr;
}

// The fused kernels write out (and scale_out): neither may overlap an input, nor each other.
void check_fused_overlaps(const ArgChecker& chk, const TensorView& out, NamedInput x,
                          NamedInput weight, NamedInput weight_scale, const ActivationQuant& quant,
                          const std::optional<TensorView>& bias,
                          const std::optional<LoraArgs>& lora) {
  const NamedInput down{lora ? &lora->down : nullptr, "lora.down"};
  const NamedInput up{lora ? &lora->up : nullptr, "lora.up"};
  const NamedInput b{opt(bias), "bias"};
  check_no_overlap(chk, out, "out",
                   {x, weight, {opt(quant.scale), "quant.scale"}, weight_scale, b, down, up});
  if (quant.scale_out) {
    chk.no_overlap(*quant.scale_out, "quant.scale_out", out, "out");
    check_no_overlap(chk, *quant.scale_out, "quant.scale_out",
                     {x, weight, weight_scale, b, down, up});
  }
}

std::string mn_from(const TensorView& a, std::string_view a_name, int m_dim, const TensorView& b,
                    std::string_view b_name, int n_dim) {
  return "[M, N] = [dimension " + std::to_string(m_dim) + " of '" + std::string(a_name) + "' " +
         format_extents(a.shape) + ", dimension " + std::to_string(n_dim) + " of '" +
         std::string(b_name) + "' " + format_extents(b.shape) + "]";
}

// a [M, K] and b [K, N] (GEMM form) with K matched; returns the orders.
void check_gemm_operands(const ArgChecker& chk, const Device& dev, const TensorView& a,
                         const TensorView& b, std::initializer_list<DType> a_dtypes,
                         std::initializer_list<DType> b_dtypes, OrderSet a_orders,
                         OrderSet b_orders, GemmProblem& p) {
  check_memory(chk, dev, a, "a");
  check_memory(chk, dev, b, "b");
  chk.dtype_in(a, "a", a_dtypes);
  chk.dtype_in(b, "b", b_dtypes);
  chk.rank(a, "a", 2);
  chk.rank(b, "b", 2);
  chk.extent_matches(b, "b", 0, "K", a, "a", 1);
  p.a_order = chk.order(a, "a", a_orders);
  p.b_order = chk.order(b, "b", b_orders);
  p.m = a.shape[0];
  p.k = a.shape[1];
  p.n = b.shape[1];
  p.a_dtype = a.dtype;
  p.b_dtype = b.dtype;
}

// x [M, K] activation and weight [N, K] (linear form), both row-major.
void check_linear_operands(const ArgChecker& chk, const Device& dev, const TensorView& x,
                           const TensorView& w, std::initializer_list<DType> x_dtypes,
                           std::initializer_list<DType> w_dtypes, GemmProblem& p) {
  check_memory(chk, dev, x, "x");
  check_memory(chk, dev, w, "weight");
  chk.dtype_in(x, "x", x_dtypes);
  chk.dtype_in(w, "weight", w_dtypes);
  chk.rank(x, "x", 2);
  chk.rank(w, "weight", 2);
  chk.extent_matches(w, "weight", 1, "K", x, "x", 1);
  p.a_order = chk.order(x, "x", row_major_only);
  chk.order(w, "weight", row_major_only);
  p.b_order = MatrixOrder::col_major; // weight [N, K] row-major is b = weight^T column-major
  p.m = x.shape[0];
  p.k = x.shape[1];
  p.n = w.shape[0];
  p.a_dtype = x.dtype;
  p.b_dtype = w.dtype;
}

void check_lora(const ArgChecker& chk, const Device& dev, const std::optional<LoraArgs>& lora,
                const TensorView& x, const TensorView& out, GemmProblem& p) {
  if (!lora)
    return;
  check_memory(chk, dev, lora->down, "lora.down");
  check_memory(chk, dev, lora->up, "lora.up");
  chk.same_dtype(lora->down, "lora.down", x, "x");
  chk.same_dtype(lora->up, "lora.up", x, "x");
  chk.rank(lora->down, "lora.down", 2);
  chk.rank(lora->up, "lora.up", 2);
  chk.extent_matches(lora->down, "lora.down", 1, "K", x, "x", 1);
  chk.extent_matches(lora->up, "lora.up", 0, "N", out, "out", 1);
  chk.extent_matches(lora->up, "lora.up", 1, "R", lora->down, "lora.down", 0);
  if (lora->down.shape[0] < 1)
    chk.fail("lora.down", "has shape " + format_extents(lora->down.shape) +
                              "; expected a LoRA rank R >= 1 (dimension 0)");
  chk.order(lora->down, "lora.down", row_major_only);
  chk.order(lora->up, "lora.up", row_major_only);
  if (!std::isfinite(lora->scale))
    chk.fail_parameter("lora.scale",
                       "is " + std::to_string(lora->scale) + "; expected a finite value");
  // The fused epilogue computes lora.scale * (x / lora.scale + LoRA) (no scratch for a second
  // accumulator): x / lora.scale overflows f32 only when |x| > 3.4e38 * |lora.scale|, which the
  // lower bound keeps beyond 1.8e19.
  const float magnitude = std::fabs(lora->scale);
  if (lora->scale != 0.0f && (magnitude < 0x1p-64f || magnitude > 0x1p64f))
    chk.fail_parameter("lora.scale", "is " + std::to_string(lora->scale) +
                                         "; expected 0 or a magnitude in [2^-64, 2^64] (the "
                                         "fused LoRA epilogue divides the result by it)");
  p.lora_rank = lora->down.shape[0];
}

// The activation quantization of the fused kernels; returns the granularity of s_m.
ScaleGranularity check_act_quant(const ArgChecker& chk, const Device& dev, const ActivationQuant& q,
                                 const TensorView& x, std::initializer_list<DType> q_dtypes) {
  if (std::find(q_dtypes.begin(), q_dtypes.end(), q.dtype) == q_dtypes.end()) {
    std::string names;
    for (DType d : q_dtypes)
      names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
    chk.fail_parameter("quant.dtype", "is " + std::string(dtype_name(q.dtype)) + "; expected " +
                                          (q_dtypes.size() == 1 ? names : "one of " + names));
  }
  if (q.mode == ActQuantMode::given_scale) {
    if (!q.scale)
      chk.fail("quant.scale", "is missing; expected a scale when quant.mode is given_scale");
    if (q.scale_out)
      chk.fail("quant.scale_out", "was given; expected it only when quant.mode is dynamic_rowwise");
    return check_scale(chk, dev, *q.scale, "quant.scale", x.shape[0], "row of 'x' (M)");
  }
  if (q.scale)
    chk.fail("quant.scale", "was given; expected no scale when quant.mode is dynamic_rowwise "
                            "(the kernel computes one per row)");
  if (q.scale_out) {
    check_memory(chk, dev, *q.scale_out, "quant.scale_out");
    chk.dtype_in(*q.scale_out, "quant.scale_out", {DType::f32});
    chk.rank(*q.scale_out, "quant.scale_out", 1);
    chk.shape_is(*q.scale_out, "quant.scale_out", {x.shape[0]}, "[M], one per row of 'x'");
    chk.contiguous_vector(*q.scale_out, "quant.scale_out");
  }
  return ScaleGranularity::rowwise;
}

constexpr std::initializer_list<DType> f16_or_bf16 = {DType::f16, DType::bf16};
constexpr std::initializer_list<DType> fp8_types = {DType::e4m3, DType::e5m2};
constexpr std::initializer_list<DType> float_outputs = {DType::bf16, DType::f16, DType::f32};

} // namespace

GemmProblem validate_gemm(const Device& dev, const GemmArgs& args) {
  const ArgChecker chk("gemm");
  GemmProblem p;
  p.kernel = "gemm";
  check_gemm_operands(chk, dev, args.a, args.b, f16_or_bf16, f16_or_bf16, any_order, any_order, p);
  chk.same_dtype(args.b, "b", args.a, "a");
  check_out(chk, dev, args.out, p, float_outputs, mn_from(args.a, "a", 0, args.b, "b", 1));
  if (!std::isfinite(args.alpha))
    chk.fail_parameter("alpha", "is " + std::to_string(args.alpha) + "; expected a finite value");
  if (!std::isfinite(args.beta))
    chk.fail_parameter("beta", "is " + std::to_string(args.beta) + "; expected a finite value");
  if (args.beta != 0.0f && !args.c)
    chk.fail_parameter("beta", "is " + std::to_string(args.beta) +
                                   " but no 'c' was given; expected a 'c' tensor when beta != 0");
  if (args.c) {
    check_memory(chk, dev, *args.c, "c");
    chk.same_dtype(*args.c, "c", args.out, "out");
    chk.rank(*args.c, "c", 2);
    chk.shape_is(*args.c, "c", {p.m, p.n}, "[M, N], the shape of 'out'");
    chk.order(*args.c, "c", row_major_only);
    p.has_c = args.beta != 0.0f;
  }
  check_bias(chk, dev, args.bias, args.out, p);
  check_no_overlap(chk, args.out, "out",
                   {{&args.a, "a"}, {&args.b, "b"}, {opt(args.bias), "bias"}});
  if (args.c)
    chk.no_overlap(args.out, "out", *args.c, "c", /*allow_same=*/true);
  return p;
}

GemmProblem validate_scaled_mm(const Device& dev, const ScaledMmArgs& args) {
  const ArgChecker chk("scaled_mm");
  GemmProblem p;
  p.kernel = "scaled_mm";
  check_gemm_operands(chk, dev, args.a, args.b, fp8_types, fp8_types, row_major_only,
                      col_major_only, p);
  p.scale_a = check_scale(chk, dev, args.scale_a, "scale_a", p.m, "row of 'a' (M)");
  p.scale_b = check_scale(chk, dev, args.scale_b, "scale_b", p.n, "column of 'b' (N)");
  check_out(chk, dev, args.out, p, float_outputs, mn_from(args.a, "a", 0, args.b, "b", 1));
  check_bias(chk, dev, args.bias, args.out, p);
  check_no_overlap(chk, args.out, "out",
                   {{&args.a, "a"},
                    {&args.b, "b"},
                    {&args.scale_a, "scale_a"},
                    {&args.scale_b, "scale_b"},
                    {opt(args.bias), "bias"}});
  return p;
}

GemmProblem validate_scaled_mm_fused_quant(const Device& dev, const ScaledMmFusedQuantArgs& args) {
  const ArgChecker chk("scaled_mm_fused_quant");
  GemmProblem p;
  p.kernel = "scaled_mm_fused_quant";
  check_memory(chk, dev, args.x, "x");
  chk.dtype_in(args.x, "x", f16_or_bf16);
  chk.rank(args.x, "x", 2);
  check_memory(chk, dev, args.b, "b");
  chk.dtype_in(args.b, "b", fp8_types);
  chk.rank(args.b, "b", 2);
  chk.extent_matches(args.b, "b", 0, "K", args.x, "x", 1);
  p.a_order = chk.order(args.x, "x", row_major_only);
  p.b_order = chk.order(args.b, "b", col_major_only);
  p.m = args.x.shape[0];
  p.k = args.x.shape[1];
  p.n = args.b.shape[1];
  p.a_dtype = args.quant.dtype;
  p.b_dtype = args.b.dtype;
  p.scale_a = check_act_quant(chk, dev, args.quant, args.x, fp8_types);
  p.scale_b = check_scale(chk, dev, args.scale_b, "scale_b", p.n, "column of 'b' (N)");
  check_out(chk, dev, args.out, p, float_outputs, mn_from(args.x, "x", 0, args.b, "b", 1));
  check_bias(chk, dev, args.bias, args.out, p);
  check_lora(chk, dev, args.lora, args.x, args.out, p);
  check_fused_overlaps(chk, args.out, {&args.x, "x"}, {&args.b, "b"}, {&args.scale_b, "scale_b"},
                       args.quant, args.bias, args.lora);
  return p;
}

std::vector<GemmProblem> validate_scaled_mm_multi(const Device& dev,
                                                  const ScaledMmMultiArgs& args) {
  std::vector<GemmProblem> problems;
  // The granularity of each scale for the whole launch, and the problem that decided it.
  struct Decided {
    std::optional<ScaleGranularity> granularity;
    size_t problem = 0;
  };
  Decided decided_a, decided_b;
  for (size_t i = 0; i < args.problems.size(); ++i) {
    const std::string where = "scaled_mm_multi: problem " + std::to_string(i);
    GemmProblem p;
    try {
      p = validate_scaled_mm(dev, args.problems[i]);
    } catch (const ArgumentError& e) {
      // Re-prefix: "scaled_mm: argument ..." -> "scaled_mm_multi: problem i: argument ...".
      const std::string msg = e.what();
      const std::string_view own = "scaled_mm: ";
      throw ArgumentError(where + ": " + (msg.rfind(own, 0) == 0 ? msg.substr(own.size()) : msg));
    }
    p.kernel = "scaled_mm_multi";
    {
      // A one-element scale of a problem with one row (or none) reads the same under both
      // granularities: only problems with more decide, and they must agree.
      const ArgChecker chk(where);
      const auto gran = [](std::optional<ScaleGranularity> g) {
        return std::string(g == ScaleGranularity::tensorwise ? "tensorwise" : "rowwise");
      };
      const auto agree = [&](Decided& d, std::optional<ScaleGranularity> g, int64_t count,
                             std::string_view name) {
        if (count <= 1)
          return;
        if (!d.granularity)
          d = {g, i};
        else if (g != d.granularity)
          chk.fail(name, "is " + gran(g) + "; expected " + gran(d.granularity) + " like problem " +
                             std::to_string(d.problem) + ": one launch runs one kernel");
      };
      agree(decided_a, p.scale_a, p.m, "scale_a");
      agree(decided_b, p.scale_b, p.n, "scale_b");
    }
    if (!problems.empty()) {
      const GemmProblem& first = problems.front();
      const ScaledMmArgs& a0 = args.problems.front();
      const ScaledMmArgs& ai = args.problems[i];
      const ArgChecker chk(where);
      // One launch runs every problem with one compiled kernel: what changes the code must
      // agree with problem 0.
      const auto same = [&](const TensorView& t, std::string_view name, const TensorView& t0) {
        if (t.dtype != t0.dtype)
          chk.fail(name, "has dtype " + std::string(dtype_name(t.dtype)) +
                             "; expected the dtype of '" + std::string(name) + "' in problem 0 (" +
                             std::string(dtype_name(t0.dtype)) + "): one launch runs one kernel");
      };
      same(ai.a, "a", a0.a);
      same(ai.b, "b", a0.b);
      same(ai.out, "out", a0.out);
      if (p.has_bias != first.has_bias)
        chk.fail("bias", std::string(p.has_bias ? "was given" : "is missing") + "; expected " +
                             (first.has_bias ? "a bias in every problem, as problem 0 has one"
                                             : "no bias, as problem 0 has none") +
                             ": one launch runs one kernel");
    }
    problems.push_back(p);
  }
  // Every problem reports the launch's granularity (the undecided ones read alike either way).
  for (GemmProblem& p : problems) {
    if (decided_a.granularity)
      p.scale_a = decided_a.granularity;
    if (decided_b.granularity)
      p.scale_b = decided_b.granularity;
  }
  // Problems write disjoint outputs (they run concurrently).
  for (size_t i = 0; i < args.problems.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      ArgChecker("scaled_mm_multi: problem " + std::to_string(i))
          .no_overlap(args.problems[i].out, "out", args.problems[j].out,
                      "out of problem " + std::to_string(j));
  return problems;
}

GemmProblem validate_w8a16(const Device& dev, const W8A16Args& args) {
  const ArgChecker chk("w8a16");
  GemmProblem p;
  p.kernel = "w8a16";
  check_linear_operands(chk, dev, args.x, args.weight, f16_or_bf16, {DType::int8}, p);
  if (check_scale(chk, dev, args.scale, "scale", p.n, "output channel, row of 'weight' (N)") ==
          ScaleGranularity::tensorwise &&
      p.n != 1)
    chk.fail("scale", "has shape " + format_extents(args.scale.shape) +
                          "; expected one scale per output channel (shape [" + std::to_string(p.n) +
                          "]): w8a16 scales are per channel");
  p.scale_b = ScaleGranularity::rowwise;
  check_out(chk, dev, args.out, p, {args.x.dtype},
            mn_from(args.x, "x", 0, args.weight, "weight", 0) + ", the dtype of 'x'");
  check_bias(chk, dev, args.bias, args.out, p);
  check_no_overlap(
      chk, args.out, "out",
      {{&args.x, "x"}, {&args.weight, "weight"}, {&args.scale, "scale"}, {opt(args.bias), "bias"}});
  return p;
}

GemmProblem validate_int8_linear(const Device& dev, const Int8LinearArgs& args) {
  const ArgChecker chk("int8_linear");
  GemmProblem p;
  p.kernel = "int8_linear";
  check_linear_operands(chk, dev, args.x, args.weight, {DType::int8}, {DType::int8}, p);
  p.scale_a = check_scale(chk, dev, args.x_scale, "x_scale", p.m, "row of 'x' (M)");
  p.scale_b = check_scale(chk, dev, args.w_scale, "w_scale", p.n, "row of 'weight' (N)");
  check_out(chk, dev, args.out, p, float_outputs,
            mn_from(args.x, "x", 0, args.weight, "weight", 0));
  check_bias(chk, dev, args.bias, args.out, p);
  check_no_overlap(chk, args.out, "out",
                   {{&args.x, "x"},
                    {&args.weight, "weight"},
                    {&args.x_scale, "x_scale"},
                    {&args.w_scale, "w_scale"},
                    {opt(args.bias), "bias"}});
  return p;
}

GemmProblem validate_int8_linear_fused(const Device& dev, const Int8LinearFusedArgs& args) {
  const ArgChecker chk("int8_linear_fused");
  GemmProblem p;
  p.kernel = "int8_linear_fused";
  check_linear_operands(chk, dev, args.x, args.weight, f16_or_bf16, {DType::int8}, p);
  p.a_dtype = DType::int8;
  p.scale_a = check_act_quant(chk, dev, args.quant, args.x, {DType::int8});
  p.scale_b = check_scale(chk, dev, args.w_scale, "w_scale", p.n, "row of 'weight' (N)");
  check_out(chk, dev, args.out, p, float_outputs,
            mn_from(args.x, "x", 0, args.weight, "weight", 0));
  check_bias(chk, dev, args.bias, args.out, p);
  check_lora(chk, dev, args.lora, args.x, args.out, p);
  check_fused_overlaps(chk, args.out, {&args.x, "x"}, {&args.weight, "weight"},
                       {&args.w_scale, "w_scale"}, args.quant, args.bias, args.lora);
  return p;
}

GemmProblem validate_iu4_gemm(const Device& dev, const Iu4GemmArgs& args) {
  const ArgChecker chk("iu4_gemm");
  GemmProblem p;
  p.kernel = "iu4_gemm";
  const std::initializer_list<DType> int4_types = {DType::int4, DType::uint4};
  check_gemm_operands(chk, dev, args.a, args.b, int4_types, int4_types, row_major_only,
                      col_major_only, p);
  check_out(chk, dev, args.out, p, {DType::i32}, mn_from(args.a, "a", 0, args.b, "b", 1));
  check_no_overlap(chk, args.out, "out", {{&args.a, "a"}, {&args.b, "b"}});
  return p;
}

GemmProblem validate_mxfp8_gemm(const Device& dev, const Mxfp8GemmArgs& args) {
  const ArgChecker chk("mxfp8_gemm");
  GemmProblem p;
  p.kernel = "mxfp8_gemm";
  check_gemm_operands(chk, dev, args.a, args.b, fp8_types, fp8_types, row_major_only,
                      col_major_only, p);
  const int64_t blocks = (p.k + mx_block_size - 1) / mx_block_size;
  const std::string bl = "ceil(K / 32) = " + std::to_string(blocks);
  check_memory(chk, dev, args.scale_a, "scale_a");
  chk.dtype_in(args.scale_a, "scale_a", {DType::e8m0});
  chk.rank(args.scale_a, "scale_a", 2);
  chk.shape_is(args.scale_a, "scale_a", {p.m, blocks},
               "[M, " + bl + "]: one scale per row and 32-element K block");
  chk.order(args.scale_a, "scale_a", row_major_only);
  check_memory(chk, dev, args.scale_b, "scale_b");
  chk.dtype_in(args.scale_b, "scale_b", {DType::e8m0});
  chk.rank(args.scale_b, "scale_b", 2);
  chk.shape_is(args.scale_b, "scale_b", {p.n, blocks},
               "[N, " + bl + "]: one scale per column of 'b' and 32-element K block");
  chk.order(args.scale_b, "scale_b", row_major_only);
  p.scale_a = p.scale_b = ScaleGranularity::rowwise;
  check_out(chk, dev, args.out, p, float_outputs, mn_from(args.a, "a", 0, args.b, "b", 1));
  check_bias(chk, dev, args.bias, args.out, p);
  check_no_overlap(chk, args.out, "out",
                   {{&args.a, "a"},
                    {&args.b, "b"},
                    {&args.scale_a, "scale_a"},
                    {&args.scale_b, "scale_b"},
                    {opt(args.bias), "bias"}});
  return p;
}

} // namespace tw::kernels
