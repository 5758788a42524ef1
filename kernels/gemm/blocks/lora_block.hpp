#pragma once
// The LoRA block of the GEMM composition: lora = t @ up^T over the rank R (t = x @ down^T
// [M, R] and up [N, R], both in the activation dtype E, row-major), a second double-buffered
// K loop for the workgroup's output tile. It runs after the main loop on two LDS stages the
// main loop no longer needs (the caller's views), with a TiledMMA that places C exactly like
// the main product's: it accumulates onto the main product's partial result, before the
// epilogue's single rounding.
#include <dsl/dsl.hpp>
#include <kernels/gemm/gemm_config.hpp>

namespace tw::kernels::gemm_kernel {

// The K tile of the LoRA loop (rank elements per step): the stages hold tile_m / tile_n rows of
// this many elements.
inline constexpr int lora_k_tile = 32;

// The LoRA TiledMMA for activation dtype E (f16 or bf16) and block tile T: the wave grid and
// atoms of T (gemm_config.hpp), so C sits where the main product's does.
template <class E, GemmTile T>
constexpr auto lora_tiled_mma() {
  static_assert(std::same_as<E, dsl::f16> || std::same_as<E, dsl::bf16>,
                "LoRA: the activation dtype is f16 or bf16");
  using Atom = std::conditional_t<std::same_as<E, dsl::bf16>, atoms::wmma_f32_16x16x16_bf16,
                                  atoms::wmma_f32_16x16x16_f16>;
  constexpr GemmTileShape shape = gemm_tile_shape(T);
  return dsl::make_tiled_mma(
      Atom{}, dsl::wave_layout<shape.waves_m, shape.waves_n>,
      dsl::repeat<shape.m / shape.waves_m / 16, shape.n / shape.waves_n / 16>);
}

// StageT(stage) / StageUp(stage): the LDS tiles (tile_m and tile_n rows of lora_k_tile E) of stage
// 0 or 1 for the rows of t and of up. The product accumulates onto `init` (the caller's partial
// result, placed like C of lora_tiled_mma<E>()) and the sum is returned.
template <GemmTile T, class E, class StageT, class StageUp>
auto lora_block(const dsl::GlobalTensor<E>& t, const dsl::GlobalTensor<E>& up,
                const dsl::Int64& rank, const dsl::Int32& tile_m, const dsl::Int32& tile_n,
                StageT&& stage_t, StageUp&& stage_up,
                typename decltype(lora_tiled_mma<E, T>())::CFrag init) {
  using namespace tw::dsl;
  constexpr auto mma = lora_tiled_mma<E, T>();
  constexpr int bk = lora_k_tile, vec = 128 / E::bits;
  constexpr auto copy = make_tiled_copy<E>(atoms::global_load_b128{},
                                           thread_layout<mma.threads / (bk / vec), bk / vec>);
  using Frag = typename decltype(mma)::CFrag;
  return pipeline<2>(
      cast<i32>(ceil_div(rank, Int64(bk))), std::move(init),
      [&](Int32 kt) {
        return std::pair{copy.load(local_tile<mma.tile_m, bk>(t, tile_m, kt)),
                         copy.load(local_tile<mma.tile_n, bk>(up, tile_n, kt))};
      },
      [&](const auto& regs, Int32 st) {
        copy.store(regs.first, stage_t(st));
        copy.store(regs.second, stage_up(st));
      },
      [&](Int32 st, Frag acc) {
        gemm(mma, stage_t(st), stage_up(st), acc);
        return acc;
      });
}

} // namespace tw::kernels::gemm_kernel
