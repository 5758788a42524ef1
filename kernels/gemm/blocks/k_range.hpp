#pragma once
// The K tiles a GEMM workgroup's main loop runs over: all of them, or (split-K partial pass)
// the range block_id(z) of k_tiles_per_split tiles (the last range may be shorter).
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/dsl.hpp>

namespace tw::kernels::gemm_kernel {

struct KTileRange {
  dsl::Int32 count;     // K tiles of the workgroup
  dsl::Int32 begin;     // the first one (0 unless `partial`)
  bool partial = false; // a split-K range: begin is a run-time value
  // The absolute K tile of the range's step `step`. (No add of a zero begin: at 256 VGPRs even
  // that moved the MX, fused and iu4 kernels' spills on gfx1201.)
  dsl::Int32 tile(const dsl::Int32& step) const { return partial ? begin + step : step; }
};

// k_storage: the operands' K extent in stored elements; bk: the K tile.
inline KTileRange k_tile_range(const GemmKernelSpec& s, const dsl::Int64& k_storage, int bk,
                               const dsl::Int64& k_tiles_per_split) {
  using namespace tw::dsl;
  KTileRange r{cast<i32>(ceil_div(k_storage, Int64(bk))), Int32(0), false};
  if (s.split_k == SplitKPass::partial) {
    const Int32 per = cast<i32>(k_tiles_per_split);
    r.begin = block_id(ir::Dim::z) * per;
    r.count = max(min(per, r.count - r.begin), Int32(0));
    r.partial = true;
  }
  return r;
}

} // namespace tw::kernels::gemm_kernel
