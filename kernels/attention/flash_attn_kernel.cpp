// The flash attention composition's entry points (see flash_attn_kernel.hpp): the spec's name,
// the dispatch to the per-atom instantiations (flash_attn_body_*.cpp), compile and launch.
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/common/compile_traced.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <emit/compile.hpp>

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

namespace tw::kernels::flash_attn_kernel {

namespace body {
ir::Kernel build_bf16(const FlashAttnKernelSpec& s);
ir::Kernel build_f16(const FlashAttnKernelSpec& s);
ir::Kernel build_e4m3(const FlashAttnKernelSpec& s);
ir::Kernel build_e5m2(const FlashAttnKernelSpec& s);
ir::Kernel build_i8(const FlashAttnKernelSpec& s);
} // namespace body

int padded_head_dim(int64_t d) {
  const int64_t p = (d + 31) / 32 * 32;
  return static_cast<int>(p == 160 ? 192 : p == 224 ? 256 : p);
}

int kv_block(const FlashAttnKernelSpec& spec) {
  return dtype_bits(spec.dtype) == 8 ? 64 : 32;
}

std::string FlashAttnKernelSpec::name() const {
  std::string n = "tw_flash_attn_";
  n += dtype_name(dtype);
  n += "_";
  n += dtype_name(out);
  n += "_d" + std::to_string(head_dim_pad) + "_dv" + std::to_string(head_dim_v_pad);
  n += vec_aligned ? "_v" : "_s";
  if (varlen)
    n += "_varlen";
  if (windowed)
    n += "_win";
  if (bias != AttnBiasKind::none) {
    n += bias == AttnBiasKind::additive ? "_bias" : "_mask";
    n += dtype_name(bias_dtype);
  }
  if (alibi != FlashAttnProblem::Alibi::none)
    n += alibi == FlashAttnProblem::Alibi::scalar ? "_alibis" : "_alibih";
  if (softcap)
    n += "_softcap";
  if (lse)
    n += "_lse";
  if (dropout)
    n += "_dropout";
  if (split)
    n += "_split";
  if (paging != KvPaging::none)
    n += paging == KvPaging::table ? "_paged" : "_pagedcsr";
  if (v_transpose_loads)
    n += "_vtr";
  if (k_clipped)
    n += "_kc";
  if (gqa_packed)
    n += "_gqa";
  if (waves != flash_attn_kernel::waves) // 128-row query tiles (the default keeps its names)
    n += "_q" + std::to_string(block_q());
  return n;
}

ir::Kernel build_flash_attn_kernel(const FlashAttnKernelSpec& s) {
  switch (s.dtype) {
  case DType::bf16:
    return body::build_bf16(s);
  case DType::f16:
    return body::build_f16(s);
  case DType::e4m3:
    return body::build_e4m3(s);
  case DType::e5m2:
    return body::build_e5m2(s);
  case DType::int8:
    return body::build_i8(s);
  default:
    throw std::invalid_argument("flash_attn kernel: dtype " + std::string(dtype_name(s.dtype)) +
                                " has no attention composition yet");
  }
}

emit::CodeObject compile_flash_attn_kernel(const FlashAttnKernelSpec& spec) {
  return compile_traced(spec.name(), [&] { return build_flash_attn_kernel(spec); });
}

FlashAttnLaunchArgs dense_bshd_args(int64_t batch, int64_t seqlen, int64_t heads,
                                    int64_t head_dim) {
  FlashAttnLaunchArgs g;
  g.batch = batch;
  g.seqlen_q = g.seqlen_k = seqlen;
  g.heads_q = g.heads_kv = heads;
  g.head_dim = g.head_dim_v = head_dim;
  g.q_ss = g.k_ss = g.v_ss = g.o_ss = heads * head_dim;
  g.q_sh = g.k_sh = g.v_sh = g.o_sh = head_dim;
  g.q_sb = g.k_sb = g.v_sb = g.o_sb = seqlen * heads * head_dim;
  return g;
}

runtime::KernelArgs flash_attn_kernel_args(const FlashAttnLaunchArgs& g) {
  runtime::KernelArgs a;
  for (runtime::DevicePtr p : {g.q, g.k, g.v, g.out, g.lse, g.bias, g.alibi_slopes, g.cu_seqlens_q,
                               g.cu_seqlens_k, g.o_part, g.m_part, g.l_part})
    a.ptr(p);
  for (int64_t x :
       {g.batch,   g.seqlen_q, g.seqlen_k, g.heads_q,     g.heads_kv,     g.head_dim,  g.head_dim_v,
        g.q_sb,    g.q_ss,     g.q_sh,     g.k_sb,        g.k_ss,         g.k_sh,      g.v_sb,
        g.v_ss,    g.v_sh,     g.o_sb,     g.o_ss,        g.o_sh,         g.lse_sb,    g.lse_sh,
        g.bias_sh, g.bias_sq,  g.bias_sk,  g.window_left, g.window_right, g.num_splits})
    a.add<int64_t>(x);
  for (float x : {g.sm_scale, g.softcap, g.softcap > 0.0f ? 1.0f / g.softcap : 0.0f, g.alibi_slope,
                  g.q_descale, g.k_descale, g.v_descale})
    a.add<float>(x);
  // dropout: seed, offset, threshold uint32(floor(p * 2^32)) (as its bits), 1 / (1 - p)
  a.add<int64_t>(int64_t(g.dropout_seed)).add<int64_t>(int64_t(g.dropout_offset));
  a.add<int32_t>(int32_t(uint32_t(std::floor(double(g.dropout_p) * 4294967296.0))));
  a.add<float>(g.dropout_p > 0.0f ? float(1.0 / (1.0 - double(g.dropout_p))) : 1.0f);
  a.ptr(g.block_table).ptr(g.block_table_indptr).ptr(g.seqlens_k);
  a.add<int64_t>(g.block_table_stride).add<int32_t>(g.page_size);
  return a;
}

runtime::Dim3 flash_attn_grid(const FlashAttnLaunchArgs& g, bool gqa_packed, int rows_per_tile) {
  const int64_t group = gqa_packed && g.heads_kv > 0 ? g.heads_q / g.heads_kv : 1;
  return {static_cast<uint32_t>((group * g.seqlen_q + rows_per_tile - 1) / rows_per_tile),
          static_cast<uint32_t>(gqa_packed ? g.heads_kv : g.heads_q),
          static_cast<uint32_t>(g.batch * g.num_splits)};
}

void run_flash_attn_kernel(runtime::Device& device, const FlashAttnKernelSpec& spec,
                           const FlashAttnLaunchArgs& g) {
  const runtime::Dim3 grid = flash_attn_grid(g, spec.gqa_packed, spec.block_q());
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return;
  const runtime::KernelHandle kernel =
      traced_kernel(device, spec.name(), [&] { return build_flash_attn_kernel(spec); });
  const runtime::KernelArgs args = flash_attn_kernel_args(g);
  device.launch(kernel, grid, {static_cast<uint32_t>(spec.workgroup_threads())}, args.span());
  device.synchronize();
}

} // namespace tw::kernels::flash_attn_kernel
