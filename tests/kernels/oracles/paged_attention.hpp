#pragma once
// The float64 reference of paged attention (kernels/attention/paged_attn_api.hpp), included from
// tests/kernels/oracles.hpp. It gathers every sequence's keys and values out of the page pools
// itself, by the definition (key j of sequence b is slot j % page_size of page
// table_b[j / page_size], table_b the dense table's row b or the CSR slice
// indices[indptr[b] .. indptr[b + 1])), into packed varlen K / V, and hands them with the same
// queries and options to the flash attention reference (oracles/attention.hpp) as a varlen
// problem: dense queries become the equal-length sequences [b * Sq, (b + 1) * Sq). The lse is
// returned in the layout of the paged call's lse ([B, Hq, Sq] dense, [Hq, Tq] varlen). int8
// pages: `int8_kv_block` is the kernel's KV block, as for flash_attn (P's quantization blocks
// start at each sequence's key 0, which the gathered varlen problem keeps).
#include <kernels/attention/paged_attn_api.hpp>

#include <algorithm>
#include <vector>

namespace tw::oracle {

inline AttentionReference paged_attn(const kernels::PagedAttnArgs& args,
                                     int64_t int8_kv_block = 0) {
  const kernels::FlashAttnArgs& a = args.attn;
  const kernels::PagedKv& pk = args.paged;
  const bool varlen_q = a.cu_seqlens_q.has_value();
  const int64_t page_size = a.k.shape[1], hkv = a.k.shape[2], d = a.k.shape[3];
  const int64_t dv = a.v.shape[3];
  const std::vector<double> lens = decode_flat(pk.seqlens_k);
  const int64_t batch = int64_t(lens.size());
  // The pages of every sequence.
  std::vector<std::vector<int64_t>> table(static_cast<size_t>(batch));
  if (pk.block_table) {
    const std::vector<double> t = decode_flat(*pk.block_table);
    const int64_t width = pk.block_table->shape[1];
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < width; ++s)
        table[size_t(b)].push_back(int64_t(t[size_t(b * width + s)]));
  } else {
    const std::vector<double> ptr = decode_flat(*pk.block_table_indptr);
    const std::vector<double> ix = decode_flat(*pk.block_table_indices);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t n = int64_t(ptr[size_t(b)]); n < int64_t(ptr[size_t(b + 1)]); ++n)
        table[size_t(b)].push_back(int64_t(ix[size_t(n)]));
  }
  // Gather: packed [Tk, Hkv, D] / [Tk, Hkv, Dv] in f32 (every input code is exact in f32).
  int64_t total_k = 0, longest = 0;
  for (double l : lens) {
    total_k += int64_t(l);
    longest = std::max(longest, int64_t(l));
  }
  const std::vector<double> kpool = decode_flat(a.k), vpool = decode_flat(a.v);
  HostTensor k(DType::f32, {total_k, hkv, d}), v(DType::f32, {total_k, hkv, dv});
  HostTensor cu_k(DType::i32, {batch + 1});
  int64_t t = 0;
  for (int64_t b = 0; b < batch; ++b) {
    cu_k.set({b}, double(t));
    for (int64_t j = 0; j < int64_t(lens[size_t(b)]); ++j, ++t) {
      const int64_t page = table[size_t(b)].at(size_t(j / page_size)), slot = j % page_size;
      for (int64_t h = 0; h < hkv; ++h) {
        const int64_t row = (page * page_size + slot) * hkv + h;
        for (int64_t e = 0; e < d; ++e)
          k.set({t, h, e}, kpool[size_t(row * d + e)]);
        for (int64_t e = 0; e < dv; ++e)
          v.set({t, h, e}, vpool[size_t(row * dv + e)]);
      }
    }
  }
  cu_k.set({batch}, double(t));

  kernels::FlashAttnArgs f = a;
  f.k = k.view();
  f.v = v.view();
  f.cu_seqlens_k = cu_k.view();
  f.max_seqlen_k = longest;
  f.lse.reset(); // the reference always computes lse; it is reshaped below
  HostTensor q_flat, cu_q;
  int64_t sq = 0;
  if (!varlen_q) { // dense queries: equal-length sequences of one packed tensor
    sq = a.q.shape[1];
    TensorView qv = a.q;
    qv.shape = {batch * sq, a.q.shape[2], a.q.shape[3]};
    qv.strides = {a.q.strides[1], a.q.strides[2], a.q.strides[3]};
    if (batch > 1 && a.q.strides[0] != sq * a.q.strides[1])
      throw std::invalid_argument("oracle paged_attn: dense q must have batch stride Sq x its "
                                  "token stride");
    f.q = qv;
    cu_q = HostTensor(DType::i32, {batch + 1});
    for (int64_t b = 0; b <= batch; ++b)
      cu_q.set({b}, double(b * sq));
    f.cu_seqlens_q = cu_q.view();
    f.max_seqlen_q = sq;
  }
  AttentionReference r = flash_attn(f, int8_kv_block);
  if (!varlen_q) { // lse [Hq, B*Sq] -> [B*Hq, Sq]
    const int64_t hq = a.q.shape[2];
    Matrix lse(batch * hq, sq);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < hq; ++h)
        for (int64_t i = 0; i < sq; ++i)
          lse.at(b * hq + h, i) = r.lse.at(h, b * sq + i);
    r.lse = lse;
  }
  return r;
}

} // namespace tw::oracle
