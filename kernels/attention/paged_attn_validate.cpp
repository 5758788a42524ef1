// Argument validation of paged attention (rules in paged_attn_api.hpp and docs/kernels.md
// "Paged attention"): the page pools, the block table (either form), the key lengths against
// the table's capacity and every used page index against the pool, all before the device
// runs anything (tables and lengths are read back, never written). The query side and the
// options are flash_attn's rules (attn_validate_parts.hpp).
#include <kernels/attention/attn_validate_parts.hpp>
#include <kernels/attention/paged_attn_api.hpp>
#include <kernels/attention/paged_kv_validate.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tw::kernels {

namespace {

using namespace attn_validate;
using runtime::Device;

std::vector<int32_t> read_i32(Device& dev, runtime::DevicePtr at, int64_t count) {
  std::vector<int32_t> v(size_t(std::max<int64_t>(count, 0)));
  if (!v.empty())
    dev.copy_to_host(v.data(), at, v.size() * sizeof(int32_t));
  return v;
}

// An int32 vector argument: in memory, int32, rank 1, contiguous.
void check_i32_vector(const ArgChecker& chk, const Device& dev, const TensorView& t,
                      std::string_view arg) {
  check_memory(chk, dev, t, arg);
  chk.dtype_in(t, arg, {DType::i32});
  chk.rank(t, arg, 1);
  chk.contiguous_vector(t, arg);
}

} // namespace

int64_t check_paged_kv(const ArgChecker& chk, Device& dev, const PagedKv& pk, int64_t batch,
                       int64_t page_size, int64_t num_pages, std::string_view pools,
                       bool& csr_out) {
  check_i32_vector(chk, dev, pk.seqlens_k, "seqlens_k");
  chk.shape_is(pk.seqlens_k, "seqlens_k", {batch}, "[B], one key count per sequence");
  const std::vector<int32_t> lens = read_i32(dev, pk.seqlens_k.device_address, batch);
  for (int64_t b = 0; b < batch; ++b)
    if (lens[size_t(b)] < 0)
      chk.fail("seqlens_k", "has " + std::to_string(lens[size_t(b)]) + " at index " +
                                std::to_string(b) + "; expected a key count >= 0");

  // -- the block table: one form; lengths within its capacity; every used page in the pool
  const bool dense_table = pk.block_table.has_value();
  const bool csr = pk.block_table_indptr.has_value() || pk.block_table_indices.has_value();
  if (dense_table && csr)
    chk.fail("block_table", "is given together with block_table_indptr / block_table_indices; "
                            "expected one form of block table");
  if (!dense_table && !(pk.block_table_indptr && pk.block_table_indices))
    chk.fail(pk.block_table_indptr ? "block_table_indices"
             : csr                 ? "block_table_indptr"
                                   : "block_table",
             "is missing; expected block_table [B, max_blocks] or both block_table_indptr "
             "[B + 1] and block_table_indices (CSR)");
  csr_out = csr;
  // pages[b]: the table entries of sequence b (its row, or its CSR slice).
  std::vector<std::vector<int32_t>> pages(static_cast<size_t>(batch));
  std::string table_arg;
  if (dense_table) {
    const TensorView& t = *pk.block_table;
    table_arg = "block_table";
    check_memory(chk, dev, t, table_arg);
    chk.dtype_in(t, table_arg, {DType::i32});
    chk.rank(t, table_arg, 2);
    if (t.shape[0] != batch)
      chk.fail(table_arg, "has shape " + format_extents(t.shape) +
                              "; expected [B, max_blocks] with B = " + std::to_string(batch) +
                              " sequences");
    check_last_contiguous(chk, t, table_arg, "block slot");
    for (int64_t b = 0; b < batch; ++b)
      pages[size_t(b)] = read_i32(
          dev, t.device_address + uint64_t(b * t.strides[0]) * sizeof(int32_t), t.shape[1]);
  } else {
    const TensorView &ip = *pk.block_table_indptr, &ix = *pk.block_table_indices;
    table_arg = "block_table_indices";
    check_i32_vector(chk, dev, ip, "block_table_indptr");
    check_i32_vector(chk, dev, ix, "block_table_indices");
    chk.shape_is(ip, "block_table_indptr", {batch + 1},
                 "[B + 1], one offset per sequence and the end");
    const std::vector<int32_t> ptr = read_i32(dev, ip.device_address, batch + 1);
    const std::vector<int32_t> all = read_i32(dev, ix.device_address, ix.shape[0]);
    for (int64_t b = 0; b < batch; ++b) {
      const int32_t lo = ptr[size_t(b)], hi = ptr[size_t(b + 1)];
      if (lo < 0 || hi < lo || hi > ix.shape[0])
        chk.fail("block_table_indptr",
                 "has " + std::to_string(lo) + ", " + std::to_string(hi) + " at indices " +
                     std::to_string(b) + ", " + std::to_string(b + 1) +
                     "; expected non-decreasing offsets from 0 to at most the " +
                     std::to_string(ix.shape[0]) + " entries of 'block_table_indices'");
      pages[size_t(b)].assign(all.begin() + lo, all.begin() + hi);
    }
  }
  int64_t longest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<int32_t>& row = pages[size_t(b)];
    const int64_t len = lens[size_t(b)], used = (len + page_size - 1) / page_size;
    if (used > int64_t(row.size()))
      chk.fail("seqlens_k", "has " + std::to_string(len) + " at index " + std::to_string(b) +
                                "; expected at most the " +
                                std::to_string(int64_t(row.size()) * page_size) +
                                " keys of its block table (" + std::to_string(row.size()) +
                                " pages of " + std::to_string(page_size) + ")");
    for (int64_t s = 0; s < used; ++s) {
      const int32_t page = row[size_t(s)];
      if (page < 0 || page >= num_pages) {
        std::string where = "has page ";
        where += std::to_string(page);
        where += " for batch " + std::to_string(b);
        where += ", slot " + std::to_string(s);
        where += "; expected a page index in [0, num_pages = " + std::to_string(num_pages);
        where += ") of ";
        where += pools;
        chk.fail(table_arg, where);
      }
    }
    longest = std::max(longest, len);
  }
  return longest;
}

