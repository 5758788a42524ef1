// buffer_clipped_tile (dsl/copy/buffer_clipped_tile.hpp) end to end on the gfx12 emulator through
// both backends: a TiledCopy of 32 x 32 f16 tiles (128-bit runs) from a padded row-major matrix
// into a compact grid of whole tiles. Every tile, the interior, the ragged edges and a row of
// tiles wholly past the matrix, takes the same buffer loads (no masked path in the code): the
// elements outside the matrix read 0, whatever lies in memory there (the row padding holds
// 0xFFFF, a NaN). Memcheck (on in DslEmuRun) sees only in-bounds accesses.
#include "clipped_matrix.hpp"
#include "dsl_emu_run.hpp"

#include <atoms/copy/copy_atom.hpp>
#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/dsl.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {
constexpr int tile = 32;

// o[gm * 32, gn * 32] (compact) = the tiles of a[M, N] (leading stride lda), zeros outside it;
// grid gm x gn.
// `cols`: how the columns past a are read as 0 (whole_or_none: n a multiple of 32).
ir::Kernel clipped_copy_kernel(ClippedCols cols = ClippedCols::per_run) {
  KernelBuilder kb(cols == ClippedCols::per_run ? "clipped_copy" : "clipped_copy_whole_cols",
                   {128, 1, 1});
  auto [A, O, M, N, lda, OM, ON] =
      kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f16>(row_major, "o", 16), scalar<i64>("m"),
              scalar<i64>("n"), scalar<i64>("lda"), scalar<i64>("om"), scalar<i64>("on"));
  constexpr auto copy = make_tiled_copy<f16>(atoms::global_load_b128{}, thread_layout<32, 4>);
  const Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);
  const auto regs = copy.load(buffer_clipped_tile<tile, tile>(A.shape(M, N, lda), bm, bn, cols));
  copy.store(regs, local_tile<tile, tile>(O.shape(OM, ON), bm, bn));
  return kb.finish();
}

std::uint16_t elem(std::int64_t r, std::int64_t c) {
  return static_cast<std::uint16_t>(0x3000 + (r * 131 + c * 7) % 4093);
}

// o = the tiles of a 75 x n matrix in rows of lda (padding 0xFFFF), gm x gn tiles, read with
// `cols`; every element outside the matrix must read 0.
void check_clipped_copy(ClippedCols cols, std::int64_t n, std::int64_t lda, std::int64_t gn) {
  const ir::Kernel k = clipped_copy_kernel(cols);
  const std::int64_t m = 75, gm = 4, om = gm * tile, on = gn * tile;
  const std::vector<std::uint16_t> a = test::padded_matrix(m, n, lda, std::uint16_t{0xFFFF}, elem);
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    // 128-bit buffer loads at a 32-bit VGPR offset, and no masked (global) load path
    CHECK(std::regex_search(run.art.assembly,
                            std::regex(R"(buffer_load_b128 v\[\d+:\d+\], v\d+, s\[\d+:\d+\], )"
                                       R"(null offen)")));
    CHECK(run.art.assembly.find("global_load") == std::string::npos);
    const runtime::DevicePtr da = run.upload(a),
                             dout = run.upload(std::vector<std::uint16_t>(om * on, 0x1234));
    run.launch({std::uint32_t(gm), std::uint32_t(gn), 1}, {128, 1, 1},
               runtime::KernelArgs()
                   .ptr(da)
                   .ptr(dout)
                   .add<std::int64_t>(m)
                   .add<std::int64_t>(n)
                   .add<std::int64_t>(lda)
                   .add<std::int64_t>(om)
                   .add<std::int64_t>(on));
    test::check_zero_outside(run.download<std::uint16_t>(dout, static_cast<std::size_t>(om * on)),
                             m, n, om, on, elem);
  }
}
} // namespace

TEST_CASE("buffer_clipped_tile: one buffer-load path reads 0 past the rows and the columns") {
  // 75 x 40 in rows of 48: tiles 3 x 2 cover it, a 4th row of tiles lies wholly past it; the
  // second column of tiles holds 8 real columns, then the padding (0xFFFF) and the next row.
  check_clipped_copy(ClippedCols::per_run, 40, 48, 2);
}

TEST_CASE("buffer_clipped_tile: ClippedCols::whole_or_none reads 0 in a tile past the columns") {
  // 75 x 64 in rows of 72: 2 columns of whole tiles, a 3rd wholly past the columns (its runs
  // would read the padding and the next rows without num_records 0), a 4th row of tiles past
  // the rows.
  check_clipped_copy(ClippedCols::whole_or_none, 64, 72, 3);
}

namespace {
// A tile that moves along the columns (a GEMM's k-contiguous operand along K), 1-byte
// elements in 128-bit runs of 16: o (compact, gm * 32 x gn * 64) = the 32 x 64 tiles of a[M, N]
// (leading stride lda), one uniform branch on cols_whole() per tile: the tiles whose columns
// all exist drop the per-run column choice (assume_cols_whole), the edge tile keeps it. The
// same registers also go to c[M, N] (leading stride lda) through a clipped tile's stores: the
// runs past M and N are dropped by the range check.
ir::Kernel clipped_cols_kernel() {
  KernelBuilder kb("clipped_cols_i8", {128, 1, 1});
  auto [A, O, Cc, M, N, lda, OM, ON] =
      kb.args(gtensor<i8>(row_major, "a", 16), gtensor<i8>(row_major, "o", 16),
              gtensor<i8>(row_major, "c", 16), scalar<i64>("m"), scalar<i64>("n"),
              scalar<i64>("lda"), scalar<i64>("om"), scalar<i64>("on"));
  constexpr auto copy = make_tiled_copy<i8>(atoms::global_load_b128{}, thread_layout<32, 4>);
  const Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);
  const auto t = buffer_clipped_tile<32, 64>(A.shape(M, N, lda), bm, bn);
  const auto regs = if_(
      t.cols_whole(), [&] { return copy.load(t.assume_cols_whole()); },
      [&] { return copy.load(t); });
  copy.store(regs, local_tile<32, 64>(O.shape(OM, ON), bm, bn));
  copy.store(regs, buffer_clipped_tile<32, 64>(Cc.shape(M, N, lda), bm, bn));
  return kb.finish();
}
} // namespace

