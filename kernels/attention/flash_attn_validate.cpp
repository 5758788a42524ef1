// Argument validation of flash attention (the rules are in flash_attn_api.hpp and
// docs/kernels.md "Attention"). Every rule is one check with one sentence; everything is
// checked before the device is touched (the varlen offsets are read back, never written).
#include <kernels/attention/attn_validate_parts.hpp>
#include <kernels/attention/flash_attn_query_tile.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace tw::kernels {

namespace attn_validate {

using runtime::Device;

// What every tensor argument needs: well formed, in the launch device's memory, its start
// aligned to its element size.
void check_memory(const ArgChecker& chk, const Device& dev, const TensorView& t,
                  std::string_view arg) {
  chk.well_formed(t, arg);
  chk.on_device(t, arg, dev);
  chk.naturally_aligned(t, arg);
}

// The last (head) dimension has stride 1, so a head row is one contiguous run.
void check_last_contiguous(const ArgChecker& chk, const TensorView& t, std::string_view arg,
                           std::string_view what) {
  if (t.shape.back() > 1 && t.strides.back() != 1)
    chk.fail(arg, "has layout " + describe_layout(t) + "; expected the " + std::string(what) +
                      " (last dimension) to be contiguous (stride 1)");
}

void check_heads(const ArgChecker& chk, const FlashAttnArgs& args, int head, int64_t hkv,
                 bool varlen, FlashAttnProblem& p) {
  const int64_t hq = args.q.shape[size_t(head)];
  const int64_t d = args.q.shape.back(), dv = args.v.shape.back();
  Extents out_shape = args.q.shape;
  out_shape.back() = dv;
  chk.shape_is(args.out, "out", out_shape,
               varlen ? "[Tq, Hq, Dv] from 'q' and 'v'" : "[B, Sq, Hq, Dv] from 'q' and 'v'");
  if (d < 1 || d > max_head_dim)
    chk.fail("q", "has head dim D = " + std::to_string(d) +
                      "; expected 1 <= D <= " + std::to_string(max_head_dim));
  if (dv < 1 || dv > max_head_dim)
    chk.fail("v", "has value head dim Dv = " + std::to_string(dv) +
                      "; expected 1 <= Dv <= " + std::to_string(max_head_dim));
  if (hkv < 1 || hq % hkv != 0)
    chk.fail("k", "has " + std::to_string(hkv) + " kv heads and 'q' " + std::to_string(hq) +
                      " heads; expected a kv head count >= 1 that divides the query heads (GQA)");
  check_last_contiguous(chk, args.q, "q", "head dim");
  check_last_contiguous(chk, args.k, "k", "head dim");
  check_last_contiguous(chk, args.v, "v", "value head dim");
  check_last_contiguous(chk, args.out, "out", "value head dim");
  p.heads_q = hq;
  p.heads_kv = hkv;
  p.head_dim = d;
  p.head_dim_v = dv;
}

void check_finite(const ArgChecker& chk, std::string_view param, float x) {
  if (!std::isfinite(x))
    chk.fail_parameter(param, "is " + std::to_string(x) + "; expected a finite value");
}

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// One int32 offsets vector [B + 1] of a varlen problem, read back from the device and
// checked: starts at 0, non-decreasing, ends at most at `tokens` (the packed length of
// `packed`), no sequence longer than `max_len` (the parameter `max_name`). Returns the
// lengths.
std::vector<int64_t> check_offsets(const ArgChecker& chk, Device& dev, const TensorView& cu,
                                   std::string_view arg, int64_t tokens, std::string_view packed,
                                   int64_t max_len, std::string_view max_name) {
  std::vector<int32_t> offsets(size_t(cu.shape[0]));
  if (!offsets.empty())
    dev.copy_to_host(offsets.data(), cu.device_address, offsets.size() * sizeof(int32_t));
  if (offsets[0] != 0)
    chk.fail(arg, "starts at " + std::to_string(offsets[0]) + "; expected offsets starting at 0");
  std::vector<int64_t> lengths;
  for (size_t b = 0; b + 1 < offsets.size(); ++b) {
    const int64_t len = int64_t(offsets[b + 1]) - offsets[b];
    const std::string where = "has " + std::to_string(offsets[b + 1]) + " at index " +
                              std::to_string(b + 1) + " after " + std::to_string(offsets[b]);
    if (len < 0)
      chk.fail(arg, where + "; expected non-decreasing offsets");
    if (len > max_len)
      chk.fail(arg, where + " (a sequence of " + std::to_string(len) + "); expected lengths <= " +
                        std::string(max_name) + " = " + std::to_string(max_len));
    lengths.push_back(len);
  }
  if (offsets.back() > tokens)
    chk.fail(arg, "ends at " + std::to_string(offsets.back()) + "; expected at most the " +
                      std::to_string(tokens) + " tokens of '" + std::string(packed) + "'");
  return lengths;
}

struct NamedInput {
  const TensorView* view;
  std::string_view name;
};

const TensorView* opt(const std::optional<TensorView>& t) {
  return t ? &*t : nullptr;
}

// The options after the tensors (p's dtype, varlen, batch, lengths, heads and head dims are
// set): scalars, bias / mask, ALiBi, lse, split count. Shared with validate_paged_attn.
void validate_attn_options(const ArgChecker& chk, const Device& device, const FlashAttnArgs& args,
                           FlashAttnProblem& p) {
  const int64_t d = p.head_dim, hq = p.heads_q;
  // -- scalar options
  check_finite(chk, "sm_scale", args.sm_scale);
  if (args.sm_scale < 0.0f)
    chk.fail_parameter("sm_scale",
                       "is " + num(args.sm_scale) + "; expected a scale > 0, or 0 for 1 / sqrt(D)");
  p.sm_scale = args.sm_scale != 0.0f ? args.sm_scale : 1.0f / std::sqrt(float(d));
  for (const auto& [value, name] :
       {std::pair{args.window_left, "window_left"}, std::pair{args.window_right, "window_right"}})
    if (value < -1)
      chk.fail_parameter(name, "is " + std::to_string(value) +
                                   "; expected a key count >= 0, or -1 for no bound on that side");
  if (args.causal && args.window_right > 0)
    chk.fail_parameter("window_right",
                       "is " + std::to_string(args.window_right) +
                           " with causal; expected -1 or 0 (causal bounds the right side at 0)");
  p.causal = args.causal;
  p.window_left = args.window_left;
  p.window_right = args.window_right;

  check_finite(chk, "softcap", args.softcap);
  if (args.softcap < 0.0f)
    chk.fail_parameter("softcap",
                       "is " + num(args.softcap) + "; expected a cap > 0, or 0 for no softcap");
  p.softcap = args.softcap;

  if (!(args.dropout_p >= 0.0f && args.dropout_p < 1.0f))
    chk.fail_parameter("dropout_p", "is " + num(args.dropout_p) +
                                        "; expected a probability in [0, 1) (0 = no dropout)");
  p.dropout_p = args.dropout_p;

  const bool quantized = is_fp8(p.dtype) || p.dtype == DType::int8;
  for (const auto& [value, name] :
       {std::pair{args.q_descale, "q_descale"}, std::pair{args.k_descale, "k_descale"},
        std::pair{args.v_descale, "v_descale"}}) {
    check_finite(chk, name, value);
    if (!quantized && value != 1.0f)
      chk.fail_parameter(name, "is " + num(value) + " with " + std::string(dtype_name(p.dtype)) +
                                   " inputs; expected 1 (descales apply to fp8 / int8 inputs)");
    if (value <= 0.0f)
      chk.fail_parameter(name, "is " + num(value) + "; expected a descale > 0");
  }

  // -- bias / mask
  if (args.bias.has_value() != (args.bias_kind != AttnBiasKind::none))
    chk.fail(args.bias ? "bias_kind" : "bias",
             args.bias ? "is none while 'bias' is given; expected additive or bool_mask"
                       : "is missing while bias_kind is not none; expected a bias or mask tensor");
  if (args.bias) {
    const TensorView& b = *args.bias;
    check_memory(chk, device, b, "bias");
    if (p.varlen)
      chk.fail("bias", "is given with cu_seqlens; expected no bias or mask in varlen (dense only)");
    if (args.bias_kind == AttnBiasKind::additive)
      chk.dtype_in(b, "bias", {DType::f32, DType::f16, DType::bf16});
    else
      chk.dtype_in(b, "bias", {DType::uint8, DType::int8});
    const Extents shared{p.seqlen_q, p.seqlen_k}, per_head{hq, p.seqlen_q, p.seqlen_k};
    if (b.shape != shared && b.shape != per_head)
      chk.fail("bias", "has shape " + format_extents(b.shape) +
                           "; expected [Sq, Sk] = " + format_extents(shared) +
                           " (shared by the heads) or [Hq, Sq, Sk] = " + format_extents(per_head) +
                           " (per head)");
    check_last_contiguous(chk, b, "bias", "key");
    p.bias_kind = args.bias_kind;
    p.bias_per_head = b.rank() == 3;
  }

  // -- ALiBi
  if (args.alibi_slope && args.alibi_slopes)
    chk.fail("alibi_slopes", "is given together with alibi_slope; expected one scalar slope or "
                             "per-head slopes, not both");
  if (args.alibi_slope) {
    check_finite(chk, "alibi_slope", *args.alibi_slope);
    p.alibi = FlashAttnProblem::Alibi::scalar;
  }
  if (args.alibi_slopes) {
    const TensorView& s = *args.alibi_slopes;
    check_memory(chk, device, s, "alibi_slopes");
    chk.dtype_in(s, "alibi_slopes", {DType::f32});
    chk.rank(s, "alibi_slopes", 1);
    chk.shape_is(s, "alibi_slopes", {hq}, "[Hq], one slope per query head");
    chk.contiguous_vector(s, "alibi_slopes");
    p.alibi = FlashAttnProblem::Alibi::per_head;
  }

  // -- lse
  if (args.lse) {
    const TensorView& l = *args.lse;
    check_memory(chk, device, l, "lse");
    chk.dtype_in(l, "lse", {DType::f32});
    if (p.varlen)
      chk.shape_is(l, "lse", {hq, args.q.shape[0]}, "[Hq, Tq] from 'q'");
    else
      chk.shape_is(l, "lse", {p.batch, hq, p.seqlen_q}, "[B, Hq, Sq] from 'q'");
    check_last_contiguous(chk, l, "lse", "query");
    p.return_lse = true;
  }

  // -- split-KV
  if (args.num_splits < 0)
    chk.fail_parameter("num_splits", "is " + std::to_string(args.num_splits) +
                                         "; expected 0 (the host picks), 1 (no split) or a "
                                         "split count > 1");
  p.num_splits = args.num_splits;

  // -- query tile
  if (args.query_tile != 0 && args.query_tile != 64 && args.query_tile != 128)
    chk.fail_parameter("query_tile",
                       "is " + std::to_string(args.query_tile) +
                           "; expected 0 (the host picks: " + std::string(default_query_tile_rule) +
                           "), 64 or 128 query rows per workgroup");
  p.query_tile = args.query_tile == 0 ? default_query_tile(p) : args.query_tile;
}

} // namespace attn_validate

