#pragma once
// Sample DSL kernel (examples/05_gemm_f16.cpp, `tilewave emit gemm_f16`): C = A * B with f16
// inputs and f32 accumulation, written only with the DSL.
//  - one 128-thread workgroup (4 waves as 2 x 2) computes a 128 x 128 tile of C; each wave
//    issues 4 x 4 v_wmma_f32_16x16x16_f16 per k step (tw::atoms::wmma_f32_16x16x16_f16);
//  - K advances 32 at a time through LDS double buffering (pipeline<2>): the global loads of
//    the next K tile (128-bit, tw::atoms::global_load_b128) are in flight while the WMMAs run;
//  - A is M x K row-major, B is K x N column-major (both with k contiguous), C is M x N
//    row-major; any M, N, K: lanes past the real shape read 0 and never write.
//  - `row_align` is the host's promise about the byte alignment of every row of A and column
//    of B: 16 (K a multiple of 8, 16-byte aligned buffers, 128 rows of A or columns of B below
//    2 GiB, as are 128 rows of C) lets the copies use 128-bit loads through clipped buffer
//    tiles (buffer_clipped_tile: edge tiles read 0 past M, N and K with the interior's loads,
//    and C's stores past M, N are dropped: no masks or branches); 2 works for any K (masked
//    loads and stores at the edges).
// Arguments: a, b, c (pointers), m, n, k (i64); launch ceil(M / 128) x ceil(N / 128)
// workgroups of GemmF16Config::mma.threads threads.
#include <atoms/copy/copy_atom.hpp>
#include <atoms/mma/gfx12.hpp>
#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/dsl.hpp>

#include <stdexcept>
#include <string>
#include <utility>

namespace tw::samples {

struct GemmF16Config {
  static constexpr int bm = 128, bn = 128, bk = 32;
  static constexpr auto mma = dsl::make_tiled_mma(atoms::wmma_f32_16x16x16_f16{},
                                                  dsl::wave_layout<2, 2>, dsl::repeat<4, 4>);
  static_assert(mma.tile_m == bm && mma.tile_n == bn, "the TiledMMA must cover the block tile");
  // 128 threads = 32 rows x 4 threads per row; each thread moves 8 f16 (128 bits) per access.
  static constexpr auto copy =
      dsl::make_tiled_copy<dsl::f16>(atoms::global_load_b128{}, dsl::thread_layout<32, 4>);
  // Rows padded by 8 f16 (80-byte pitch) so that the lanes' 64-bit operand reads spread over
  // the LDS banks; two stages each for A and B: 2 * 2 * 10240 = 40960 bytes.
  static constexpr auto lds =
      dsl::lds_plan(dsl::lds_buffer<dsl::f16>("sA", bm, bk, dsl::stages(2), dsl::pad(8)),
                    dsl::lds_buffer<dsl::f16>("sB", bn, bk, dsl::stages(2), dsl::pad(8)));
};

// The row alignments build_gemm_f16 accepts: an f16 element (2) up to a 128-bit access (16).
inline bool gemm_f16_row_align_supported(int row_align) {
  return row_align == 2 || row_align == 4 || row_align == 8 || row_align == 16;
}

// Throws std::invalid_argument when row_align is not 2, 4, 8 or 16.
inline ir::Kernel build_gemm_f16(int row_align) {
  using namespace tw::dsl;
  using Cfg = GemmF16Config;
  if (!gemm_f16_row_align_supported(row_align))
    throw std::invalid_argument("build_gemm_f16: row_align = " + std::to_string(row_align) +
                                " bytes must be 2, 4, 8 or 16");
  KernelBuilder kb("gemm_f16_128x128x32_align" + std::to_string(row_align),
                   {Cfg::mma.threads, 1, 1});
  auto [A, B, C, M, N, K] =
      kb.args(gtensor<f16>(row_major, "a", row_align), gtensor<f16>(col_major, "b", row_align),
              gtensor<f32>(row_major, "c"), scalar<i64>("m"), scalar<i64>("n"), scalar<i64>("k"));
  const auto a = A.shape(M, K);
  const auto bt = B.shape(K, N).transposed(); // N x K, k contiguous
  const auto c = C.shape(M, N);
  auto lds = use_lds<Cfg::lds>(kb);
  const Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);

  const Int32 k_tiles = cast<i32>(ceil_div(K, Int64(Cfg::bk)));
  const auto acc = pipeline<2>(
      k_tiles, Cfg::mma.make_accumulator(0.0f),
      [&](Int32 kt) { // global -> registers, 128-bit loads
        if (row_align == 16)
          return std::pair{Cfg::copy.load(buffer_clipped_tile<Cfg::bm, Cfg::bk>(a, bm, kt)),
                           Cfg::copy.load(buffer_clipped_tile<Cfg::bn, Cfg::bk>(bt, bn, kt))};
        return std::pair{Cfg::copy.load(local_tile<Cfg::bm, Cfg::bk>(a, bm, kt)),
                         Cfg::copy.load(local_tile<Cfg::bn, Cfg::bk>(bt, bn, kt))};
      },
      [&](const auto& regs, Int32 stage) { // registers -> LDS stage
        Cfg::copy.store(regs.first, lds.tile<"sA">(stage));
        Cfg::copy.store(regs.second, lds.tile<"sB">(stage));
      },
      [&](Int32 stage, auto acc) { // 2 k steps x 4 x 4 WMMA per wave
        gemm(Cfg::mma, lds.tile<"sA">(stage), lds.tile<"sB">(stage), acc);
        return acc;
      });
  if (row_align == 16) // past M, N dropped by the range check (128 rows of C below 2 GiB)
    Cfg::mma.store(acc, buffer_clipped_tile<Cfg::bm, Cfg::bn>(c, bm, bn));
  else
    Cfg::mma.store(acc, local_tile<Cfg::bm, Cfg::bn>(c, bm, bn)); // masked past M, N
  return kb.finish();
}

} // namespace tw::samples