TEST_CASE("buffer_clipped_tile: a tile moving along the columns, 1-byte runs, cols_whole branch, "
          "clipped stores") {
  const ir::Kernel k = clipped_cols_kernel();
  // 45 x 80 int8 in rows of 96 (padding 0x7F): tiles 2 x 2 cover it; the second column of tiles
  // holds 16 real columns (one run of 16 per lane: wholly inside or wholly past), a third
  // column of tiles lies wholly past it (num_records still covers those rows).
  const std::int64_t m = 45, n = 80, lda = 96, gm = 2, gn = 3, om = gm * 32, on = gn * 64;
  const auto val = [](std::int64_t r, std::int64_t c) {
    return static_cast<std::int8_t>(1 + (r * 37 + c * 11) % 120);
  };
  std::vector<std::int8_t> a(static_cast<std::size_t>(m * lda));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < lda; ++c)
      a[static_cast<std::size_t>(r * lda + c)] = c < n ? val(r, c) : std::int8_t{0x7F};
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.art.assembly.find("global_load") == std::string::npos);
    CHECK(std::regex_search(run.art.assembly, std::regex(R"(buffer_load_b128 )")));
    CHECK(std::regex_search(run.art.assembly, std::regex(R"(buffer_store_b128 )")));
    CHECK(run.art.assembly.find("global_store") != std::string::npos); // o's masked stores
    const runtime::DevicePtr da = run.upload(a),
                             dout = run.upload(std::vector<std::int8_t>(om * on, 0x55)),
                             dc = run.upload(std::vector<std::int8_t>(a.size(), 0x55));
    run.launch({std::uint32_t(gm), std::uint32_t(gn), 1}, {128, 1, 1},
               runtime::KernelArgs()
                   .ptr(da)
                   .ptr(dout)
                   .ptr(dc)
                   .add<std::int64_t>(m)
                   .add<std::int64_t>(n)
                   .add<std::int64_t>(lda)
                   .add<std::int64_t>(om)
                   .add<std::int64_t>(on));
    const auto o = run.download<std::int8_t>(dout, static_cast<std::size_t>(om * on));
    int wrong_inside = 0, wrong_outside = 0;
    for (std::int64_t r = 0; r < om; ++r)
      for (std::int64_t c = 0; c < on; ++c) {
        const std::int8_t got = o[static_cast<std::size_t>(r * on + c)];
        if (r < m && c < n)
          wrong_inside += got != val(r, c);
        else
          wrong_outside += got != 0;
      }
    CHECK(wrong_inside == 0);
    CHECK(wrong_outside == 0);
    // c: a copy of a inside [M, N]; the row padding keeps its 0x55 (memcheck: no store past
    // the buffer, which ends at the last row's padding).
    const auto c = run.download<std::int8_t>(dc, a.size());
    int wrong_c = 0, touched_padding = 0;
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t col = 0; col < lda; ++col) {
        const std::int8_t got = c[static_cast<std::size_t>(r * lda + col)];
        if (col < n)
          wrong_c += got != val(r, col);
        else
          touched_padding += got != 0x55;
      }
    CHECK(wrong_c == 0);
    CHECK(touched_padding == 0);
  }
}

TEST_CASE("buffer_clipped_tile_fits: the host check of the clipped tile's requirements") {
  // 100 x 64 f16 in rows of 72, 128 x 32 tiles, runs of 8: fits.
  CHECK(buffer_clipped_tile_fits(100, 64, 72, 2, 128, 32, 8, true));
  CHECK_FALSE(buffer_clipped_tile_fits(100, 64, 72, 2, 128, 32, 8, false)); // unaligned runs
  CHECK_FALSE(buffer_clipped_tile_fits(100, 60, 72, 2, 128, 32, 8, true));  // a run straddles
  CHECK_FALSE(buffer_clipped_tile_fits(100, 64, 56, 2, 128, 32, 8, true));  // rows overlap
  // 1-byte elements, runs of 16: K = 48 fits, K = 40 does not.
  CHECK(buffer_clipped_tile_fits(7, 48, 48, 1, 128, 64, 16, true));
  CHECK_FALSE(buffer_clipped_tile_fits(7, 40, 48, 1, 128, 64, 16, true));
  // Offsets and num_records of a tile below 2^31 bytes: 128 rows of 2^23 f16 is exactly 2^31.
  const std::int64_t wide = std::int64_t{1} << 23;
  CHECK(buffer_clipped_tile_fits(200, wide, wide, 2, 127, 32, 8, true));
  CHECK_FALSE(buffer_clipped_tile_fits(200, wide, wide, 2, 128, 32, 8, true));
  CHECK(buffer_clipped_tile_fits(0, 0, 0, 2, 128, 32, 8, true)); // an empty tensor reads zeros
}
