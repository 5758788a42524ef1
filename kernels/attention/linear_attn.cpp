// linear_attn: validation of every argument, then one launch of the linear attention
// composition (linear_attn_kernel.hpp) over (value-column tiles, query heads, batch).
#include <kernels/attention/attn_validate_parts.hpp>
#include <kernels/attention/linear_attn_api.hpp>
#include <kernels/attention/linear_attn_kernel.hpp>
#include <kernels/common/compile_traced.hpp>
#include <kernels/common/rows_aligned.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>
#include <runtime/kernel_args.hpp>

#include <cmath>

namespace tw::kernels {

namespace {

inline constexpr int64_t max_head_dim = 256;

// A [B, S, H, D] (varlen [T, H, D]) operand with a contiguous last dimension.
void check_bshd(const ArgChecker& check, const TensorView& t, std::string_view arg,
                const runtime::Device& device, int rank) {
  check.well_formed(t, arg);
  check.rank(t, arg, rank);
  if (t.shape[size_t(rank - 1)] > 1 && t.strides[size_t(rank - 1)] != 1)
    check.fail(arg, "has layout " + describe_layout(t) +
                        "; expected a contiguous last dimension (stride 1)");
  if (!t.empty())
    check.on_device(t, arg, device);
  check.naturally_aligned(t, arg);
}

} // namespace

void linear_attn(runtime::Device& device, const LinearAttnArgs& a) {
  const ArgChecker check("linear_attn");
  check.dtype_in(a.q, "q", {DType::bf16, DType::f16});
  check.same_dtype(a.k, "k", a.q, "q");
  check.same_dtype(a.v, "v", a.q, "q");
  check.dtype_in(a.out, "out", {DType::bf16, DType::f16, DType::f32});
  const bool varlen = a.cu_seqlens.has_value();
  const int rank = varlen ? 3 : 4, hx = rank - 2, dx = rank - 1; // head and head-dim axes
  for (const auto& [t, name] :
       {std::pair{&a.q, "q"}, std::pair{&a.k, "k"}, std::pair{&a.v, "v"}, std::pair{&a.out, "out"}})
    check_bshd(check, *t, name, device, rank);
  const int64_t Hq = a.q.shape[size_t(hx)], D = a.q.shape[size_t(dx)];
  const int64_t Hkv = a.k.shape[size_t(hx)], Dv = a.v.shape[size_t(dx)];
  int64_t B = 0, S = a.q.shape[varlen ? 0 : 1]; // varlen: S is the packed token count T
  for (const auto& [t, name] : {std::pair{&a.k, "k"}, std::pair{&a.v, "v"}}) {
    if (varlen) {
      check.extent_matches(*t, name, 0, "tokens", a.q, "q", 0);
    } else {
      check.extent_matches(*t, name, 0, "batch", a.q, "q", 0);
      check.extent_matches(*t, name, 1, "sequence", a.q, "q", 1);
    }
  }
  check.extent_matches(a.v, "v", hx, "heads", a.k, "k", hx);
  check.extent_matches(a.k, "k", dx, "head_dim", a.q, "q", dx);
  if (varlen) {
    check.shape_is(a.out, "out", {S, Hq, Dv}, "[T, heads_q, Dv] of 'q' and 'v'");
    const TensorView& cu = *a.cu_seqlens;
    check.well_formed(cu, "cu_seqlens");
    check.dtype_in(cu, "cu_seqlens", {DType::i32});
    check.rank(cu, "cu_seqlens", 1);
    if (cu.shape[0] < 1)
      check.fail("cu_seqlens", "has shape " + format_extents(cu.shape) +
                                   "; expected [B + 1] offsets (at least the leading 0)");
    check.contiguous_vector(cu, "cu_seqlens");
    check.on_device(cu, "cu_seqlens", device);
    check.naturally_aligned(cu, "cu_seqlens");
    attn_validate::check_offsets(check, device, cu, "cu_seqlens", S, "q", S, "the tokens of 'q'");
    B = cu.shape[0] - 1;
  } else {
    B = a.q.shape[0];
    check.shape_is(a.out, "out", {B, S, Hq, Dv}, "[B, S, heads_q, Dv] of 'q' and 'v'");
  }
  if (D < 1 || D > max_head_dim)
    check.fail("q", "has head_dim " + std::to_string(D) + "; expected 1 to " +
                        std::to_string(max_head_dim));
  if (Dv < 1 || Dv > max_head_dim)
    check.fail("v", "has head_dim " + std::to_string(Dv) + "; expected 1 to " +
                        std::to_string(max_head_dim));
  if (Hkv < 1 || Hq % Hkv != 0)
    check.fail("k", "has " + std::to_string(Hkv) + " heads; expected a divisor of the " +
                        std::to_string(Hq) + " heads of 'q' (GQA / MQA)");
  if (a.decay) {
    check.well_formed(*a.decay, "decay");
    check.dtype_in(*a.decay, "decay", {DType::f32});
    check.shape_is(*a.decay, "decay", {Hq}, "[heads_q] (one decay per query head)");
    check.contiguous_vector(*a.decay, "decay");
    if (Hq > 0)
      check.on_device(*a.decay, "decay", device);
    check.naturally_aligned(*a.decay, "decay");
  }
  const float scale = a.scale.value_or(float(1.0 / std::sqrt(double(std::max<int64_t>(D, 1)))));
  if (!std::isfinite(scale))
    check.fail_parameter("scale", "is " + std::to_string(scale) + "; expected a finite scale");
  if (!(a.eps >= 0.0f) || !std::isfinite(a.eps))
    check.fail_parameter("eps", "is " + std::to_string(a.eps) + "; expected a finite eps >= 0");
  for (const auto& [t, name] : {std::pair{&a.q, "q"}, std::pair{&a.k, "k"}, std::pair{&a.v, "v"}})
    check.no_overlap(a.out, "out", *t, name);
  if (varlen)
    check.no_overlap(a.out, "out", *a.cu_seqlens, "cu_seqlens");
  if (a.decay)
    check.no_overlap(a.out, "out", *a.decay, "decay");
  if (B > 65535 || Hq > 65535)
    check.fail("q", "has batch " + std::to_string(B) + " and " + std::to_string(Hq) +
                        " heads; expected at most 65535 of each (the grid's y and z)");
  if (a.out.empty() || B == 0)
    return;

  linear_attn_kernel::LinearAttnKernelSpec spec;
  spec.dtype = a.q.dtype;
  spec.out = a.out.dtype;
  spec.head_dim_pad = linear_attn_kernel::padded_head_dim(D);
  spec.decay = a.decay.has_value();
  spec.normalize = a.normalize;
  spec.varlen = varlen;
  // Q / K chunks through clipped buffer descriptors and K^T by transpose loads
  // (LinearAttnKernelSpec::clipped): q and k in 128-bit runs wholly inside or past the head
  // (aligned rows, D a multiple of 8), v's elements by buffer loads; rows not overlapping and a
  // chunk's byte offsets below 2^31 (dsl::buffer_clipped_tile_fits states the rules).
  const auto fits = [&](const TensorView& t, int64_t cols, int tile_cols, int run) {
    return dsl::buffer_clipped_tile_fits(varlen ? t.shape[0] : S, cols, t.strides[varlen ? 0 : 1],
                                         2, linear_attn_kernel::chunk, tile_cols, run,
                                         run == 1 || rows_aligned(t, 16));
  };
  spec.clipped = fits(a.q, D, spec.head_dim_pad, 8) && fits(a.k, D, spec.head_dim_pad, 8) &&
                 fits(a.v, Dv, 16, 1);
  const emit::CodeObject co = compile_traced(
      spec.name(), [&] { return linear_attn_kernel::build_linear_attn_kernel(spec); });
  runtime::KernelArgs ka;
  ka.ptr(a.q.device_address).ptr(a.k.device_address).ptr(a.v.device_address);
  ka.ptr(a.out.device_address).ptr(a.decay ? a.decay->device_address : 0);
  ka.add<int64_t>(S).add<int64_t>(Hq).add<int64_t>(Hkv).add<int64_t>(D).add<int64_t>(Dv);
  for (const TensorView* t : {&a.q, &a.k, &a.v, &a.out}) // batch, token, head strides
    ka.add<int64_t>(varlen ? 0 : t->strides[0])
        .add<int64_t>(t->strides[varlen ? 0 : 1])
        .add<int64_t>(t->strides[varlen ? 1 : 2]);
  ka.add<float>(scale).add<float>(a.eps);
  ka.ptr(varlen ? a.cu_seqlens->device_address : 0);
  const int64_t tiles = (Dv + spec.value_tile() - 1) / spec.value_tile();
  const runtime::ModuleHandle mod = device.load_code_object(co.elf);
  device.launch(device.get_kernel(mod, co.kernel_name),
                {uint32_t(tiles), uint32_t(Hq), uint32_t(B)}, {32}, ka.span());
  device.synchronize();
}

} // namespace tw::kernels
