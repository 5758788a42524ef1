#pragma once
// The compile-time shape of one GEMM kernel body (gemm_body.hpp): the element types the operands
// have in global memory, in LDS and in the atom, the K tile, the tiled MMA over the block tile,
// the LDS plan and the operand copies. Every block of the body takes it as its first template
// argument, so the blocks agree on these without passing them around.
#include <kernels/gemm/blocks/mx_scales.hpp>
#include <kernels/gemm/blocks/operand_copy.hpp>
#include <kernels/gemm/gemm_config.hpp>

#include <dsl/dsl.hpp>

#include <type_traits>

namespace tw::kernels::gemm_kernel {

// How an operand stage (k-contiguous rows of bk elements, 64 bytes) avoids LDS bank conflicts.
// A WMMA operand read has lane l take row l % 16 at one 16-byte chunk (or 8 bytes of it) and
// the 128-byte bank window serves 8 such rows at once; rows of 64 bytes put rows r and r + 2 on
// the same banks. Swizzled: the chunk index XOR (row / 2) % 4 sends the 8 rows to 8 distinct
// 16-byte bank groups, with no extra bytes (the 128 x 128 config's stages fit in 32 KiB: 4
// workgroups of 4 waves per WGP). Padded (16 bytes a row, 40 KiB: 3 workgroups) does the same
// by shifting each row 20 banks.
template <class E, int bk, bool swizzled>
constexpr auto operand_bank_spread() {
  using namespace tw::dsl;
  static_assert(bk * E::bits == 64 * 8, "operand_bank_spread: a stage row is 64 bytes");
  constexpr int chunk_elems = 16 / elem_bytes<E>(); // 2^base: elements of a 16-byte chunk
  constexpr int base = chunk_elems == 16 ? 4 : chunk_elems == 8 ? 3 : 2;
  static_assert((1 << base) == chunk_elems, "operand_bank_spread: 1-, 2- or 4-byte elements");
  if constexpr (swizzled) // row bits start at log2(bk) = base + 2: (row / 2) is base + 3
    return swizzle(2, base, 3);
  else
    return pad(chunk_elems);
}

// BGlobal: the element type of b in global memory when it differs from the atom's (W8A16:
// int8 weights converted to f16 / bf16 in the prologue, on their way into LDS).
// AGlobal: the activation's element type when a is quantized in the prologue.
// MX: e8m0 block scales staged (decoded to f32) in LDS next to each operand stage.
template <GemmTile T, class Atom, bool AKContig, bool BKContig, class BGlobal = void,
          class AGlobal = void, bool MX = false>
struct BodyLayout {
  static constexpr GemmTile tile = T;
  static constexpr bool a_k_contig = AKContig, b_k_contig = BKContig, mx = MX;
  using Lanes = dsl::MmaAtomLanes<Atom>;
  using AE = typename Lanes::a_elem; // what the atom reads
  using BE = typename Lanes::b_elem;
  // What global memory and LDS hold: fp8 codes move as i8 (the DSL has no fp8 constants for
  // the zeros of masked loads) and the MMA reads the LDS bytes as fp8 tiles.
  static constexpr bool quant = !std::is_void_v<AGlobal>;
  using AGlobalElem = AGlobal;
  // Packed int4 (iu4 atom): a and b move as their bytes (two k values each, like fp8 codes);
  // K tiles, leading strides and the operand tensors count bytes, K itself counts nibbles.
  static constexpr bool packed = Lanes::packed_int4;
  using AL = std::conditional_t<std::is_void_v<AGlobal> && AE::bits == 8, dsl::i8, AE>; // a, LDS
  using AS = std::conditional_t<std::is_void_v<AGlobal>, AL, AGlobal>; // a in global memory
  using BL = std::conditional_t<BE::bits == 8, dsl::i8, BE>;           // b in LDS
  using BS = std::conditional_t<std::is_void_v<BGlobal>, BL, BGlobal>; // b in global memory
  static constexpr int bk = AE::bits == 8 ? 64 : 32;
  // The block tile (gemm_config.hpp): waves_m x waves_n waves of 16 x 16 atoms.
  static constexpr GemmTileShape shape = gemm_tile_shape(T);
  static constexpr int block_m = shape.m, block_n = shape.n, threads = shape.threads();
  static constexpr auto mma = dsl::make_tiled_mma(
      Atom{}, dsl::wave_layout<shape.waves_m, shape.waves_n>,
      dsl::repeat<block_m / shape.waves_m / Lanes::M, block_n / shape.waves_n / Lanes::N>);
  static_assert(mma.tile_m == block_m && mma.tile_n == block_n && mma.threads == threads);
  using CFrag = typename decltype(mma)::CFrag;
  // The lanes' operand reads spread over the LDS banks (operand_bank_spread above). The
  // quantizing kernels keep padded rows: their LoRA block views the stages in the activation
  // dtype, which a swizzle counted in 8-bit elements does not carry over to.
  static constexpr auto plan_ab = dsl::lds_plan(
      dsl::lds_buffer<AL>("sA", block_m, bk, dsl::stages(2), operand_bank_spread<AL, bk, !quant>()),
      dsl::lds_buffer<BL>("sB", block_n, bk, dsl::stages(2),
                          operand_bank_spread<BL, bk, !quant>()));
  // The quantizing prologue adds a row of s_m and one of 1 / s_m for the block's rows; MX adds
  // per stage the decoded scales of the tile's rows of a and columns of b, one row per K block.
  static constexpr auto plan = [] {
    if constexpr (quant)
      return dsl::lds_plan(plan_ab.buffers[0].spec, plan_ab.buffers[1].spec,
                           dsl::lds_buffer<dsl::f32>("sQ", 2, block_m));
    else if constexpr (MX)
      return dsl::lds_plan(plan_ab.buffers[0].spec, plan_ab.buffers[1].spec,
                           mx_scale_buffers<bk, block_m, block_n>()[0],
                           mx_scale_buffers<bk, block_m, block_n>()[1]);
    else
      return plan_ab;
  }();
  // k-contiguous operands: bk-wide rows of the tile; m/n-contiguous operands: the transposed
  // tile (bk rows of the block's extent), stored transposed in LDS. 128 bits per access where
  // the threads fit the tile (blocks/operand_copy.hpp).
  static constexpr auto copy_ka = operand_copy<AS, threads, block_m, bk>();
  static constexpr auto copy_kb = operand_copy<BS, threads, block_n, bk>();
  static constexpr auto copy_ta = operand_copy<AS, threads, bk, block_m>();
  static constexpr auto copy_tb = operand_copy<BS, threads, bk, block_n>();
  // One LDS stage's WMMAs: the next k step's operand fragments read ahead of the current
  // WMMAs (dsl/mma/fragment_pipeline.hpp), except in W8A16 and the activation-quantizing
  // kernels, where bench_gemm modeled the read-ahead slower (W8A16 4096^3 llvm 90.6 -> 87.5
  // TFLOP/s, its decode shapes and the fused kernels' by up to 1%; docs/kernels.md). Packed
  // int4 takes it too.
  static constexpr bool read_ahead = std::is_void_v<BGlobal> && !quant;
};

} // namespace tw::kernels::gemm_kernel
