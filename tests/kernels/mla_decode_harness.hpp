#pragma once
// What the MLA decode tests share: a case (dtype, batch, Sq, query heads, ragged key lengths,
// page size, table form, causal, lse, split count, descales), its inputs (the queries and a
// latent cache [pages, page_size, 576] whose pages the table hands out shuffled, from the paged
// attention harness), the run through kernels::mla_decode with both emitters on the memcheck
// emulator, and the comparison against the float64 reference (oracles/mla_decode.hpp, which
// gathers the pages itself) with the flash attention tolerance (attention_harness.hpp).
#include "paged_attention_harness.hpp"
// (after oracles.hpp, which the harness includes: the reference builds on oracles/paged_attention)
#include "oracles/mla_decode.hpp"

#include <kernels/attention/mla_decode_api.hpp>
#include <kernels/attention/mla_decode_kernel.hpp>

namespace tw::oracle::attention_test {

struct MlaCase {
  DType dtype = DType::bf16, out = DType::bf16;
  int64_t batch = 1, sq = 1, hq = 16;
  std::vector<int32_t> seqlens_k{40};
  int64_t page_size = 16;
  bool csr = false, causal = false, lse = true;
  int num_splits = 1;
  float q_descale = 1.0f, k_descale = 1.0f, v_descale = 1.0f;
  // extra elements after each 576-wide row of q and of the cache (1: rows not 16-byte
  // aligned, the kernel's element-wise load path)
  int64_t row_pad = 0;
  uint64_t seed = 1;
};

// The paged case whose inputs the MLA case uses: one kv head of width 576 (its k pool is the
// latent cache; the v pool is not used).
inline PagedCase paged_case_of(const MlaCase& m) {
  PagedCase pc;
  Case& c = pc.attn;
  c.dtype = m.dtype;
  c.out = m.out;
  c.batch = int64_t(m.seqlens_k.size());
  c.sq = m.sq;
  c.hq = m.hq;
  c.hkv = 1;
  c.d = kernels::mla_qk_dim + m.row_pad;
  c.dv = 16; // the unused v pool stays small
  c.causal = m.causal;
  c.lse = m.lse;
  c.num_splits = m.num_splits;
  c.q_descale = m.q_descale;
  c.k_descale = m.k_descale;
  c.v_descale = m.v_descale;
  c.seed = m.seed;
  pc.seqlens_k = m.seqlens_k;
  pc.page_size = m.page_size;
  pc.csr = m.csr;
  return pc;
}

// The cache view [pages, page_size, 576] of a k pool [pages, page_size, 1, 576 + row pad].
inline TensorView latent_view(TensorView pool) {
  pool.shape = {pool.shape[0], pool.shape[1], kernels::mla_qk_dim};
  pool.strides = {pool.strides[0], pool.strides[1], 1};
  return pool;
}

template <class View>
kernels::MlaDecodeArgs mla_args_of(const MlaCase& m, const PagedInputs& in, HostTensor& out,
                                   HostTensor& lse, View&& view) {
  kernels::MlaDecodeArgs a;
  a.q = view(in.q_side.q);
  a.q.shape[3] = kernels::mla_qk_dim; // the first 576 of each (padded) row
  a.kv_cache = latent_view(view(in.k_pool));
  a.out = view(out);
  if (m.lse)
    a.lse = view(lse);
  a.causal = m.causal;
  a.q_descale = m.q_descale;
  a.k_descale = m.k_descale;
  a.v_descale = m.v_descale;
  a.num_splits = m.num_splits;
  a.paged.seqlens_k = view(in.seqlens);
  if (m.csr) {
    a.paged.block_table_indptr = view(in.indptr);
    a.paged.block_table_indices = view(in.indices);
  } else {
    a.paged.block_table = view(in.table);
  }
  return a;
}

// Runs the case through mla_decode with both emitters on the memcheck emulator and checks out
// (and lse) against the reference.
inline void run_mla_case(const MlaCase& m) {
  const PagedCase pc = paged_case_of(m);
  const Case& c = pc.attn;
  CAPTURE(c.describe());
  CAPTURE(m.page_size);
  CAPTURE(m.csr);
  CAPTURE(m.num_splits);
  const PagedInputs in = make_paged_inputs(pc);
  const Extents out_shape{c.batch, c.sq, c.hq, kernels::mla_v_dim};
  const Extents lse_shape{c.batch, c.hq, c.sq};
  HostTensor ref_out(c.out, out_shape), ref_lse(DType::f32, lse_shape);
  const AttentionReference want =
      mla_decode(mla_args_of(m, in, ref_out, ref_lse, [](const HostTensor& t) { return t.view(); }),
                 c.dtype == DType::int8 ? kernels::mla_decode_kernel::kv_block(c.dtype) : 0);
  runtime::EmuDevice& dev = emu_device();
  for_each_backend([&](emit::Backend) {
    DeviceTensors dt(dev);
    HostTensor out(c.out, out_shape), lse(DType::f32, lse_shape);
    const kernels::MlaDecodeArgs a =
        mla_args_of(m, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
    kernels::mla_decode(dev, a);
    kernels::FlashAttnArgs outs;
    outs.out = a.out;
    outs.lse = a.lse;
    check_outputs(c, want, dev, outs, out, lse);
  });
}

} // namespace tw::oracle::attention_test
