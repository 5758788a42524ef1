#pragma once
// The MX main-loop block of the GEMM composition (OCP MX: one e8m0 scale per 32 consecutive k
// of each row of a and of b). With each operand stage, thread t fetches the codes of row t of
// the tile of a and of b for the K tile's blocks (masked: rows past M / N and blocks past
// ceil(K / 32) read 0), decodes them to 2^(e - 127) and stores them in the LDS buffers "sSA"
// and "sSB" (mx_scale_buffers; the code 0xFF, NaN in OCP MX, decodes to NaN so its block's
// products are NaN); each 32-k block's partial product is then scaled by
// 2^ea[m] * 2^eb[n] and added (dsl gemm_block_scaled).
#include <dsl/dsl.hpp>
#include <dsl/mma/block_scaled.hpp>

#include <array>
#include <limits>
#include <optional>
#include <type_traits>

namespace tw::kernels::gemm_kernel {

inline constexpr int mx_block_k = 32;

// The two staged scale buffers for a BK-wide K tile of a TileM x TileN block tile.
template <int BK, int TileM, int TileN>
constexpr auto mx_scale_buffers() {
  static_assert(BK % mx_block_k == 0, "MX: the K tile holds whole 32-k scale blocks");
  return std::array{dsl::lds_buffer<dsl::f32>("sSA", BK / mx_block_k, TileM, dsl::stages(2)),
                    dsl::lds_buffer<dsl::f32>("sSB", BK / mx_block_k, TileN, dsl::stages(2))};
}

// The double-buffered main loop with MX scales over K tiles k_tile_begin (0 when none) ..
// k_tile_begin + k_tiles - 1: fetch(step) / commit(regs, stage) move the operand tiles of K tile
// k_tile_begin + step, stage_a(stage) / stage_b(stage) are their LDS tiles as the atom reads
// them; codes_a [M, ceil(K / 32)] and codes_b [N, ceil(K / 32)] hold the e8m0 codes. Thread t
// stages the scales of row t of the tile (threads past the tile's rows load the last row's and
// store nothing).
template <int BK, class Mma, class Lds, class Fetch, class Commit, class StageA, class StageB>
typename Mma::CFrag mx_main_loop(const Mma& mma, const Lds& lds, const dsl::Int32& k_tiles,
                                 const std::optional<dsl::Int32>& k_tile_begin,
                                 const dsl::GlobalTensor<dsl::u8>& codes_a,
                                 const dsl::GlobalTensor<dsl::u8>& codes_b,
                                 const dsl::Int32& tile_m, const dsl::Int32& tile_n, Fetch&& fetch,
                                 Commit&& commit, StageA&& stage_a, StageB&& stage_b) {
  using namespace tw::dsl;
  constexpr int blocks = BK / mx_block_k;
  static_assert(BK % mx_block_k == 0 && mx_block_k % Mma::tile_k == 0 &&
                    Mma::threads >= Mma::tile_m && Mma::threads >= Mma::tile_n,
                "MX: a thread per row of the block tile, whole atom k steps per scale block");
  const Int32 t = thread_id();
  // The row of a's and of b's tile thread t stages (clamped: no load past the tile).
  const auto row_of = [&](int rows) { return Mma::threads == rows ? t : min(t, Int32(rows - 1)); };
  const Int32 ra = row_of(Mma::tile_m), rb = row_of(Mma::tile_n);
  const auto fetch_mx = [&](Int32 step) {
    const Int32 kt = k_tile_begin ? *k_tile_begin + step : step;
    const auto ta = local_tile<Mma::tile_m, blocks>(codes_a, tile_m, kt);
    const auto tb = local_tile<Mma::tile_n, blocks>(codes_b, tile_n, kt);
    std::array<Scalar<u8>, 2 * blocks> codes;
    for (int j = 0; j < blocks; ++j) {
      codes[j] = ta.load(ra, Int32(j));
      codes[blocks + j] = tb.load(rb, Int32(j));
    }
    return std::pair{fetch(step), codes};
  };
  const auto decode = [](const Scalar<u8>& e) { // 2^(e - 127); the code 255 is NaN (OCP MX)
    const Int32 code = cast<i32>(e);
    return select(code == Int32(255), Float32(std::numeric_limits<float>::quiet_NaN()),
                  exp2(cast<f32>(code) - Float32(127.0)));
  };
  // Stores only from the threads of the tile's rows (a run-time branch when there are more).
  const auto if_row = [&]<int rows>(std::integral_constant<int, rows>, auto&& store) {
    if constexpr (Mma::threads == rows)
      store();
    else
      if_(t < Int32(rows), store);
  };
  const auto commit_mx = [&](const auto& regs, Int32 stage) {
    commit(regs.first, stage);
    if_row(std::integral_constant<int, Mma::tile_m>{}, [&] {
      for (int j = 0; j < blocks; ++j)
        lds.template tile<"sSA">(stage).store(Int32(j), t, decode(regs.second[j]));
    });
    if_row(std::integral_constant<int, Mma::tile_n>{}, [&] {
      for (int j = 0; j < blocks; ++j)
        lds.template tile<"sSB">(stage).store(Int32(j), t, decode(regs.second[blocks + j]));
    });
  };
  using Frag = typename Mma::CFrag;
  return pipeline<2>(
      k_tiles, mma.make_accumulator(0), fetch_mx, commit_mx, [&](Int32 stage, Frag acc) {
        const auto sa = stage_a(stage);
        const auto sb = stage_b(stage);
        const auto ssa = lds.template tile<"sSA">(stage);
        const auto ssb = lds.template tile<"sSB">(stage);
        constexpr int steps = mx_block_k / Mma::tile_k;
        for (int blk = 0; blk < blocks; ++blk)
          gemm_block_scaled(mma, sa, sb, acc, ir::MmaMods{}, blk * steps, steps,
                            [&](const Int32& r, const Int32& c) {
                              return ssa.load(Int32(blk), r) * ssb.load(Int32(blk), c);
                            });
        return acc;
      });
}

} // namespace tw::kernels::gemm_kernel
