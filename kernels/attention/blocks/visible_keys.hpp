#pragma once
// Attention block: which keys a query row sees. Causal and sliding windows are bottom-right
// aligned (flash-attn's window_size): key j is visible to row i iff o - left <= j <= o + right
// with o = i + sk - sq, a negative bound meaning none on that side (causal: right = 0). A
// split of split-KV sees only keys [kv_lo, kv_hi). The KV loop runs over the blocks of
// kv_block keys that hold any visible key of the query tile; `visible` masks inside a block,
// and `whole_block` tells the blocks that need no mask at all (every row of the tile sees
// every key of the block), so that only the edge blocks pay for it. Positions are 32-bit
// (sequence lengths below 2^31).
#include <kernels/attention/blocks/attn_sequence.hpp>

namespace tw::kernels::attention_blocks {

struct VisibleKeys {
  bool windowed = false, split = false;
  Int32 left, right; // window bounds (-1: none)
  Int32 sq, sk;
  Int32 kv_lo, kv_hi; // the split's key range (the whole sequence without split-KV)

  // Row i (within the sequence) sees key j: j - lo <= hi - lo as unsigned 32-bit numbers (one
  // compare per key; j >= lo and j <= hi both hold exactly then, since keys and the range
  // width are below 2^31). An empty range (hi < lo) becomes lo = 2^31 - 1, width 0: no key
  // reaches it (keys are below the sequence length, itself below 2^31 - 1).
  Bool visible(const Int32& i, const Int32& j) const {
    const auto [lo, hi] = key_range(i);
    const Bool empty = hi < lo;
    const Int32 first = select(empty, Int32(0x7fffffff), lo);
    const UInt32 width = cast<u32>(select(empty, Int32(0), hi - lo));
    return cast<u32>(j - first) <= width;
  }
  // The keys row i sees: lo <= j <= hi (none when hi < lo). Keys are >= 0, so lo may be
  // anything <= 0 without a lower bound. Per row, not per key: a mask over a block of scores
  // costs two compares per score (the row's bounds are shared by its scores).
  std::pair<Int32, Int32> key_range(const Int32& i) const {
    Int32 lo = split ? kv_lo : Int32(0);
    Int32 hi = kv_hi - 1;
    if (windowed) {
      const Int32 o = i + sk - sq;
      lo = select(left < 0, lo, max(lo, o - left));
      hi = select(right < 0, hi, min(hi, o + right));
    }
    return {lo, hi};
  }

  // The first keys key0 of the n-key blocks that every row of [row0, row0 + rows) (clipped to
  // sq) sees whole: lo <= key0 <= hi, kept as (first, width) so that the test of a block is
  // one subtraction and one unsigned compare (contains), the bounds computed once per tile.
  struct WholeBlocks {
    Int32 first;
    UInt32 width;
    // key0 (>= 0) starts a whole block (an empty range: first = 2^31 - 1, width 0, which no
    // key0 below 2^31 - 1 reaches)
    Bool contains(const Int32& key0) const { return cast<u32>(key0 - first) <= width; }
  };
  WholeBlocks whole_blocks(const Int32& row0, int rows, int n) const {
    Int32 lo = split ? kv_lo : Int32(0); // keys are >= 0
    Int32 hi = kv_hi - n;                // key0 + n <= kv_hi
    if (windowed) {
      const Int32 last = min(row0 + rows, sq) - 1;
      lo = select(left < 0, lo, max(lo, last + sk - sq - left));
      hi = select(right < 0, hi, min(hi, row0 + sk - sq + right - (n - 1)));
    }
    const Bool empty = hi < lo;
    return {select(empty, Int32(0x7fffffff), lo), cast<u32>(select(empty, Int32(0), hi - lo))};
  }
  // Every row of [row0, row0 + rows) (clipped to sq) sees every key of [key0, key0 + n).
  Bool whole_block(const Int32& row0, int rows, const Int32& key0, int n) const {
    return whole_blocks(row0, rows, n).contains(key0);
  }

  // Blocks [first, first + count) of kv_block keys that hold a visible key of rows
  // [row0, row0 + rows).
  std::pair<Int32, Int32> blocks(const Int32& row0, int rows, int kv_block) const {
    Int32 lo = kv_lo, hi = kv_hi;
    if (windowed) {
      const Int32 last = min(row0 + rows, sq) - 1;
      lo = select(left < 0, lo, max(lo, row0 + sk - sq - left));
      hi = select(right < 0, hi, min(hi, last + sk - sq + right + 1));
    }
    const Int32 first = max(lo, Int32(0)) / kv_block;
    const Int32 end = ceil_div(max(hi, Int32(0)), Int32(kv_block));
    return {first, max(end - first, Int32(0))};
  }
};

} // namespace tw::kernels::attention_blocks