PagedAttnProblem validate_paged_attn(const Device& device, const PagedAttnArgs& args) {
  return validate_paged_attn(ArgChecker("paged_attn"), device, args);
}

PagedAttnProblem validate_paged_attn(const ArgChecker& chk, const Device& device,
                                     const PagedAttnArgs& args) {
  Device& dev = const_cast<Device&>(device); // tables and lengths are read back
  const FlashAttnArgs& a = args.attn;
  const PagedKv& pk = args.paged;
  PagedAttnProblem pp;
  FlashAttnProblem& p = pp.attn;

  // -- memory and dtypes of q, the pools, out
  check_memory(chk, device, a.q, "q");
  check_memory(chk, device, a.k, "k");
  check_memory(chk, device, a.v, "v");
  check_memory(chk, device, a.out, "out");
  chk.dtype_in(a.q, "q", {DType::bf16, DType::f16, DType::e4m3, DType::e5m2, DType::int8});
  chk.same_dtype(a.k, "k", a.q, "q");
  chk.same_dtype(a.v, "v", a.q, "q");
  chk.dtype_in(a.out, "out", {DType::bf16, DType::f16});
  p.dtype = a.q.dtype;
  p.out_dtype = a.out.dtype;

  // -- the queries: dense or varlen; the keys come from the pages only
  if (a.cu_seqlens_k)
    chk.fail("cu_seqlens_k", "is given with a paged cache; expected none (the key lengths are "
                             "'seqlens_k')");
  if (a.max_seqlen_k != 0)
    chk.fail_parameter("max_seqlen_k", "is " + std::to_string(a.max_seqlen_k) +
                                           " with a paged cache; expected 0 (the key lengths "
                                           "are 'seqlens_k')");
  p.varlen = a.cu_seqlens_q.has_value();
  const int rank = p.varlen ? 3 : 4, head = p.varlen ? 1 : 2;
  chk.rank(a.q, "q", rank);
  chk.rank(a.out, "out", rank);
  chk.rank(a.k, "k", 4);
  chk.rank(a.v, "v", 4);

  // -- the pools: [num_pages, page_size, Hkv, D] and [num_pages, page_size, Hkv, Dv]
  chk.extent_matches(a.k, "k", 3, "D", a.q, "q", rank - 1);
  chk.extent_matches(a.v, "v", 0, "num_pages", a.k, "k", 0);
  chk.extent_matches(a.v, "v", 1, "page_size", a.k, "k", 1);
  chk.extent_matches(a.v, "v", 2, "Hkv", a.k, "k", 2);
  check_heads(chk, a, head, a.k.shape[2], p.varlen, p);
  const int64_t page_size = a.k.shape[1], num_pages = a.k.shape[0];
  if (page_size < 16 || page_size > 256 || page_size % 16 != 0)
    chk.fail("k", "has page_size " + std::to_string(page_size) +
                      " (dimension 1); expected a multiple of 16 from 16 to 256");
  pp.page_size = page_size;
  pp.num_pages = num_pages;

  // -- sequences: the query offsets or the dense Sq, and the key lengths
  if (p.varlen) {
    const TensorView& cq = *a.cu_seqlens_q;
    check_i32_vector(chk, device, cq, "cu_seqlens_q");
    if (cq.shape[0] < 1)
      chk.fail("cu_seqlens_q", "has shape " + format_extents(cq.shape) +
                                   "; expected [B + 1] offsets (at least the leading 0)");
    if (a.max_seqlen_q < 0)
      chk.fail_parameter("max_seqlen_q", "is " + std::to_string(a.max_seqlen_q) +
                                             "; expected the longest query sequence (>= 0)");
    check_offsets(chk, dev, cq, "cu_seqlens_q", a.q.shape[0], "q", a.max_seqlen_q, "max_seqlen_q");
    p.batch = cq.shape[0] - 1;
    p.seqlen_q = a.max_seqlen_q;
  } else {
    if (a.max_seqlen_q != 0)
      chk.fail_parameter("max_seqlen_q", "is " + std::to_string(a.max_seqlen_q) +
                                             " for dense queries; expected 0 (a varlen "
                                             "parameter, used with cu_seqlens_q)");
    p.batch = a.q.shape[0];
    p.seqlen_q = a.q.shape[1];
  }
  p.seqlen_k = check_paged_kv(chk, dev, pk, p.batch, page_size, num_pages, "'k' / 'v'", pp.csr);

  // -- the options (scalars, ALiBi, lse, num_splits): flash_attn's rules
  validate_attn_options(chk, device, a, p);

  // -- outputs overlap no input, nor each other
  const std::initializer_list<std::pair<const TensorView*, std::string_view>> inputs = {
      {&a.q, "q"},
      {&a.k, "k"},
      {&a.v, "v"},
      {&pk.seqlens_k, "seqlens_k"},
      {pk.block_table ? &*pk.block_table : nullptr, "block_table"},
      {pk.block_table_indptr ? &*pk.block_table_indptr : nullptr, "block_table_indptr"},
      {pk.block_table_indices ? &*pk.block_table_indices : nullptr, "block_table_indices"},
      {a.alibi_slopes ? &*a.alibi_slopes : nullptr, "alibi_slopes"},
      {a.bias ? &*a.bias : nullptr, "bias"},
      {a.cu_seqlens_q ? &*a.cu_seqlens_q : nullptr, "cu_seqlens_q"}};
  for (const auto& [view, name] : inputs)
    if (view) {
      chk.no_overlap(a.out, "out", *view, name);
      if (a.lse)
        chk.no_overlap(*a.lse, "lse", *view, name);
    }
  if (a.lse)
    chk.no_overlap(*a.lse, "lse", a.out, "out");
  return pp;
}

} // namespace tw::kernels
