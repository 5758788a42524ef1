#pragma once
// Attention block: an additive bias (f32 / f16 / bf16, added to the scaled score) or a bool
// mask (uint8 / int8: zero hides the key), shared [Sq, Sk] or per head [Hq, Sq, Sk] (stride
// 0 over heads when shared); top-left aligned: element (h, i, j) of query row i, key j.
#include <dsl/dsl.hpp>

namespace tw::kernels::attention_blocks {

template <dsl::ElemType T>
struct BiasSource {
  dsl::GlobalPtr<T> head; // the (shared or this head's) [Sq, Sk] matrix
  dsl::Int64 row_stride, col_stride;
  dsl::Int64 rows, cols;

  // The bias of (i, j) as f32 (a bool mask: 1 keep, 0 hide). i, j are inside the sequence.
  dsl::Float32 value(const dsl::Int64& i, const dsl::Int64& j) const {
    using namespace tw::dsl;
    const Bool in = i < rows && j < cols;
    const Int64 at = select(in, i * row_stride + j * col_stride, Int64(0));
    return cast<f32>(head.load(at, in));
  }
};

} // namespace tw::kernels::attention_blocks
