#pragma once
// The main-loop block of the GEMM composition, chosen by the kernel: the double-buffered K loop
// (dsl pipeline<2>) whose stage step is the tiled MMA over one LDS stage, as the read-ahead
// two-tile loop (pipeline_unrolled<2>), the plain pipeline, or the MX loop with block scales
// (blocks/mx_scales.hpp). fetch / commit of the operand tiles come from the prologue block
// (blocks/operand_fetch.hpp).
#include <kernels/gemm/blocks/body_layout.hpp>
#include <kernels/gemm/blocks/k_range.hpp>
#include <kernels/gemm/blocks/mx_scales.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/dsl.hpp>
#include <dsl/mma/fragment_pipeline.hpp>
#include <dsl/ops/pipeline_unrolled.hpp>

#include <optional>

namespace tw::kernels::gemm_kernel {

// L: the body's BodyLayout; ops: its OperandFetch; args: its GemmArgs (the MX scales).
template <class L, class Lds, class Ops, class Args>
typename L::CFrag gemm_main_loop(const GemmKernelSpec& s, const Lds& lds, const Ops& ops,
                                 const KTileRange& k, const Args& args) {
  using namespace tw::dsl;
  using CFrag = typename L::CFrag;
  using AE = typename L::AE;
  using BE = typename L::BE;
  constexpr auto mma = L::mma;
  constexpr int bk = L::bk, block_m = L::block_m, block_n = L::block_n;
  // Read-ahead (L::read_ahead) only with both operands clipped: with masked copies (two copy
  // paths live across the loop) the two fragment sets spilled (f16 t128x128w4: 16 B of scratch
  // on both backends).
  const bool ahead = L::read_ahead && s.a_clipped && s.b_clipped;
  const auto mac = [&](const auto& fa, const auto& fb, CFrag& acc) {
    const auto run = [&](const ir::MmaMods& mods) {
      if (ahead) {
        if constexpr (L::read_ahead)
          gemm_read_ahead(mma, fa, fb, acc, mods);
      } else {
        // The quantizing kernels' next-stage buffer loads (traced by the pipeline before this
        // stage's WMMAs) stay above them: without the fence the schedulers sank them below the
        // WMMAs (fewer live VGPRs, their latency exposed; sched_barrier: no machine code).
        if constexpr (L::quant)
          sched_barrier(ir::sched_kind::salu | ir::sched_kind::valu);
        gemm_with_mods(mma, fa, fb, acc, mods);
      }
    };
    if constexpr (L::packed) // int4 or uint4 nibbles, each operand by its dtype
      run(ir::MmaMods{.a_signed = s.a == DType::int4, .b_signed = s.b == DType::int4});
    else if constexpr (std::same_as<AE, i8>) // signed int8 x int8
      run(ir::MmaMods{.a_signed = true, .b_signed = true});
    else
      run(ir::MmaMods{});
  };
  const auto fetch = [&](Int32 k_step) { return ops.fetch(k.tile(k_step)); };
  const auto commit = [&](const auto& regs, Int32 stage) { ops.commit(regs, stage); };
  if constexpr (!L::mx) {
    const auto on_stage = [&](Int32 stage, CFrag acc) {
      mac(lds_view<AE, block_m, bk>(lds.template tile<"sA">(stage)),
          lds_view<BE, block_n, bk>(lds.template tile<"sB">(stage)), acc);
      return acc;
    };
    // Two K tiles per loop iteration where the fragments are read ahead (dsl/ops/
    // pipeline_unrolled.hpp: constant LDS stages, their offsets immediate; odd K tile counts
    // compute one more tile, past K, of zeros). Not for a split-K range: the tile after it is
    // the next range's data, not zeros.
    if (ahead && !k.partial)
      return pipeline_unrolled<2>(k.count, mma.make_accumulator(0), fetch, commit, on_stage);
    return pipeline<2>(k.count, mma.make_accumulator(0), fetch, commit, on_stage);
  } else {
    const auto e8m0 = [&](const GlobalPtr<f32>& p, const Int64& rows, const Int64& ld) {
      return make_tensor(GlobalPtr<u8>(p.ir(), 1), Major::row, rows,
                         ceil_div(args.k, Int64(mx_block_k)), ld);
    };
    return mx_main_loop<bk>(
        mma, lds, k.count, k.partial ? std::optional<Int32>(k.begin) : std::nullopt,
        e8m0(args.scale_a, args.m, args.ld_scale_a), e8m0(args.scale_b, args.n, args.ld_scale_b),
        args.tile_m, args.tile_n, fetch, commit,
        [&](const Int32& st) { return lds_view<AE, block_m, bk>(lds.template tile<"sA">(st)); },
        [&](const Int32& st) { return lds_view<BE, block_n, bk>(lds.template tile<"sB">(st)); });
  }
}

} // namespace tw::kernels::gemm_kernel
