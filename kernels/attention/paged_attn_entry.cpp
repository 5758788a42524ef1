// The paged_attn and decode_attn entry points: validate (validate_paged_attn), return on an empty
// problem, choose the split count, then the flash attention composition with a paged KV source
// (spec.paging): the kernel arguments of the query side and the options are flash_attn's
// (launch_args_of), the pools' strides and the block table are the paged ones. Split-KV runs
// the partials into a workspace and the same combine kernel as flash_attn.
#include <kernels/attention/flash_attn_launch.hpp>
#include <kernels/attention/flash_attn_splits.hpp>
#include <kernels/attention/paged_attn_api.hpp>
#include <kernels/attention/paged_kv_validate.hpp>
#include <kernels/attention/split_kv_combine.hpp>

#include <string>

namespace tw::kernels {

namespace {

void launch_paged_attn(runtime::Device& device, const PagedAttnArgs& args,
                       const PagedAttnProblem& pp, bool gqa_packed) {
  using namespace flash_attn_kernel;
  const FlashAttnProblem& p = pp.attn;
  FlashAttnKernelSpec spec = spec_of(args.attn, p);
  spec.gqa_packed = gqa_packed;
  spec.k_clipped = false; // pages: K's rows through the block table
  spec.paging = pp.csr ? FlashAttnKernelSpec::KvPaging::csr : FlashAttnKernelSpec::KvPaging::table;
  FlashAttnLaunchArgs g = launch_args_of(args.attn, p);
  // pools [num_pages, page_size, Hkv, D]: the "batch" stride is the page stride
  const TensorView &k = args.attn.k, &v = args.attn.v;
  g.k_sb = k.strides[0];
  g.k_ss = k.strides[1];
  g.k_sh = k.strides[2];
  g.v_sb = v.strides[0];
  g.v_ss = v.strides[1];
  g.v_sh = v.strides[2];
  const PagedKv& pk = args.paged;
  g.seqlens_k = pk.seqlens_k.device_address;
  g.page_size = static_cast<int32_t>(pp.page_size);
  if (pp.csr) {
    g.block_table = pk.block_table_indices->device_address;
    g.block_table_indptr = pk.block_table_indptr->device_address;
  } else {
    g.block_table = pk.block_table->device_address;
    g.block_table_stride = pk.block_table->strides[0];
  }
  if (p.num_splits <= 1) {
    run_flash_attn_kernel(device, spec, g);
    return;
  }
  const SplitKvWorkspace ws(device, p);
  g.o_part = ws.o_part;
  g.m_part = ws.m_part;
  g.l_part = ws.l_part;
  run_flash_attn_kernel(device, spec, g);
  launch_split_kv_combine(device, ws, args.attn, p);
}

} // namespace

void paged_attn(runtime::Device& device, const PagedAttnArgs& args) {
  PagedAttnProblem pp = validate_paged_attn(device, args);
  if (pp.attn.empty())
    return;
  pp.attn.num_splits = choose_num_splits(pp.attn, split_heuristic_of(pp.attn));
  launch_paged_attn(device, args, pp, false);
}

inline constexpr int64_t max_decode_rows = 16;

PagedAttnProblem validate_decode_attn(const runtime::Device& device, const PagedAttnArgs& args) {
  const ArgChecker chk("decode_attn");
  PagedAttnProblem pp = validate_paged_attn(chk, device, args);
  if (pp.attn.seqlen_q > max_decode_rows) {
    const std::string rows = std::to_string(pp.attn.seqlen_q);
    if (pp.attn.varlen)
      chk.fail_parameter("max_seqlen_q", "is " + rows +
                                             "; expected 1 to 16 query rows per sequence for "
                                             "decode (paged_attn takes longer ones)");
    chk.fail("q", "has Sq = " + rows +
                      " query rows per sequence; expected 1 to 16 for decode (paged_attn takes "
                      "longer ones)");
  }
  return pp;
}

// GQA packing when a kv head serves several query heads: the query tiles hold the G * Sq rows of
// one kv head's group, so the split heuristic counts ceil(G * Sq / query_tile) x Hkv x B
// workgroups.
void decode_attn(runtime::Device& device, const PagedAttnArgs& args) {
  PagedAttnProblem pp = validate_decode_attn(device, args);
  if (pp.attn.empty())
    return;
  const int64_t group = pp.attn.heads_q / pp.attn.heads_kv;
  const bool packed = group > 1;
  FlashAttnProblem tiles = pp.attn;
  if (packed) {
    tiles.seqlen_q = group * pp.attn.seqlen_q;
    tiles.heads_q = pp.attn.heads_kv;
  }
  pp.attn.num_splits = choose_num_splits(tiles, split_heuristic_of(tiles));
  launch_paged_attn(device, args, pp, packed);
}

} // namespace tw::kernels
