#include "tilewave/library_kernels.hpp"

#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/attention/linear_attn_kernel.hpp>
#include <kernels/attention/mla_decode_kernel.hpp>
#include <kernels/attention/qk_norm_quant_kernel.hpp>
#include <kernels/common/dtype.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <algorithm>
#include <mutex>
#include <vector>

namespace tw::tool {

namespace {

using kernels::gemm_kernel::ActQuant;
using kernels::gemm_kernel::GemmKernelSpec;
using kernels::gemm_kernel::ScaleKind;

bool flag(const emit::ParamReader& p, const std::string& name) {
  return p.one_of(name, {0, 1}) == 1;
}

kernels::MatrixOrder order(const emit::ParamReader& p, const std::string& name) {
  const std::string& v = p.str(name);
  if (v == "row")
    return kernels::MatrixOrder::row_major;
  if (v == "col")
    return kernels::MatrixOrder::col_major;
  p.reject(name, "must be row or col");
}

kernels::DType dtype(const emit::ParamReader& p, const std::string& name) {
  if (auto d = kernels::try_parse_dtype(p.str(name)))
    return *d;
  p.reject(name, "is not a dtype name (f32, f16, bf16, e4m3, e5m2, int8, ...)");
}

ScaleKind scale(const emit::ParamReader& p, const std::string& name) {
  const std::string& v = p.str(name);
  if (v == "none")
    return ScaleKind::none;
  if (v == "tensor")
    return ScaleKind::tensorwise;
  if (v == "row")
    return ScaleKind::rowwise;
  p.reject(name, "must be none, tensor or row");
}

ActQuant quant(const emit::ParamReader& p, const std::string& name) {
  const std::string& v = p.str(name);
  if (v == "none")
    return ActQuant::none;
  if (v == "tensor")
    return ActQuant::given_tensorwise;
  if (v == "row")
    return ActQuant::given_rowwise;
  if (v == "dynamic")
    return ActQuant::dynamic_rowwise;
  p.reject(name, "must be none, tensor, row or dynamic");
}

kernels::gemm_kernel::GemmTile tile(const emit::ParamReader& p, const std::string& name) {
  if (auto t = kernels::gemm_kernel::parse_gemm_tile(p.str(name)))
    return *t;
  p.reject(name, "must be t128x128w4, t128x128w8, t32x128w4 or t128x32w4");
}

kernels::gemm_kernel::SplitKPass split_k(const emit::ParamReader& p, const std::string& name) {
  using kernels::gemm_kernel::SplitKPass;
  const std::string& v = p.str(name);
  if (v == "none")
    return SplitKPass::none;
  if (v == "partial")
    return SplitKPass::partial;
  if (v == "reduce")
    return SplitKPass::reduce;
  p.reject(name, "must be none, partial or reduce");
}

ir::Kernel build_gemm(const emit::ParamReader& p) {
  GemmKernelSpec s;
  s.a = dtype(p, "a");
  s.b = dtype(p, "b");
  s.out = dtype(p, "out");
  s.a_order = order(p, "a_order");
  s.b_order = order(p, "b_order");
  s.a_vec_aligned = flag(p, "a_aligned");
  s.b_vec_aligned = flag(p, "b_aligned");
  s.alpha_beta = flag(p, "alpha_beta");
  s.has_c = flag(p, "c");
  s.has_bias = flag(p, "bias");
  s.scale_a = scale(p, "scale_a");
  s.scale_b = scale(p, "scale_b");
  s.mx_block_scales = flag(p, "mx");
  s.act_quant = quant(p, "quant");
  s.x = dtype(p, "x");
  s.write_scale_out = flag(p, "scale_out");
  s.lora = flag(p, "lora");
  s.lora_vec_aligned = flag(p, "lora_aligned");
  s.grouped = flag(p, "grouped");
  s.tile = tile(p, "tile");
  s.split_k = split_k(p, "split_k");
  // Clipped edges where the kernel takes them (as the launch picks them, gemm_clip_support).
  const kernels::gemm_kernel::GemmClipSupport clip = gemm_clip_support(s);
  s.a_clipped = flag(p, "a_clipped") && clip.a;
  s.b_clipped = flag(p, "b_clipped") && clip.b;
  s.out_clipped = flag(p, "out_clipped") && clip.out;
  // K a multiple of the K tile where a clipped operand is k-contiguous (as gemm_k_whole).
  s.k_whole =
      flag(p, "k_whole") && ((s.a_clipped && s.a_order == kernels::MatrixOrder::row_major) ||
                             (s.b_clipped && s.b_order == kernels::MatrixOrder::col_major));
  return kernels::gemm_kernel::build_gemm_kernel(s); // rejects unsupported combinations
}

kernels::AttnBiasKind bias_kind(const emit::ParamReader& p, const std::string& name) {
  const std::string& v = p.str(name);
  if (v == "none")
    return kernels::AttnBiasKind::none;
  if (v == "additive")
    return kernels::AttnBiasKind::additive;
  if (v == "mask")
    return kernels::AttnBiasKind::bool_mask;
  p.reject(name, "must be none, additive or mask");
}

kernels::FlashAttnProblem::Alibi alibi(const emit::ParamReader& p, const std::string& name) {
  const std::string& v = p.str(name);
  if (v == "none")
    return kernels::FlashAttnProblem::Alibi::none;
  if (v == "scalar")
    return kernels::FlashAttnProblem::Alibi::scalar;
  if (v == "per_head")
    return kernels::FlashAttnProblem::Alibi::per_head;
  p.reject(name, "must be none, scalar or per_head");
}

kernels::flash_attn_kernel::FlashAttnKernelSpec::KvPaging paging(const emit::ParamReader& p,
                                                                 const std::string& name) {
  using P = kernels::flash_attn_kernel::FlashAttnKernelSpec::KvPaging;
  const std::string& v = p.str(name);
  if (v == "none")
    return P::none;
  if (v == "table")
    return P::table;
  if (v == "csr")
    return P::csr;
  p.reject(name, "must be none, table or csr");
}

ir::Kernel build_flash_attn(const emit::ParamReader& p) {
  namespace fk = kernels::flash_attn_kernel;
  fk::FlashAttnKernelSpec s;
  s.dtype = dtype(p, "dtype");
  s.out = dtype(p, "out");
  const std::vector<int64_t> dims = {32, 40, 48, 64, 72, 80, 96, 128, 160, 192, 224, 256};
  s.head_dim_pad = s.head_dim_v_pad =
      fk::padded_head_dim(std::max(p.one_of("d", dims), p.one_of("dv", dims)));
  s.varlen = flag(p, "varlen");
  s.windowed = flag(p, "causal");
  s.bias = bias_kind(p, "bias");
  s.bias_dtype = dtype(p, "bias_dtype");
  s.alibi = alibi(p, "alibi");
  s.softcap = flag(p, "softcap");
  s.lse = flag(p, "lse");
  s.dropout = flag(p, "dropout");
  s.split = flag(p, "split");
  s.vec_aligned = flag(p, "aligned");
  s.v_transpose_loads = s.vec_aligned; // every listed head dim is a multiple of 8
  s.paging = paging(p, "paging");
  s.gqa_packed = flag(p, "gqa");
  s.waves = int(p.one_of("query_tile", {64, 128})) / 16; // one 16-row column per wave
  // K through a clipped buffer descriptor, as launch_flash_attn picks it for aligned rows whose
  // head dim is a multiple of the 128-bit run (16 elements for 8-bit dtypes)
  const int64_t k_run = dtype_bits(s.dtype) == 8 ? 16 : 8;
  s.k_clipped = s.vec_aligned && s.paging == fk::FlashAttnKernelSpec::KvPaging::none &&
                p.one_of("d", dims) % k_run == 0;
  return fk::build_flash_attn_kernel(s); // rejects unsupported combinations
}

ir::Kernel build_linear_attn(const emit::ParamReader& p) {
  namespace lk = kernels::linear_attn_kernel;
  lk::LinearAttnKernelSpec s;
  s.dtype = dtype(p, "dtype");
  s.out = dtype(p, "out");
  s.head_dim_pad = lk::padded_head_dim(p.one_of("d", {32, 64, 96, 100, 128, 160, 192, 224, 256}));
  s.decay = flag(p, "decay");
  s.normalize = flag(p, "normalize");
  // clipped Q / K and transpose-loaded K^T, as linear_attn picks it for 16-byte aligned rows
  // whose head dim is a multiple of 8
  s.clipped =
      flag(p, "aligned") && p.one_of("d", {32, 64, 96, 100, 128, 160, 192, 224, 256}) % 8 == 0;
  return lk::build_linear_attn_kernel(s); // rejects unsupported dtypes
}

ir::Kernel build_mla_decode(const emit::ParamReader& p) {
  namespace mk = kernels::mla_decode_kernel;
  mk::MlaDecodeKernelSpec s;
  s.dtype = dtype(p, "dtype");
  s.out = dtype(p, "out");
  s.causal = flag(p, "causal");
  s.lse = flag(p, "lse");
  s.split = flag(p, "split");
  const std::string& table = p.str("paging");
  if (table != "table" && table != "csr")
    p.reject("paging", "must be table or csr");
  s.csr = table == "csr";
  s.vec_aligned = flag(p, "aligned");
  return mk::build_mla_decode_kernel(s); // rejects unsupported dtypes
}

ir::Kernel build_qk_norm_quant(const emit::ParamReader& p) {
  namespace qk = kernels::qk_norm_quant_kernel;
  const std::string& style = p.str("style");
  if (style != "neox" && style != "interleaved")
    p.reject("style", "must be neox or interleaved");
  const std::string& cache = p.str("cache");
  std::optional<kernels::DType> cache_dtype;
  if (cache != "none")
    cache_dtype = dtype(p, "cache");
  const int64_t head_dim = p.integer_in("head_dim", 2, 4096);
  const int64_t rope_dim = p.integer_in("rope_dim", 0, head_dim);
  if (rope_dim % 2 != 0)
    p.reject("rope_dim", "must be even (0: the whole head)");
  const int threads = int(p.one_of("threads", {32, 64, 128, 256, 512, 1024}));
  const qk::QkNormQuantKernelSpec s =
      qk::make_spec(dtype(p, "x"), dtype(p, "codes"),
                    style == "neox" ? kernels::RopeStyle::neox : kernels::RopeStyle::interleaved,
                    flag(p, "ids"), cache_dtype, head_dim, rope_dim == 0 ? head_dim : rope_dim,
                    int(p.one_of("vec", {1, 2, 4, 8, 16})), threads);
  return qk::build_qk_norm_quant_kernel(s);
}

// What `tilewave aot --all` ships of the GEMM family: one configuration per kernel
// (kernels/gemm/gemm_api.hpp) in each block tile the heuristic picks from (t128x128w4,
// t128x128w8, t32x128w4, t128x32w4: kernels/gemm/gemm_config.hpp; MX without t128x128w8,
// which it does not offer), and the two split-K passes
// of the f16 GEMM and of scaled_mm in the three tiles the heuristic splits with (t128x128w8,
// t32x128w4, t128x32w4).
std::vector<emit::KernelParams> gemm_shipped_configs() {
  const std::vector<emit::KernelParams> family = {
      {},                             // gemm f16
      {{"a", "bf16"}, {"b", "bf16"}}, // gemm bf16
      {{"a", "e4m3"},
       {"b", "e4m3"},
       {"out", "bf16"},
       {"scale_a", "row"},
       {"scale_b", "row"}}, // scaled_mm
      {{"a", "e4m3"},
       {"b", "e4m3"},
       {"out", "bf16"},
       {"scale_a", "row"},
       {"scale_b", "row"},
       {"grouped", "1"}}, // scaled_mm_multi
      {{"a", "e4m3"},
       {"b", "e4m3"},
       {"out", "bf16"},
       {"scale_b", "row"},
       {"quant", "dynamic"},
       {"x", "bf16"}},                                                   // scaled_mm_fused_quant
      {{"a", "f16"}, {"b", "int8"}, {"out", "f16"}, {"scale_b", "row"}}, // w8a16
      {{"a", "int8"},
       {"b", "int8"},
       {"out", "bf16"},
       {"scale_a", "row"},
       {"scale_b", "row"}}, // int8_linear
      {{"a", "int8"},
       {"b", "int8"},
       {"out", "bf16"},
       {"scale_b", "row"},
       {"quant", "dynamic"},
       {"x", "bf16"},
       {"lora", "1"}},                                               // int8_linear_fused
      {{"a", "int4"}, {"b", "int4"}, {"out", "i32"}},                // iu4_gemm
      {{"a", "e4m3"}, {"b", "e4m3"}, {"out", "bf16"}, {"mx", "1"}}}; // mxfp8_gemm
  std::vector<emit::KernelParams> configs;
  for (kernels::gemm_kernel::GemmTile t : kernels::gemm_kernel::all_gemm_tiles)
    for (emit::KernelParams c : family) {
      if (t == kernels::gemm_kernel::GemmTile::t128x128w8 && c.count("mx"))
        continue; // not offered (kernels::gemm_kernel::gemm_tile_offered)
      c["tile"] = std::string(kernels::gemm_kernel::gemm_tile_name(t));
      configs.push_back(c);
    }
  for (const char* t : {"t128x128w8", "t32x128w4", "t128x32w4"})
    for (const char* pass : {"partial", "reduce"}) {
      configs.push_back({{"tile", t}, {"split_k", pass}}); // gemm f16
      configs.push_back({{"a", "e4m3"},
                         {"b", "e4m3"},
                         {"out", pass == std::string("partial") ? "f32" : "bf16"},
                         {"scale_a", pass == std::string("partial") ? "none" : "row"},
                         {"scale_b", pass == std::string("partial") ? "none" : "row"},
                         {"tile", t},
                         {"split_k", pass}}); // scaled_mm
    }
  return configs;
}

} // namespace

void register_library_kernels(emit::KernelRegistry& registry) {
  static std::once_flag once;
  std::call_once(once, [&] {
    registry.add({"gemm",
                  "kernels/gemm: out = A * B (block tiles 128x128 with 4 or 8 waves, 32x128 and "
                  "128x32 with 4, split-K, LDS double buffering, WMMA)",
                  {{"a", "f16", "A storage dtype"},
                   {"b", "f16", "B storage dtype"},
                   {"out", "f32", "output dtype"},
                   {"a_order", "row", "row or col"},
                   {"b_order", "col", "row or col"},
                   {"a_aligned", "1", "1: A rows 16-byte aligned (128-bit loads), 0: any"},
                   {"b_aligned", "1", "1: B columns 16-byte aligned (128-bit loads), 0: any"},
                   {"a_clipped", "1",
                    "1: A's edge tiles through clipped buffer loads (the launch picks it when A "
                    "allows); used where the kernel takes it (gemm_clip_support: a_aligned = 1, "
                    "not mx, quant, int4, w8a16 or the split_k reduce pass), else 0"},
                   {"b_clipped", "1", "1: the same for B"},
                   {"k_whole", "0",
                    "1: K is a multiple of the K tile (32; 64 for 8-bit): a clipped "
                    "k-contiguous operand's loads skip the K-edge choice (the launch picks it "
                    "for such K), used where a clipped operand is k-contiguous, else 0"},
                   {"out_clipped", "1",
                    "1: out's stores through a clipped buffer descriptor (ldo >= N; kernels "
                    "with buffer copies, not the split_k partial pass), 0: masked stores"},
                   {"alpha_beta", "0", "0 or 1"},
                   {"c", "0", "0 or 1: add beta * C"},
                   {"bias", "0", "0 or 1"},
                   {"scale_a", "none", "none, tensor or row: scale of a's rows in the epilogue"},
                   {"scale_b", "none", "none, tensor or row: scale of b's columns"},
                   {"mx", "0", "1: MX e8m0 block scales (32 k per scale) in the main loop"},
                   {"quant", "none",
                    "none, tensor, row or dynamic: quantize the activation x into a's dtype"},
                   {"x", "f16", "the activation dtype when quant != none (f16 or bf16)"},
                   {"scale_out", "0", "1: dynamic quant writes the per-row scale"},
                   {"lora", "0", "1: the LoRA block (quant != none)"},
                   {"lora_aligned", "1", "1: LoRA t and up rows 16-byte aligned"},
                   {"grouped", "0", "1: one launch over a table of problems"},
                   {"tile", "t128x128w4",
                    "block tile: t128x128w4, t128x128w8 (8 waves), t32x128w4 (small M) or "
                    "t128x32w4 (skinny N)"},
                   {"split_k", "none",
                    "none, partial (K range of block z into the workspace) or reduce (sum of "
                    "the partials, then the epilogue)"}},
                  build_gemm,
                  gemm_shipped_configs()});
    registry.add(
        {"flash_attn",
         "kernels/attention: flash attention forward (64- or 128-query tile, 4 or 8 waves, "
         "S^T = K Q^T, P^T from registers into O^T = V^T P^T, online softmax)",
         {{"dtype", "bf16", "q / k / v dtype: bf16, f16, e4m3, e5m2 or int8"},
          {"out", "bf16", "output dtype: bf16 or f16"},
          {"d", "128", "query head dim (padded to a multiple of 32 in the kernel)"},
          {"dv", "128", "value head dim"},
          {"varlen", "0", "1: packed sequences with cu_seqlens"},
          {"causal", "0", "1: causal or sliding-window masks (bounds are kernel arguments)"},
          {"bias", "none", "none, additive or mask"},
          {"bias_dtype", "f32", "dtype of the bias / mask"},
          {"alibi", "none", "none, scalar or per_head"},
          {"softcap", "0", "1: logit softcap"},
          {"lse", "0", "1: write the log-sum-exp"},
          {"dropout", "0", "1: dropout (Philox4x32-10, p / seed / offset are arguments)"},
          {"split", "0", "1: write split-KV partials"},
          {"aligned", "1", "1: q / k / v rows 16-byte aligned (128-bit loads)"},
          {"paging", "none",
           "none, table or csr: k / v are page pools read through a block table (paged_attn, "
           "decode_attn)"},
          {"gqa", "0",
           "1: GQA packing, the query rows of a kv head's query heads in one tile "
           "(decode_attn)"},
          {"query_tile", "64",
           "query rows per workgroup: 64 (4 waves) or 128 (8 waves, flash_attn's default for "
           "D > 128 and Sq > 64)"}},
         build_flash_attn,
         {{},
          {{"causal", "1"}},
          {{"d", "64"}, {"dv", "64"}},
          {{"d", "256"}, {"dv", "256"}},
          {{"d", "256"}, {"dv", "256"}, {"query_tile", "128"}}, // the default for Sq > 64
          {{"dtype", "f16"}, {"out", "f16"}},
          {{"varlen", "1"}, {"causal", "1"}, {"lse", "1"}},
          {{"split", "1"}},
          {{"dtype", "e4m3"}},
          {{"dtype", "e5m2"}},
          {{"dtype", "int8"}},
          // paged_attn / decode_attn (kernels/attention/paged_attn_api.hpp)
          {{"paging", "table"}},
          {{"paging", "csr"}, {"varlen", "1"}, {"causal", "1"}, {"lse", "1"}},
          {{"paging", "table"}, {"dtype", "int8"}},
          {{"paging", "table"}, {"gqa", "1"}},
          {{"paging", "table"}, {"gqa", "1"}, {"split", "1"}},
          {{"paging", "csr"}, {"gqa", "1"}, {"causal", "1"}, {"dtype", "e4m3"}}}});
    registry.add({"linear_attn",
                  "kernels/attention: causal linear attention (chunks of 16 on WMMA, one wave, "
                  "the D x 16 state in registers)",
                  {{"dtype", "bf16", "q / k / v dtype: bf16 or f16"},
                   {"out", "bf16", "output dtype: bf16, f16 or f32"},
                   {"d", "128", "head dim (padded to a multiple of 32 in the kernel)"},
                   {"decay", "0", "1: per-head decay lambda^(i - j)"},
                   {"normalize", "0", "1: divide by the normalizer (a column of ones)"},
                   {"aligned", "1",
                    "1: q / k / v rows 16-byte aligned (clipped buffer loads, K^T by transpose "
                    "loads)"}},
                  build_linear_attn,
                  {{},
                   {{"decay", "1"}},
                   {{"dtype", "f16"}, {"out", "f16"}, {"normalize", "1"}},
                   {{"d", "256"}, {"decay", "1"}, {"normalize", "1"}}}});
    registry.add({"mla_decode",
                  "kernels/attention: MLA decode over a paged latent cache (q 576, v 512; 16 "
                  "packed query rows, 4 waves splitting K's and V's widths, S^T summed in LDS)",
                  {{"dtype", "bf16", "q / cache dtype: bf16, f16, e4m3, e5m2 or int8"},
                   {"out", "bf16", "output dtype: bf16 or f16"},
                   {"causal", "0", "1: bottom-right causal mask (Sq > 1)"},
                   {"lse", "0", "1: write the log-sum-exp"},
                   {"split", "0", "1: write split-KV partials"},
                   {"paging", "table", "table or csr: the block table's form"},
                   {"aligned", "1", "1: q / cache / out rows 16-byte aligned (transpose loads)"}},
                  build_mla_decode,
                  {{},
                   {{"dtype", "f16"}, {"out", "f16"}, {"causal", "1"}, {"paging", "csr"}},
                   {{"lse", "1"}, {"split", "1"}},
                   {{"dtype", "e4m3"}},
                   {{"dtype", "e5m2"}},
                   {{"dtype", "int8"}}}});
    registry.add({"qk_norm_quant",
                  "kernels/attention: quant QK-norm (per-head RMSNorm, RoPE on the tail, "
                  "per-(token, head) fp8 / int8 codes and scale; one workgroup per head)",
                  {{"x", "bf16", "q / k and weight dtype: f16, bf16 or f32"},
                   {"codes", "e4m3", "code dtype: int8, e4m3 or e5m2"},
                   {"head_dim", "128", "head dim"},
                   {"rope_dim", "64", "the rotated tail (even; 0: the whole head)"},
                   {"style", "neox", "neox or interleaved pairs"},
                   {"ids", "0", "1: position ids [tokens]; 0: position offset"},
                   {"cache", "none", "none (computed angles) or the cos / sin cache dtype"},
                   {"vec", "8", "elements per vector run (1, 2, 4, 8, 16; 16 bytes at most)"},
                   {"threads", "256", "workgroup size"}},
                  build_qk_norm_quant,
                  {{},
                   {{"codes", "int8"}, {"style", "interleaved"}, {"ids", "1"}},
                   {{"x", "f16"}, {"codes", "e5m2"}, {"rope_dim", "0"}, {"cache", "f32"}},
                   {{"head_dim", "576"}, {"rope_dim", "64"}, {"ids", "1"}}}});
  });
}

} // namespace tw::tool
