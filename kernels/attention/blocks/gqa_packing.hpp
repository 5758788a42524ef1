#pragma once
// Attention block: GQA packing (decode). With few query rows per sequence (decode: 1 to 16) a
// tile of one query head is mostly empty rows; packing puts the query rows of all G = Hq / Hkv
// query heads of one kv head into the tile's rows instead, so that one K / V pass serves the
// whole group. Tile row p (0 .. G * sq) is query p % sq of query head hk * G + p / sq. Q, O and
// the split-KV partials are then row-gathered tensors with the FoldedRows row map
// (dsl/tensor/folded_rows.hpp): inner = sq rows at the token stride, outer = the head stride.
// Everything that depends on the row (the query index of masks and ALiBi, a per-head slope,
// dropout, lse, the split rows) asks this block for the row's head and query.
#include <kernels/attention/blocks/attn_sequence.hpp>

#include <dsl/tensor/folded_rows.hpp>
#include <dsl/tensor/gathered_rows.hpp>

namespace tw::kernels::attention_blocks {

struct PackedQueryRows {
  Int32 group; // G: query heads per kv head
  Int32 hk;    // the workgroup's kv head
  Int32 sq;    // the sequence's query rows

  Int64 rows() const { return cast<i64>(group) * cast<i64>(sq); }
  // The head within the group (0 .. G), the query head and the query index of tile row p. Rows
  // past G * sq (the tile's padding, never stored) count as the group's last head, so that what
  // they read per head (slopes, bias rows) stays inside the tensors.
  Int32 group_head(const Int32& p) const {
    return min(cast<i32>(cast<u32>(p) / cast<u32>(sq)), group - 1);
  }
  Int32 head(const Int32& p) const { return hk * group + group_head(p); }
  Int32 query(const Int32& p) const { return cast<i32>(cast<u32>(p) % cast<u32>(sq)); }

  // The packed rows x cols view of a [.., tokens, heads, cols] tensor: `offset` is the element of
  // (sequence start, head 0); row (g, i) is token i of head hk * G + g.
  template <ElemType T>
  RowGatheredTensor<T, FoldedRows> tensor(const GlobalPtr<T>& base, const Int64& offset,
                                          const Int64& cols, const Int64& token_stride,
                                          const Int64& head_stride) const {
    const Int64 first = offset + cast<i64>(hk * group) * head_stride;
    return RowGatheredTensor<T, FoldedRows>(GlobalPtr<T>(base.offset(first).ir(), base.align()),
                                            rows(), cols,
                                            FoldedRows{sq, token_stride, head_stride});
  }
};

} // namespace tw::kernels::attention_blocks
