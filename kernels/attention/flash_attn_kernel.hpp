#pragma once
// The flash attention forward composition (issue 10): one kernel body, specialised by a
// FlashAttnKernelSpec, CK-Tile style:
//  - problem: dtype, output dtype, padded head dims, dense or varlen sequences, which score
//    modifiers exist (window / causal, bias or bool mask, ALiBi, softcap), lse, split-KV;
//  - policy: a query tile of 16 x waves rows (one 16-query atom column per wave; 4 waves, 64
//    rows, by default, or 8 waves, 128 rows), a KV block of kv_block keys, the head dim padded to a
//    multiple of 32 in registers and LDS;
//  - pipeline: K of a KV block staged in LDS (dsl::pipeline, 2 stages when they fit), S^T = K Q^T
//    on WMMA with Q in registers, V^T's operand tiles read straight into registers (transpose
//    loads when v_transpose_loads), P^T fed from the S^T accumulator straight into
//    O^T += V^T P^T (dsl accumulator_as_operand), online softmax with exp2 and f32 state.
// Feature blocks live in kernels/attention/blocks/ (one per file); flash_attn_kernel.cpp
// composes them. Everything is written with the DSL.
#include <dsl/ir/kernel.hpp>
#include <emit/code_object.hpp>
#include <kernels/attention/flash_attn_api.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <cstdint>
#include <string>

namespace tw::kernels::flash_attn_kernel {

// The default query tile: 4 waves, 64 rows, 128 threads (FlashAttnKernelSpec::waves).
inline constexpr int waves = 4, block_q = 16 * waves, threads = 32 * waves;

struct FlashAttnKernelSpec {
  DType dtype = DType::bf16, out = DType::bf16;
  int head_dim_pad = 64, head_dim_v_pad = 64; // multiples of 32, at most 256
  bool varlen = false;
  bool windowed = false; // causal or a sliding window (bounds are kernel arguments)
  AttnBiasKind bias = AttnBiasKind::none;
  DType bias_dtype = DType::f32;
  FlashAttnProblem::Alibi alibi = FlashAttnProblem::Alibi::none;
  bool softcap = false;
  bool lse = false;
  bool dropout = false;     // p > 0 (p = 0 is the code without dropout)
  bool split = false;       // write the split-KV partials (attn_shared.md) instead of out
  bool vec_aligned = false; // q, k, v: base and every row start 16-byte aligned
  // V's PV operand tiles by gfx12 transpose loads: v 16-byte aligned (base and rows) and
  // head_dim_v a multiple of 8; otherwise element-wise loads (kv_source.hpp).
  bool v_transpose_loads = false;
  // K's blocks through a clipped buffer descriptor (dsl/copy/buffer_clipped_tile.hpp), edges
  // included, without a masked path: k 16-byte aligned (base and rows), head_dim a multiple
  // of the 128-bit copy run (8 elements, fp8 / int8: 16), k's rows not overlapping (row
  // stride >= head_dim) and a KV block's byte offsets below 2^31; not paged.
  bool k_clipped = false;
  // k / v are page pools [num_pages, page_size, Hkv, D] read through a block table (dense
  // [B, max_blocks] or CSR); seqlens_k [B] gives each sequence's key count.
  enum class KvPaging { none, table, csr } paging = KvPaging::none;
  // GQA packing (decode, blocks/gqa_packing.hpp): the tile rows are the Sq <= block_q query rows
  // of every query head of one kv head; the grid is (ceil(G * Sq / block_q), Hkv, B [* splits]).
  bool gqa_packed = false;
  // Waves per workgroup, one 16-query column each: 4 (64-row query tiles) or 8 (128 rows).
  // K's LDS staging is shared by all waves, so the LDS plan does not depend on it.
  int waves = flash_attn_kernel::waves;

  int block_q() const { return 16 * waves; }           // query rows per workgroup
  int workgroup_threads() const { return 32 * waves; } // threads per workgroup

  std::string name() const; // unique per spec: the code object's symbol and cache key
};

// The head width a head dim is padded to in registers and LDS (a multiple of 32; 160 and 224
// take the next instantiated width, 192 and 256).
int padded_head_dim(int64_t d);
// Keys per KV block of a spec (LDS and register budget).
int kv_block(const FlashAttnKernelSpec& spec);

ir::Kernel build_flash_attn_kernel(const FlashAttnKernelSpec& spec);

// The kernel's arguments (same order in the kernel). Strides in elements. Unused pointers 0.
struct FlashAttnLaunchArgs {
  runtime::DevicePtr q = 0, k = 0, v = 0, out = 0, lse = 0, bias = 0, alibi_slopes = 0;
  runtime::DevicePtr cu_seqlens_q = 0, cu_seqlens_k = 0;
  runtime::DevicePtr o_part = 0, m_part = 0, l_part = 0;
  int64_t batch = 0, seqlen_q = 0, seqlen_k = 0, heads_q = 0, heads_kv = 0, head_dim = 0,
          head_dim_v = 0;
  // dense: batch, sequence, head strides; varlen: token stride in *_ss, *_sb unused
  int64_t q_sb = 0, q_ss = 0, q_sh = 0, k_sb = 0, k_ss = 0, k_sh = 0, v_sb = 0, v_ss = 0, v_sh = 0,
          o_sb = 0, o_ss = 0, o_sh = 0;
  int64_t lse_sb = 0, lse_sh = 0;                // lse row of (b, h): b*lse_sb + h*lse_sh
  int64_t bias_sh = 0, bias_sq = 0, bias_sk = 0; // bias element (h, i, j)
  int64_t window_left = -1, window_right = -1;
  int64_t num_splits = 1;
  float sm_scale = 1.0f, softcap = 0.0f, alibi_slope = 0.0f;
  float q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f;
  uint64_t dropout_seed = 0, dropout_offset = 0;
  float dropout_p = 0.0f;
  // paged KV (spec.paging): the block table (dense [B, max_blocks] with row stride
  // block_table_stride, or the CSR indices with block_table_indptr [B + 1]), seqlens_k [B]
  // (int32), tokens per page. k_sb / v_sb are then the page strides.
  runtime::DevicePtr block_table = 0, block_table_indptr = 0, seqlens_k = 0;
  int64_t block_table_stride = 0;
  int32_t page_size = 0;
};

// The shapes and strides of self-attention over dense, contiguous [B, S, H, D] tensors (q, k, v
// and out alike, as the public flash_attn entry takes them); pointers and options stay unset.
FlashAttnLaunchArgs dense_bshd_args(int64_t batch, int64_t seqlen, int64_t heads, int64_t head_dim);

emit::CodeObject compile_flash_attn_kernel(const FlashAttnKernelSpec& spec);
runtime::KernelArgs flash_attn_kernel_args(const FlashAttnLaunchArgs& args);
// (ceil(rows / rows_per_tile), heads, batch [* splits]); rows_per_tile is the spec's block_q().
runtime::Dim3 flash_attn_grid(const FlashAttnLaunchArgs& args, bool gqa_packed = false,
                              int rows_per_tile = block_q);
void run_flash_attn_kernel(runtime::Device& device, const FlashAttnKernelSpec& spec,
                           const FlashAttnLaunchArgs& args);

} // namespace tw::kernels::flash_attn_kernel
