// launch_flash_attn: FlashAttnArgs + the validated FlashAttnProblem -> one kernel spec and its
// arguments; split-KV runs the partial kernel into a workspace, then the combine kernel.
#include <kernels/attention/flash_attn_launch.hpp>
#include <kernels/attention/split_kv_combine.hpp>
#include <kernels/common/rows_aligned.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>

#include <algorithm>
#include <stdexcept>

namespace tw::kernels {

namespace flash_attn_kernel {

FlashAttnKernelSpec spec_of(const FlashAttnArgs& a, const FlashAttnProblem& p) {
  FlashAttnKernelSpec s;
  s.dtype = p.dtype;
  s.out = p.out_dtype;
  // One padded width for both heads (the instantiated configurations are square).
  s.head_dim_pad = s.head_dim_v_pad = padded_head_dim(std::max(p.head_dim, p.head_dim_v));
  s.varlen = p.varlen;
  s.windowed = p.causal || p.window_left >= 0 || p.window_right >= 0;
  s.bias = p.bias_kind;
  if (a.bias)
    s.bias_dtype = a.bias->dtype;
  s.alibi = p.alibi;
  s.softcap = p.softcap > 0.0f;
  s.lse = p.return_lse;
  s.dropout = p.dropout_p > 0.0f;
  s.split = p.num_splits > 1;
  s.waves = p.query_tile / 16;
  s.vec_aligned = rows_aligned(a.q, 16) && rows_aligned(a.k, 16) && rows_aligned(a.v, 16);
  s.v_transpose_loads = rows_aligned(a.v, 16) && p.head_dim_v % 8 == 0;
  // K through a clipped buffer descriptor (FlashAttnKernelSpec::k_clipped): 128-bit runs
  // wholly inside or outside the head, rows not overlapping, a block's offsets and its
  // num_records below 2^31 (dsl::buffer_clipped_tile_fits states the rules).
  const int k_bytes = static_cast<int>(dtype_storage_bytes(a.k.dtype, 1));
  const int64_t k_row_stride = p.varlen ? a.k.strides[0] : a.k.strides[1];
  const int64_t k_rows = p.varlen ? a.k.shape[0] : p.seqlen_k;
  s.k_clipped =
      dsl::buffer_clipped_tile_fits(k_rows, p.head_dim, k_row_stride, k_bytes, kv_block(s),
                                    s.head_dim_pad, 16 / k_bytes, rows_aligned(a.k, 16));
  return s;
}

FlashAttnLaunchArgs launch_args_of(const FlashAttnArgs& a, const FlashAttnProblem& p) {
  FlashAttnLaunchArgs g;
  g.q = a.q.device_address;
  g.k = a.k.device_address;
  g.v = a.v.device_address;
  g.out = a.out.device_address;
  g.batch = p.batch;
  g.seqlen_q = p.seqlen_q;
  g.seqlen_k = p.seqlen_k;
  g.heads_q = p.heads_q;
  g.heads_kv = p.heads_kv;
  g.head_dim = p.head_dim;
  g.head_dim_v = p.head_dim_v;
  // dense [B, S, H, D]; varlen [T, H, D] (no batch stride)
  const auto strides3 = [&](const TensorView& t, int64_t& sb, int64_t& ss, int64_t& sh) {
    if (p.varlen) {
      sb = 0;
      ss = t.strides[0];
      sh = t.strides[1];
    } else {
      sb = t.strides[0];
      ss = t.strides[1];
      sh = t.strides[2];
    }
  };
  strides3(a.q, g.q_sb, g.q_ss, g.q_sh);
  strides3(a.k, g.k_sb, g.k_ss, g.k_sh);
  strides3(a.v, g.v_sb, g.v_ss, g.v_sh);
  strides3(a.out, g.o_sb, g.o_ss, g.o_sh);
  if (a.lse) {
    g.lse = a.lse->device_address;
    if (p.varlen) {
      g.lse_sb = 0;
      g.lse_sh = a.lse->strides[0];
    } else {
      g.lse_sb = a.lse->strides[0];
      g.lse_sh = a.lse->strides[1];
    }
  }
  if (a.bias && p.bias_kind != AttnBiasKind::none) {
    const TensorView& b = *a.bias;
    g.bias = b.device_address;
    const int r = b.rank();
    g.bias_sh = r == 3 ? b.strides[0] : 0;
    g.bias_sq = b.strides[size_t(r - 2)];
    g.bias_sk = b.strides[size_t(r - 1)];
  }
  if (a.alibi_slopes)
    g.alibi_slopes = a.alibi_slopes->device_address;
  if (a.alibi_slope)
    g.alibi_slope = *a.alibi_slope;
  if (p.varlen) {
    g.cu_seqlens_q = a.cu_seqlens_q->device_address;
    // paged attention has none (its key lengths are seqlens_k)
    g.cu_seqlens_k = a.cu_seqlens_k ? a.cu_seqlens_k->device_address : 0;
  }
  g.window_left = p.window_left;
  // validation allows causal only with window_right -1 or 0: causal is right = 0
  g.window_right = p.causal ? 0 : p.window_right;
  g.num_splits = p.num_splits;
  g.sm_scale = p.sm_scale; // resolved by validate_flash_attn (1 / sqrt(D) when 0 was given)
  g.softcap = p.softcap;
  g.q_descale = a.q_descale;
  g.k_descale = a.k_descale;
  g.v_descale = a.v_descale;
  g.dropout_p = p.dropout_p;
  g.dropout_seed = a.dropout_seed;
  g.dropout_offset = a.dropout_offset;
  return g;
}

} // namespace flash_attn_kernel

void launch_flash_attn(runtime::Device& device, const FlashAttnArgs& args,
                       const FlashAttnProblem& problem) {
  using namespace flash_attn_kernel;
  FlashAttnLaunchArgs g = launch_args_of(args, problem);
  if (problem.num_splits <= 1) {
    run_flash_attn_kernel(device, spec_of(args, problem), g);
    return;
  }
  // Split-KV: every split's partials into the workspace (m = -inf, l = 0, o = 0 where a
  // split writes nothing), then the combine writes out (and lse).
  const SplitKvWorkspace ws(device, problem);
  g.o_part = ws.o_part;
  g.m_part = ws.m_part;
  g.l_part = ws.l_part;
  run_flash_attn_kernel(device, spec_of(args, problem), g);
  launch_split_kv_combine(device, ws, args, problem);
}

} // namespace tw::kernels
