// Quant QK-norm (qk_norm_quant_api.hpp): the row skeleton over each (token, head), the head held
// as two slices (the columns before the RoPE tail, and the tail's pairs); RMSNorm, the RoPE
// block and the shared quantization rules on the registers; one launch for q, one for k.
#include <kernels/attention/qk_norm_quant_api.hpp>
#include <kernels/attention/qk_norm_quant_kernel.hpp>
#include <kernels/elementwise/launch.hpp>
#include <kernels/elementwise/rope_block.hpp>
#include <kernels/elementwise/row_skeleton.hpp>
#include <kernels/quant/quant_rules.hpp>

#include <cmath>

namespace tw::kernels {

using namespace elementwise;

namespace {

inline constexpr int64_t max_heads = 512;

// One of q / k: its tensors and head count.
struct Side {
  const char* name; // "q" or "k"
  const TensorView* x;
  const TensorView* weight;
  const TensorView* out;
  const TensorView* scale;
  int64_t heads = 0;
};

int64_t validate_side(const ArgChecker& check, const runtime::Device& device, const Side& s,
                      const QkNormQuantArgs& a, int64_t tokens) {
  const std::string n = s.name;
  const Rows r = rows_of(check, *s.x, n, device);
  if (s.x->rank() != 2)
    check.fail(n,
               "has shape " + format_extents(s.x->shape) + "; expected [tokens, heads * head_dim]");
  if (r.rows != tokens)
    check.fail(n, "has " + std::to_string(r.rows) + " tokens; expected " + std::to_string(tokens) +
                      " (the tokens of 'q')");
  if (r.width % a.head_dim != 0)
    check.fail(n, "has rows of " + std::to_string(r.width) +
                      " elements; expected a multiple of head_dim " + std::to_string(a.head_dim) +
                      " (heads * head_dim)");
  const int64_t heads = r.width / a.head_dim;
  if (heads < 1 || heads > max_heads)
    check.fail(n, "has " + std::to_string(heads) + " heads; expected 1 to " +
                      std::to_string(max_heads));
  check.same_dtype(*s.weight, n + "_weight", a.q, "q");
  row_vector(check, *s.weight, n + "_weight", a.head_dim, device);
  check.dtype_in(*s.out, n + "_out", {DType::int8, DType::e4m3, DType::e5m2});
  rows_of(check, *s.out, n + "_out", device);
  same_shape(check, *s.out, n + "_out", *s.x, n);
  check.well_formed(*s.scale, n + "_scale");
  check.dtype_in(*s.scale, n + "_scale", {DType::f32});
  check.shape_is(*s.scale, n + "_scale", {tokens, heads}, "[tokens, heads] (one scale per head)");
  if (!s.scale->empty()) {
    if (s.scale->strides[1] != 1 || (tokens > 1 && s.scale->strides[0] != heads))
      check.fail(n + "_scale",
                 "has layout " + describe_layout(*s.scale) + "; expected contiguous scales");
    check.on_device(*s.scale, n + "_scale", device);
  }
  check.naturally_aligned(*s.scale, n + "_scale");
  check.no_overlap(*s.out, n + "_out", *s.x, n);
  check.no_overlap(*s.out, n + "_out", *s.weight, n + "_weight");
  check.no_overlap(*s.scale, n + "_scale", *s.x, n);
  check.no_overlap(*s.scale, n + "_scale", *s.out, n + "_out");
  return heads;
}

void launch_side(runtime::Device& device, const ArgChecker& check, const Side& s,
                 const QkNormQuantArgs& a, const RopeParams& rope, int64_t max_pos, int threads) {
  const Rows shape = rows_of(check, *s.x, s.name, device);
  if (shape.empty())
    return;
  const int64_t d = a.head_dim, r = rope.head_dim, nope = d - r, half = r / 2;
  const int pc = rope.style == RopeStyle::interleaved ? 2 : 1;
  std::vector<int64_t> starts = {d, half}; // run starts: head * d, nope (+ half), columns
  if (nope > 0)
    starts.push_back(nope);
  std::vector<RunAlignment> al;
  for (const TensorView* t : {s.x, s.out}) {
    std::vector<int64_t> st = starts;
    st.push_back(row_stride(*t));
    al.push_back({t->dtype, t->address(), st, pc});
  }
  al.push_back({s.weight->dtype, s.weight->address(), starts, pc});
  if (rope.cos) {
    al.push_back({rope.cos->dtype, rope.cos->address(), {half}, 1});
    al.push_back({rope.sin->dtype, rope.sin->address(), {half}, 1});
  }
  const int vec = access_vec_runs(al);
  namespace qk = qk_norm_quant_kernel;
  const qk::QkNormQuantKernelSpec spec =
      qk::make_spec(s.x->dtype, s.out->dtype, rope.style, rope.positions.has_value(),
                    rope.cos ? std::optional(rope.cos->dtype) : std::nullopt, d, r, vec, threads);
  runtime::KernelArgs ka;
  ka.ptr(s.x->device_address).ptr(s.out->device_address).ptr(s.weight->device_address);
  ka.ptr(s.scale->device_address);
  ka.add<int64_t>(row_stride(*s.x)).add<int64_t>(row_stride(*s.out)).add<int64_t>(d);
  ka.add<int64_t>(nope).add<float>(a.eps);
  add_rope_args(ka, rope, max_pos, s.heads);
  launch(
      device, spec.name(), [&] { return qk::build_qk_norm_quant_kernel(spec); },
      shape.rows * s.heads, threads, ka);
}

} // namespace

void qk_norm_quant(runtime::Device& device, const QkNormQuantArgs& args) {
  const ArgChecker check("qk_norm_quant");
  const int threads = block_size(check, args.block_size);
  check.dtype_in(args.q, "q", {DType::f16, DType::bf16, DType::f32});
  check.same_dtype(args.k, "k", args.q, "q");
  if (args.head_dim < 2 || args.head_dim > int64_t(threads) * row_register_budget)
    check.fail_parameter("head_dim", "is " + std::to_string(args.head_dim) + "; expected 2 to " +
                                         std::to_string(int64_t(threads) * row_register_budget) +
                                         " (one head per workgroup of " + std::to_string(threads) +
                                         " threads)");
  RopeParams rope = args.rope;
  if (rope.head_dim == 0)
    rope.head_dim = args.head_dim;
  if (rope.head_dim < 2 || rope.head_dim % 2 != 0 || rope.head_dim > args.head_dim)
    check.fail_parameter("rope.head_dim", "is " + std::to_string(args.rope.head_dim) +
                                              "; expected 0 (the whole head) or an even tail "
                                              "width from 2 to head_dim " +
                                              std::to_string(args.head_dim));
  check.well_formed(args.q, "q");
  const int64_t tokens = args.q.rank() == 2 ? args.q.shape[0] : 0;
  const Side q{"q", &args.q, &args.q_weight, &args.q_out, &args.q_scale};
  const Side k{"k", &args.k, &args.k_weight, &args.k_out, &args.k_scale};
  Side sides[2] = {q, k};
  for (Side& s : sides)
    s.heads = validate_side(check, device, s, args, tokens);
  check.same_dtype(args.k_out, "k_out", args.q_out, "q_out");
  if (!(args.eps >= 0.0f) || !std::isfinite(args.eps))
    check.fail_parameter("eps", "is " + std::to_string(args.eps) + "; expected a finite eps >= 0");
  const int64_t max_pos = validate_rope_params(check, device, rope, tokens);
  for (const TensorView* o : {&args.q_out, &args.q_scale})
    for (const auto& [in, name] : {std::pair{&args.k, "k"}, std::pair{&args.k_weight, "k_weight"}})
      check.no_overlap(*o, o == &args.q_out ? "q_out" : "q_scale", *in, name);
  for (const TensorView* o : {&args.k_out, &args.k_scale})
    for (const auto& [in, name] : {std::pair{&args.q, "q"}, std::pair{&args.q_out, "q_out"},
                                   std::pair{&args.q_scale, "q_scale"}})
      check.no_overlap(*o, o == &args.k_out ? "k_out" : "k_scale", *in, name);
  for (const Side& s : sides)
    launch_side(device, check, s, args, rope, max_pos, threads);
}

} // namespace tw::kernels
