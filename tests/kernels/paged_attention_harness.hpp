#pragma once
// What the paged attention tests share: a case (the queries and options of attention_harness's
// Case, a bias / mask of [(Hq,) Sq, max seqlens_k], plus the key lengths, page size and table
// form), page pools whose pages are handed out
// in a shuffled order (the table permutes pages; spare pages are never used), the run through
// an entry (paged_attn, decode_attn) with both emitters on the memcheck emulator, and the
// comparison against the float64 paged oracle (oracles/paged_attention.hpp), which gathers the
// pages itself.
#include "attention_harness.hpp"

#include <kernels/attention/paged_attn_api.hpp>

#include <algorithm>
#include <functional>
#include <numeric>

namespace tw::oracle::attention_test {

struct PagedCase {
  Case attn; // queries and options; attn.sk and attn.cu_k are not used
  std::vector<int32_t> seqlens_k;
  int64_t page_size = 16;
  bool csr = false;
  int64_t spare_pages = 3;
};

struct PagedInputs {
  Inputs q_side; // q, alibi slopes, cu_seqlens_q
  HostTensor k_pool, v_pool, table, indptr, indices, seqlens;
};

// The query-side case of a paged case: no keys of its own.
inline Case query_case(const PagedCase& pc) {
  Case c = pc.attn;
  c.sk = 1;
  if (c.varlen())
    c.cu_k.assign(c.cu_q.size(), 0);
  return c;
}

inline PagedInputs make_paged_inputs(const PagedCase& pc) {
  const Case& c = pc.attn;
  PagedInputs in;
  in.q_side = make_inputs(query_case(pc));
  const int64_t batch = int64_t(pc.seqlens_k.size()), ps = pc.page_size;
  if (c.bias != kernels::AttnBiasKind::none) { // [(Hq,) Sq, Sk] with Sk the longest sequence
    Case bc = c;
    bc.sk = *std::max_element(pc.seqlens_k.begin(), pc.seqlens_k.end());
    in.q_side.bias = make_inputs(bc).bias;
  }
  std::vector<int64_t> used(static_cast<size_t>(batch));
  int64_t total = 0, widest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    used[size_t(b)] = (pc.seqlens_k[size_t(b)] + ps - 1) / ps;
    total += used[size_t(b)];
    widest = std::max(widest, used[size_t(b)]);
  }
  const int64_t pages = total + pc.spare_pages;
  // A shuffled pool order (Fisher-Yates with an LCG): sequences get pages out of order.
  std::vector<int32_t> order(static_cast<size_t>(pages));
  std::iota(order.begin(), order.end(), 0);
  uint64_t state = c.seed * 2654435761u + 17;
  for (int64_t n = pages - 1; n > 0; --n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[size_t(n)], order[size_t((state >> 33) % uint64_t(n + 1))]);
  }
  in.seqlens = HostTensor(DType::i32, {batch});
  for (int64_t b = 0; b < batch; ++b)
    in.seqlens.set({b}, pc.seqlens_k[size_t(b)]);
  if (pc.csr) {
    in.indptr = HostTensor(DType::i32, {batch + 1});
    in.indices = HostTensor(DType::i32, {std::max<int64_t>(total, 1)});
    int64_t n = 0;
    for (int64_t b = 0; b < batch; ++b) {
      in.indptr.set({b}, double(n));
      for (int64_t s = 0; s < used[size_t(b)]; ++s, ++n)
        in.indices.set({n}, order[size_t(n)]);
    }
    in.indptr.set({batch}, double(n));
  } else { // one spare slot per row, -1: slots past a sequence's pages are never read
    in.table = HostTensor(DType::i32, {batch, widest + 1});
    int64_t n = 0;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s <= widest; ++s)
        in.table.set({b, s}, s < used[size_t(b)] ? double(order[size_t(n++)]) : -1.0);
  }
  in.k_pool = random_tensor(c.dtype, {pages, ps, c.hkv, c.d}, c.seed * 13 + 2);
  in.v_pool = random_tensor(c.dtype, {pages, ps, c.hkv, c.dv}, c.seed * 13 + 3);
  return in;
}

template <class View>
kernels::PagedAttnArgs paged_args_of(const PagedCase& pc, const PagedInputs& in, HostTensor& out,
                                     HostTensor& lse, View&& view) {
  kernels::PagedAttnArgs a;
  a.attn = args_of(query_case(pc), in.q_side, out, lse, view);
  a.attn.k = view(in.k_pool);
  a.attn.v = view(in.v_pool);
  a.attn.cu_seqlens_k.reset();
  a.attn.max_seqlen_k = 0;
  a.paged.seqlens_k = view(in.seqlens);
  if (pc.csr) {
    a.paged.block_table_indptr = view(in.indptr);
    a.paged.block_table_indices = view(in.indices);
  } else {
    a.paged.block_table = view(in.table);
  }
  return a;
}

using PagedEntry = std::function<void(runtime::Device&, const kernels::PagedAttnArgs&)>;

// Runs the case through `entry` with both emitters on the memcheck emulator and checks out (and
// lse) against the paged oracle. Returns the output bytes of the last run.
inline std::vector<uint8_t> run_paged_case(const PagedCase& pc, const PagedEntry& entry) {
  const Case& c = pc.attn;
  CAPTURE(c.describe());
  CAPTURE(pc.page_size);
  CAPTURE(pc.csr);
  CAPTURE(c.num_splits);
  const PagedInputs in = make_paged_inputs(pc);
  const bool vl = c.varlen();
  const int64_t tq = vl ? c.cu_q.back() : 0;
  const Extents out_shape = vl ? Extents{tq, c.hq, c.dv} : Extents{c.batch, c.sq, c.hq, c.dv};
  const Extents lse_shape = vl ? Extents{c.hq, tq} : Extents{c.batch, c.hq, c.sq};
  HostTensor ref_out(c.out, out_shape), ref_lse(DType::f32, lse_shape);
  kernels::flash_attn_kernel::FlashAttnKernelSpec spec;
  spec.dtype = c.dtype;
  const AttentionReference want = paged_attn(
      paged_args_of(pc, in, ref_out, ref_lse, [](const HostTensor& t) { return t.view(); }),
      c.dtype == DType::int8 ? kernels::flash_attn_kernel::kv_block(spec) : 0);
  runtime::EmuDevice& dev = emu_device();
  std::vector<uint8_t> last;
  for_each_backend([&](emit::Backend) {
    DeviceTensors dt(dev);
    HostTensor out(c.out, out_shape), lse(DType::f32, lse_shape);
    const kernels::PagedAttnArgs a =
        paged_args_of(pc, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
    entry(dev, a);
    last = check_outputs(c, want, dev, a.attn, out, lse);
  });
  return last;
}

} // namespace tw::oracle::attention_test
