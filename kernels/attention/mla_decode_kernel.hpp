#pragma once
// The MLA decode composition (mla_decode_api.hpp), written only with the DSL. The query head
// (576) and the value head (512) are too wide for one wave: Q's B operand alone would be 144
// VGPRs and O^T of 16 queries x 512 dims 256 VGPRs. So the four waves of a workgroup split
// both widths (blocks/ of flash attention otherwise):
//  - tile: 16 packed query rows (the Hq * Sq (query head, query) pairs of one sequence, GQA
//    packing with G = Hq, blocks/gqa_packing.hpp); grid (ceil(Hq * Sq / 16), 1, B [* splits]);
//  - S^T = K Q^T split over K's width: wave w multiplies dims [144 w, 144 w + 144) (9 k steps,
//    Q's slice in 36 VGPRs for 16-bit inputs), K's A operand tiles read straight from the
//    pages; the four partial S^T tiles are summed through LDS (dsl sum_over_waves, two
//    alternating 16 x kb f32 scratch tiles per wave: 16 KiB for bf16 / f16, 32 KiB for 8-bit);
//  - every wave then holds the same S^T and runs the same online softmax (identical m, l);
//  - O^T += V^T P^T split over V's width: wave w owns value dims [128 w, 128 w + 128) (O^T in
//    64 VGPRs), V^T's tiles by transpose loads from the same rows (KvSource::load_vt with a
//    dim tile), P^T straight from the S^T accumulator.
#include <dsl/ir/kernel.hpp>
#include <emit/code_object.hpp>
#include <kernels/attention/mla_decode_api.hpp>
#include <runtime/device.hpp>
#include <runtime/kernel_args.hpp>

#include <string>

namespace tw::kernels::mla_decode_kernel {

inline constexpr int waves = 4, threads = 32 * waves, block_rows = 16;

struct MlaDecodeKernelSpec {
  DType dtype = DType::bf16, out = DType::bf16;
  bool causal = false;
  bool lse = false;
  bool split = false;       // write the split-KV partials instead of out
  bool csr = false;         // the block table's CSR form
  bool vec_aligned = false; // q, the cache and out: base and every row 16-byte aligned
  std::string name() const; // unique per spec: the code object's symbol and cache key
};

// Keys per KV block (32 for 16-bit inputs, 64 for 8-bit ones, as flash attention).
int kv_block(DType dtype);

ir::Kernel build_mla_decode_kernel(const MlaDecodeKernelSpec& spec);

// The kernel's arguments (same order in the kernel). Strides in elements. Unused pointers 0.
struct MlaDecodeLaunchArgs {
  runtime::DevicePtr q = 0, kv = 0, out = 0, lse = 0, o_part = 0, m_part = 0, l_part = 0;
  runtime::DevicePtr block_table = 0, block_table_indptr = 0, seqlens_k = 0;
  int64_t batch = 0, seqlen_q = 0, heads_q = 0;
  int64_t q_sb = 0, q_ss = 0, q_sh = 0, kv_sp = 0, kv_ss = 0, o_sb = 0, o_ss = 0, o_sh = 0;
  int64_t lse_sb = 0, lse_sh = 0, block_table_stride = 0, num_splits = 1;
  int32_t page_size = 0;
  float sm_scale = 1.0f, q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f;
};

emit::CodeObject compile_mla_decode_kernel(const MlaDecodeKernelSpec& spec);
runtime::KernelArgs mla_decode_kernel_args(const MlaDecodeLaunchArgs& args);
runtime::Dim3 mla_decode_grid(const MlaDecodeLaunchArgs& args);
void run_mla_decode_kernel(runtime::Device& device, const MlaDecodeKernelSpec& spec,
                           const MlaDecodeLaunchArgs& args);

} // namespace tw::kernels::mla_decode_kernel
