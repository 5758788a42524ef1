#pragma once
// Attention block: where the keys and values of one (sequence, kv head) are. Dense and varlen
// sequences keep a head's rows equally spaced (a GlobalTensor, head_tensor); a paged KV cache
// scatters them over pages of page_size tokens named by a block table (a RowGatheredTensor
// with the PagedRows row map, dsl/tensor/gathered_rows.hpp). Pools are
// [num_pages, page_size, Hkv, D]: page stride, token stride, head stride.
// The block table of sequence b is its own row of a dense [B, max_blocks] table, or its
// slice indices[indptr[b] ..] of the CSR form; the sequence's key count is seqlens_k[b].
// The KV loop asks only for the copy registers of one KV block (load_k / load_v): nothing else
// in the kernel depends on where the rows are.
#include <kernels/attention/blocks/attn_sequence.hpp>

#include <dsl/tensor/gathered_rows.hpp>

#include <optional>

namespace tw::kernels::attention_blocks {

// The pages of one sequence and its key count.
struct PagedSequence {
  GlobalPtr<i32> pages; // the sequence's block table row
  Int64 sk;
};

// `csr`: table holds the indices of the CSR form (row b starts at indptr[b]); otherwise it is
// the dense [B, max_blocks] table with row stride table_stride.
inline PagedSequence paged_sequence(bool csr, const GlobalPtr<i32>& table,
                                    const GlobalPtr<i32>& indptr, const Int64& table_stride,
                                    const GlobalPtr<i32>& seqlens_k, const Int32& b) {
  const Int64 first = csr ? cast<i64>(indptr.load(b)) : cast<i64>(b) * table_stride;
  return {table.offset(first), cast<i64>(seqlens_k.load(b))};
}

// The sequence of a paged problem: queries dense (Sq each) or varlen (cu_q), keys from its pages.
inline AttnSequence paged_attn_sequence(bool varlen, const GlobalPtr<i32>& cu_q, const Int64& sq,
                                        const PagedSequence& pages, const Int32& b) {
  if (!varlen)
    return {Int64(0), Int64(0), sq, pages.sk};
  const Int64 q0 = cast<i64>(cu_q.load(b)), q1 = cast<i64>(cu_q.load(b + 1));
  return {q0, Int64(0), q1 - q0, pages.sk};
}

template <ElemType T>
class KvSource {
public:
  using Paged = RowGatheredTensor<T, PagedRows>;

  // Rows equally spaced (dense or varlen).
  static KvSource contiguous(GlobalTensor<T> k, GlobalTensor<T> v) {
    KvSource s;
    s.k_ = std::move(k);
    s.v_ = std::move(v);
    return s;
  }
  // A paged cache: `k_head` / `v_head` point at the kv head's first element of page 0 (the
  // base plus head * head stride); strides in elements.
  static KvSource paged(const PagedSequence& seq, const Int32& page_size,
                        const GlobalPtr<T>& k_head, const Int64& k_page_stride,
                        const Int64& k_token_stride, const Int64& d, const GlobalPtr<T>& v_head,
                        const Int64& v_page_stride, const Int64& v_token_stride, const Int64& dv) {
    KvSource s;
    s.pk_.emplace(k_head, seq.sk, d,
                  PagedRows{seq.pages, page_size, k_page_stride, k_token_stride});
    s.pv_.emplace(v_head, seq.sk, dv,
                  PagedRows{seq.pages, page_size, v_page_stride, v_token_stride});
    return s;
  }

  // The copy registers of KV block `block` (rows block * R .., R x C; rows past the sequence
  // and columns past the head read 0).
  template <int R, int C, class Copy>
  auto load_k(const Copy& copy, const Int32& block) const {
    return pk_ ? copy.load(local_tile<R, C>(*pk_, block, 0))
               : copy.load(local_tile<R, C>(k_, block, 0));
  }
  template <int R, int C, class Copy>
  auto load_v(const Copy& copy, const Int32& block) const {
    return pv_ ? copy.load(local_tile<R, C>(*pv_, block, 0))
               : copy.load(local_tile<R, C>(v_, block, 0));
  }

private:
  GlobalTensor<T> k_, v_;
  std::optional<Paged> pk_, pv_;
};

} // namespace tw::kernels::attention_blocks
