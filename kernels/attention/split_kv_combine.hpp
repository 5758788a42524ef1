#pragma once
// The split-KV combine of flash attention (issue 10; layout fixed in attn_shared.md and
// docs/kernels.md "Attention"). With S splits the attention kernel writes, per split s and
// query row r = (b*Hq + h)*Sq + i (varlen: b a sequence, Sq = max_seqlen_q), f32 partials
//   o_part [S, B, Hq, Sq, Dv]  sum_j exp(s_j - m_s) v_j   (unnormalized)
//   m_part [S, B, Hq, Sq]      m_s, the split's largest scaled score (-inf: it saw no key)
//   l_part [S, B, Hq, Sq]      l_s = sum_j exp(s_j - m_s)
// and the combine, a DSL kernel (one wave per row), merges them:
//   m = max_s m_s, l = sum_s l_s exp(m_s - m), out = sum_s o_s exp(m_s - m) / l (0 when l = 0),
//   lse = m + log(l) (-inf when l = 0),
// writing only the Dv real columns of `out` (bf16 / f16, its strides) and, when asked, lse.
// Varlen rows past their sequence's length are not written.
#include <dsl/ir/kernel.hpp>
#include <kernels/attention/flash_attn_api.hpp>
#include <runtime/device.hpp>

#include <cstdint>
#include <string>

namespace tw::kernels {

// Device buffers of the partials of one split-KV problem, owned (freed on destruction) and
// initialized to what a split that sees no key leaves: m = -inf, l = 0, o = 0.
class SplitKvWorkspace {
public:
  SplitKvWorkspace(runtime::Device& device, const FlashAttnProblem& problem);
  ~SplitKvWorkspace();
  SplitKvWorkspace(const SplitKvWorkspace&) = delete;
  SplitKvWorkspace& operator=(const SplitKvWorkspace&) = delete;

  int64_t splits = 0, rows = 0, head_dim_v = 0; // rows = B * Hq * Sq
  runtime::DevicePtr o_part = 0, m_part = 0, l_part = 0;

private:
  runtime::Device& device_;
};

// What changes the combine's code: the output dtype, whether lse is written, varlen rows.
struct SplitKvCombineSpec {
  DType out = DType::bf16;
  bool lse = false;
  bool varlen = false;
  std::string name() const; // the code object's symbol and cache key
};

inline constexpr int split_kv_combine_waves = 8; // rows per workgroup, one wave each

ir::Kernel build_split_kv_combine(const SplitKvCombineSpec& spec);

// Combines `workspace` into args.out (and args.lse when problem.return_lse) for a validated
// problem with problem.num_splits = workspace.splits. Compiles for gemm_target() (the kernel
// library's backend and arch) through the compile cache.
void launch_split_kv_combine(runtime::Device& device, const SplitKvWorkspace& workspace,
                             const FlashAttnArgs& args, const FlashAttnProblem& problem);

} // namespace tw::kernels
