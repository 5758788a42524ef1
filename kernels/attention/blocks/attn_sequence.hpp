#pragma once
// Attention block: where one (batch, query head) problem's sequences are (the KV source).
// Dense: every batch has Sq queries and Sk keys at batch stride. Varlen: sequence b spans
// tokens [cu_q[b], cu_q[b+1]) of the packed q / out and [cu_k[b], cu_k[b+1]) of k / v.
// (A paged KV source will give the same two numbers per sequence plus a page lookup.)
#include <dsl/dsl.hpp>

namespace tw::kernels::attention_blocks {

using namespace tw::dsl;

struct AttnSequence {
  Int64 q_first, k_first; // first token of the sequence in the packed tensors (dense: 0)
  Int64 sq, sk;           // this sequence's query and key counts
};

inline AttnSequence dense_sequence(const Int64& sq, const Int64& sk) {
  return {Int64(0), Int64(0), sq, sk};
}

inline AttnSequence varlen_sequence(const GlobalPtr<i32>& cu_q, const GlobalPtr<i32>& cu_k,
                                    const Int32& b) {
  const Int64 q0 = cast<i64>(cu_q.load(b)), q1 = cast<i64>(cu_q.load(b + 1));
  const Int64 k0 = cast<i64>(cu_k.load(b)), k1 = cast<i64>(cu_k.load(b + 1));
  return {q0, k0, q1 - q0, k1 - k0};
}

// The rows x cols tensor of one head: element (r, c) at base + r * row_stride + c.
template <ElemType T>
GlobalTensor<T> head_tensor(const GlobalPtr<T>& base, const Int64& offset, const Int64& rows,
                            const Int64& cols, const Int64& row_stride) {
  return GlobalTensor<T>(GlobalPtr<T>(base.offset(offset).ir(), base.align()), rows, cols,
                         row_stride, Int64(1));
}

} // namespace tw::kernels::attention_blocks