using namespace attn_validate;

FlashAttnProblem validate_flash_attn(const Device& device, const FlashAttnArgs& args) {
  const ArgChecker chk("flash_attn");
  // The offsets are read back (copy_to_host); validation writes and launches nothing.
  Device& dev = const_cast<Device&>(device);
  FlashAttnProblem p;

  // -- memory and dtypes of q, k, v, out
  for (const NamedInput& in : {NamedInput{&args.q, "q"}, NamedInput{&args.k, "k"},
                               NamedInput{&args.v, "v"}, NamedInput{&args.out, "out"}})
    check_memory(chk, device, *in.view, in.name);
  chk.dtype_in(args.q, "q", {DType::bf16, DType::f16, DType::e4m3, DType::e5m2, DType::int8});
  chk.same_dtype(args.k, "k", args.q, "q");
  chk.same_dtype(args.v, "v", args.q, "q");
  chk.dtype_in(args.out, "out", {DType::bf16, DType::f16});
  p.dtype = args.q.dtype;
  p.out_dtype = args.out.dtype;

  // -- dense or varlen, ranks
  if (args.cu_seqlens_q.has_value() != args.cu_seqlens_k.has_value())
    chk.fail(args.cu_seqlens_q ? "cu_seqlens_k" : "cu_seqlens_q",
             "is missing; expected both cu_seqlens_q and cu_seqlens_k (varlen) or neither (dense)");
  p.varlen = args.cu_seqlens_q.has_value();
  const int rank = p.varlen ? 3 : 4;
  const int tok = p.varlen ? 0 : 1;  // dimension of the token (sequence position)
  const int head = p.varlen ? 1 : 2; // dimension of the head
  chk.rank(args.q, "q", rank);
  chk.rank(args.k, "k", rank);
  chk.rank(args.v, "v", rank);
  chk.rank(args.out, "out", rank);

  // -- shapes against each other
  if (!p.varlen)
    chk.extent_matches(args.k, "k", 0, "B", args.q, "q", 0);
  chk.extent_matches(args.k, "k", rank - 1, "D", args.q, "q", rank - 1);
  for (int d = 0; d < rank - 1; ++d)
    chk.extent_matches(args.v, "v", d, d == tok ? "Sk" : d == head ? "Hkv" : "B", args.k, "k", d);
  check_heads(chk, args, head, args.k.shape[size_t(head)], p.varlen, p);

  // -- varlen offsets, or the dense sizes
  if (p.varlen) {
    const TensorView& cq = *args.cu_seqlens_q;
    const TensorView& ck = *args.cu_seqlens_k;
    for (const NamedInput& in :
         {NamedInput{&cq, "cu_seqlens_q"}, NamedInput{&ck, "cu_seqlens_k"}}) {
      check_memory(chk, device, *in.view, in.name);
      chk.dtype_in(*in.view, in.name, {DType::i32});
      chk.rank(*in.view, in.name, 1);
      if (in.view->shape[0] < 1)
        chk.fail(in.name, "has shape " + format_extents(in.view->shape) +
                              "; expected [B + 1] offsets (at least the leading 0)");
      chk.contiguous_vector(*in.view, in.name);
    }
    chk.extent_matches(ck, "cu_seqlens_k", 0, "B + 1", cq, "cu_seqlens_q", 0);
    if (args.max_seqlen_q < 0)
      chk.fail_parameter("max_seqlen_q", "is " + std::to_string(args.max_seqlen_q) +
                                             "; expected the longest query sequence (>= 0)");
    if (args.max_seqlen_k < 0)
      chk.fail_parameter("max_seqlen_k", "is " + std::to_string(args.max_seqlen_k) +
                                             "; expected the longest key sequence (>= 0)");
    check_offsets(chk, dev, cq, "cu_seqlens_q", args.q.shape[0], "q", args.max_seqlen_q,
                  "max_seqlen_q");
    check_offsets(chk, dev, ck, "cu_seqlens_k", args.k.shape[0], "k", args.max_seqlen_k,
                  "max_seqlen_k");
    p.batch = cq.shape[0] - 1;
    p.seqlen_q = args.max_seqlen_q;
    p.seqlen_k = args.max_seqlen_k;
  } else {
    for (const auto& [value, name] : {std::pair{args.max_seqlen_q, "max_seqlen_q"},
                                      std::pair{args.max_seqlen_k, "max_seqlen_k"}})
      if (value != 0)
        chk.fail_parameter(name, "is " + std::to_string(value) +
                                     " for a dense problem; expected 0 (a varlen parameter, used "
                                     "with cu_seqlens_q / cu_seqlens_k)");
    p.batch = args.q.shape[0];
    p.seqlen_q = args.q.shape[1];
    p.seqlen_k = args.k.shape[1];
  }

  validate_attn_options(chk, device, args, p);

  // -- outputs overlap no input, nor each other
  const std::initializer_list<NamedInput> inputs = {{&args.q, "q"},
                                                    {&args.k, "k"},
                                                    {&args.v, "v"},
                                                    {opt(args.bias), "bias"},
                                                    {opt(args.alibi_slopes), "alibi_slopes"},
                                                    {opt(args.cu_seqlens_q), "cu_seqlens_q"},
                                                    {opt(args.cu_seqlens_k), "cu_seqlens_k"}};
  for (const NamedInput& in : inputs)
    if (in.view) {
      chk.no_overlap(args.out, "out", *in.view, in.name);
      if (args.lse)
        chk.no_overlap(*args.lse, "lse", *in.view, in.name);
    }
  if (args.lse)
    chk.no_overlap(*args.lse, "lse", args.out, "out");
  return p;
}

} // namespace tw::kernels
