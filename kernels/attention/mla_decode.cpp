// mla_decode (mla_decode_api.hpp): validation (one sentence per rule, before anything runs; the
// block table and lengths are read back and every used page checked against the pool), the
// split choice, the launch of the MLA composition (mla_decode_kernel.hpp) and, with split-KV,
// flash_attn's combine kernel over the partials.
#include <kernels/attention/attn_validate_parts.hpp>
#include <kernels/attention/flash_attn_splits.hpp>
#include <kernels/attention/mla_decode_api.hpp>
#include <kernels/attention/mla_decode_kernel.hpp>
#include <kernels/attention/paged_kv_validate.hpp>
#include <kernels/attention/split_kv_combine.hpp>
#include <kernels/common/rows_aligned.hpp>

#include <cmath>
#include <string>

namespace tw::kernels {

namespace {

using namespace attn_validate;
using runtime::Device;

inline constexpr int64_t max_decode_rows = 16;

// The FlashAttnArgs / FlashAttnProblem views of an MLA problem: the options' rules and the
// split-KV combine are flash_attn's (head dims 576 / 512, one kv head).
FlashAttnArgs flash_view(const MlaDecodeArgs& a) {
  FlashAttnArgs f;
  f.q = a.q;
  f.out = a.out;
  f.lse = a.lse;
  f.sm_scale = a.sm_scale;
  f.causal = a.causal;
  f.q_descale = a.q_descale;
  f.k_descale = a.k_descale;
  f.v_descale = a.v_descale;
  f.num_splits = a.num_splits;
  return f;
}

FlashAttnProblem flash_problem(const MlaDecodeProblem& p) {
  FlashAttnProblem f;
  f.dtype = p.dtype;
  f.out_dtype = p.out_dtype;
  f.batch = p.batch;
  f.seqlen_q = p.seqlen_q;
  f.seqlen_k = p.longest_k;
  f.heads_q = p.heads_q;
  f.heads_kv = 1;
  f.head_dim = mla_qk_dim;
  f.head_dim_v = mla_v_dim;
  f.sm_scale = p.sm_scale;
  f.return_lse = p.return_lse;
  f.num_splits = p.num_splits;
  return f;
}

} // namespace

MlaDecodeProblem validate_mla_decode(const Device& device, const MlaDecodeArgs& args) {
  const ArgChecker chk("mla_decode");
  Device& dev = const_cast<Device&>(device); // tables and lengths are read back
  MlaDecodeProblem p;

  // -- memory, dtypes and ranks
  check_memory(chk, device, args.q, "q");
  check_memory(chk, device, args.kv_cache, "kv_cache");
  check_memory(chk, device, args.out, "out");
  chk.dtype_in(args.q, "q", {DType::bf16, DType::f16, DType::e4m3, DType::e5m2, DType::int8});
  chk.same_dtype(args.kv_cache, "kv_cache", args.q, "q");
  chk.dtype_in(args.out, "out", {DType::bf16, DType::f16});
  chk.rank(args.q, "q", 4);
  chk.rank(args.kv_cache, "kv_cache", 3);
  chk.rank(args.out, "out", 4);
  p.dtype = args.q.dtype;
  p.out_dtype = args.out.dtype;

  // -- widths: the query / key row 576 (512 latent + 64 rope), the value 512
  if (args.q.shape[3] != mla_qk_dim)
    chk.fail("q", "has shape " + format_extents(args.q.shape) +
                      "; expected [B, Sq, Hq, 576] (512 latent + 64 rope dims)");
  if (args.kv_cache.shape[2] != mla_qk_dim)
    chk.fail("kv_cache", "has shape " + format_extents(args.kv_cache.shape) +
                             "; expected [num_pages, page_size, 576] (K is the whole row, V its "
                             "first 512 dims)");
  p.batch = args.q.shape[0];
  p.seqlen_q = args.q.shape[1];
  p.heads_q = args.q.shape[2];
  chk.shape_is(args.out, "out", {p.batch, p.seqlen_q, p.heads_q, mla_v_dim},
               "[B, Sq, Hq, 512] from 'q' and the value width");
  check_last_contiguous(chk, args.q, "q", "head dim");
  check_last_contiguous(chk, args.kv_cache, "kv_cache", "head dim");
  check_last_contiguous(chk, args.out, "out", "head dim");
  if (p.seqlen_q > max_decode_rows)
    chk.fail("q", "has Sq = " + std::to_string(p.seqlen_q) +
                      " query rows per sequence; expected 1 to 16 for decode");

  // -- pages and the block table: paged_attn's rules
  const int64_t page_size = args.kv_cache.shape[1];
  if (page_size < 16 || page_size > 256 || page_size % 16 != 0)
    chk.fail("kv_cache", "has page_size " + std::to_string(page_size) +
                             " (dimension 1); expected a multiple of 16 from 16 to 256");
  p.page_size = page_size;
  p.num_pages = args.kv_cache.shape[0];
  p.longest_k =
      check_paged_kv(chk, dev, args.paged, p.batch, page_size, p.num_pages, "'kv_cache'", p.csr);

  // -- options: flash_attn's rules for sm_scale, causal, descales, lse and num_splits
  FlashAttnProblem f = flash_problem(p);
  validate_attn_options(chk, device, flash_view(args), f);
  p.sm_scale = f.sm_scale;
  p.return_lse = f.return_lse;
  p.num_splits = f.num_splits;

  // -- outputs overlap no input, nor each other
  const PagedKv& pk = args.paged;
  const std::initializer_list<std::pair<const TensorView*, std::string_view>> inputs = {
      {&args.q, "q"},
      {&args.kv_cache, "kv_cache"},
      {&pk.seqlens_k, "seqlens_k"},
      {pk.block_table ? &*pk.block_table : nullptr, "block_table"},
      {pk.block_table_indptr ? &*pk.block_table_indptr : nullptr, "block_table_indptr"},
      {pk.block_table_indices ? &*pk.block_table_indices : nullptr, "block_table_indices"}};
  for (const auto& [view, name] : inputs)
    if (view) {
      chk.no_overlap(args.out, "out", *view, name);
      if (args.lse)
        chk.no_overlap(*args.lse, "lse", *view, name);
    }
  if (args.lse)
    chk.no_overlap(*args.lse, "lse", args.out, "out");
  return p;
}

void mla_decode(Device& device, const MlaDecodeArgs& args) {
  using namespace mla_decode_kernel;
  MlaDecodeProblem p = validate_mla_decode(device, args);
  if (p.empty())
    return;
  // The split heuristic counts ceil(Hq * Sq / 16) x B workgroups of 16 packed rows.
  FlashAttnProblem tiles = flash_problem(p);
  tiles.seqlen_q = p.heads_q * p.seqlen_q;
  tiles.heads_q = 1;
  SplitHeuristic h;
  h.query_tile = block_rows;
  p.num_splits = choose_num_splits(tiles, h);

  MlaDecodeKernelSpec spec;
  spec.dtype = p.dtype;
  spec.out = p.out_dtype;
  spec.causal = args.causal;
  spec.lse = p.return_lse;
  spec.split = p.num_splits > 1;
  spec.csr = p.csr;
  spec.vec_aligned =
      rows_aligned(args.q, 16) && rows_aligned(args.kv_cache, 16) && rows_aligned(args.out, 16);

  MlaDecodeLaunchArgs g;
  g.q = args.q.device_address;
  g.kv = args.kv_cache.device_address;
  g.out = args.out.device_address;
  g.batch = p.batch;
  g.seqlen_q = p.seqlen_q;
  g.heads_q = p.heads_q;
  g.q_sb = args.q.strides[0];
  g.q_ss = args.q.strides[1];
  g.q_sh = args.q.strides[2];
  g.kv_sp = args.kv_cache.strides[0];
  g.kv_ss = args.kv_cache.strides[1];
  g.o_sb = args.out.strides[0];
  g.o_ss = args.out.strides[1];
  g.o_sh = args.out.strides[2];
  if (args.lse) {
    g.lse = args.lse->device_address;
    g.lse_sb = args.lse->strides[0];
    g.lse_sh = args.lse->strides[1];
  }
  const PagedKv& pk = args.paged;
  g.seqlens_k = pk.seqlens_k.device_address;
  g.page_size = static_cast<int32_t>(p.page_size);
  if (p.csr) {
    g.block_table = pk.block_table_indices->device_address;
    g.block_table_indptr = pk.block_table_indptr->device_address;
  } else {
    g.block_table = pk.block_table->device_address;
    g.block_table_stride = pk.block_table->strides[0];
  }
  g.num_splits = p.num_splits;
  g.sm_scale = p.sm_scale;
  g.q_descale = args.q_descale;
  g.k_descale = args.k_descale;
  g.v_descale = args.v_descale;
  if (!spec.split) {
    run_mla_decode_kernel(device, spec, g);
    return;
  }
  const FlashAttnProblem fp = flash_problem(p);
  const SplitKvWorkspace ws(device, fp);
  g.o_part = ws.o_part;
  g.m_part = ws.m_part;
  g.l_part = ws.l_part;
  run_mla_decode_kernel(device, spec, g);
  launch_split_kv_combine(device, ws, flash_view(args), fp);
}

} // namespace tw::kernels
