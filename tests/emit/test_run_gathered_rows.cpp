// RowGatheredTensor / PagedRows (dsl/tensor/gathered_rows.hpp) end to end on the gfx12 emulator
// (memcheck on) through both backends: a TiledCopy loads 32 x 48 tiles of a paged f16 cache
// (a permuting page table, a page stride that is not page_size rows) and stores them densely.
// The expected values are gathered here on the host from the same table; rows past the
// sequence and columns past the head read 0, and the exactly sized table and pool make any
// read past them a memcheck error.
#include "dsl_emu_run.hpp"

#include <dsl/dsl.hpp>
#include <dsl/tensor/folded_rows.hpp>
#include <dsl/tensor/gathered_rows.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

constexpr int kTileRows = 32, kTileCols = 48, kTiles = 2, kRowStride = 48;

// Per workgroup (64 threads): tile `block_id(x)` of the paged tensor -> rows of `out`.
ir::Kernel gathered_copy_kernel() {
  KernelBuilder kb("gathered_rows_copy", {64, 1, 1});
  auto [Pool, Table, Out, rows, cols, page_size, page_stride] =
      kb.args(gptr<f16>("pool", 16), gptr<i32>("table"), gptr<f16>("out"), scalar<i64>("rows"),
              scalar<i64>("cols"), scalar<i32>("page_size"), scalar<i64>("page_stride"));
  constexpr auto copy = make_tiled_copy<f16>(atoms::global_load_b128{}, thread_layout<32, 2>);
  const RowGatheredTensor src(Pool, rows, cols,
                              PagedRows{Table, page_size, page_stride, Int64(kRowStride)});
  const Int32 t = block_id(ir::Dim::x);
  const auto regs = copy.load(local_tile<kTileRows, kTileCols>(src, t, 0));
  const GlobalTensor<f16> out(Out, Int64(kTiles * kTileRows), Int64(kTileCols), Int64(kTileCols),
                              Int64(1));
  copy.store(regs, local_tile<kTileRows, kTileCols>(out, t, 0));
  return kb.finish();
}

std::uint16_t code(int page, int slot, int col) {
  return static_cast<std::uint16_t>(0x3c00 + page * 4096 + slot * 48 + col); // distinct f16 bits
}

void check(int page_size, int rows, int cols, std::vector<std::int32_t> table) {
  CAPTURE(page_size);
  CAPTURE(rows);
  CAPTURE(cols);
  const int pages = 6;
  const int page_stride = page_size * kRowStride + 8; // 16 bytes of slack between pages
  std::vector<std::uint16_t> pool(std::size_t(pages * page_stride), 0xffff);
  for (int p = 0; p < pages; ++p)
    for (int s = 0; s < page_size; ++s)
      for (int c = 0; c < kRowStride; ++c)
        pool[std::size_t(p * page_stride + s * kRowStride + c)] = code(p, s, c);
  // Host gather: logical row r is slot r % page_size of page table[r / page_size].
  std::vector<std::uint16_t> want(kTiles * kTileRows * kTileCols, 0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      want[std::size_t(r * kTileCols + c)] =
          code(table[std::size_t(r / page_size)], r % page_size, c);
  const ir::Kernel k = gathered_copy_kernel();
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    const auto dpool = run.upload(pool), dtable = run.upload(table);
    const auto dout = run.upload(std::vector<std::uint16_t>(want.size(), 0xfffe));
    run.launch({kTiles, 1, 1}, {64, 1, 1},
               runtime::KernelArgs()
                   .ptr(dpool)
                   .ptr(dtable)
                   .ptr(dout)
                   .add<std::int64_t>(rows)
                   .add<std::int64_t>(cols)
                   .add<std::int32_t>(page_size)
                   .add<std::int64_t>(page_stride));
    const auto got = run.download<std::uint16_t>(dout, want.size());
    int bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && bad++ < 4)
        MESSAGE("row " << i / kTileCols << " col " << i % kTileCols << ": got " << got[i]
                       << ", want " << want[i]);
    CHECK(bad == 0);
  }
}

} // namespace

TEST_CASE("gathered rows: a paged tile spans several pages (page 16 < 32 rows), permuted table, "
          "ragged rows and columns") {
  // 37 rows: tile 0 = pages table[0], table[1]; tile 1 = 5 rows of table[2].
  check(16, 37, 40, {4, 1, 5});
  check(16, 64, 48, {2, 0, 5, 3}); // whole tiles: the unmasked path
}

TEST_CASE("gathered rows: a page holds several tiles (page 64 > 32 rows)") {
  check(64, 50, 48, {3});
  check(64, 1, 8, {5}); // one row
}

namespace {

// FoldedRows (dsl/tensor/folded_rows.hpp), read and written: rows (g, i) = g * inner + i of a
// [tokens, heads, 16] f16 array (inner = tokens, inner stride heads * 16, outer stride 16),
// heads h0 .. h0 + groups - 1: one 32 x 16 tile per workgroup, copied from `in` to `out` through
// the same folded view; a ragged last tile is masked on both sides (memcheck: exact sizes).
ir::Kernel folded_copy_kernel() {
  KernelBuilder kb("folded_rows_copy", {64, 1, 1});
  auto [In, Out, rows, inner, inner_stride, outer_stride, first] =
      kb.args(gptr<f16>("in", 16), gptr<f16>("out", 16), scalar<i64>("rows"), scalar<i32>("inner"),
              scalar<i64>("inner_stride"), scalar<i64>("outer_stride"), scalar<i64>("first"));
  constexpr auto copy = make_tiled_copy<f16>(atoms::global_load_b128{}, thread_layout<32, 2>);
  const FoldedRows map{inner, inner_stride, outer_stride};
  const RowGatheredTensor src(GlobalPtr<f16>(In.offset(first).ir(), 16), rows, Int64(16), map);
  const RowGatheredTensor dst(GlobalPtr<f16>(Out.offset(first).ir(), 16), rows, Int64(16), map);
  const Int32 t = block_id(ir::Dim::x);
  copy.store(copy.load(local_tile<32, 16>(src, t, 0)), local_tile<32, 16>(dst, t, 0));
  return kb.finish();
}

} // namespace

TEST_CASE("folded rows: (head, token) rows of [tokens, heads, 16] read and written through one "
          "view, whole and ragged tiles") {
  // rows = groups * tokens: 25 (one ragged tile of 32) and 64 (two whole tiles)
  for (auto [tokens, heads, h0, groups] : {std::tuple{5, 8, 2, 5}, std::tuple{16, 4, 0, 4}}) {
    CAPTURE(tokens);
    const int n = tokens * heads * 16, rows = groups * tokens;
    std::vector<std::uint16_t> in(std::size_t(n), 0);
    for (int e = 0; e < n; ++e)
      in[std::size_t(e)] = static_cast<std::uint16_t>(0x1000 + e);
    std::vector<std::uint16_t> want(std::size_t(n), 0xfffe);
    for (int r = 0; r < rows; ++r) // row r = (g, i): token i of head h0 + g
      for (int c = 0; c < 16; ++c) {
        const int e = ((r % tokens) * heads + h0 + r / tokens) * 16 + c;
        want[std::size_t(e)] = in[std::size_t(e)];
      }
    const ir::Kernel k = folded_copy_kernel();
    for (emit::Backend backend : test::kBothBackends) {
      CAPTURE(emit::backend_name(backend));
      test::DslEmuRun run(k, backend);
      const auto din = run.upload(in);
      const auto dout = run.upload(std::vector<std::uint16_t>(std::size_t(n), 0xfffe));
      run.launch({uint32_t((rows + 31) / 32), 1, 1}, {64, 1, 1},
                 runtime::KernelArgs()
                     .ptr(din)
                     .ptr(dout)
                     .add<std::int64_t>(rows)
                     .add<std::int32_t>(tokens)
                     .add<std::int64_t>(heads * 16)
                     .add<std::int64_t>(16)
                     .add<std::int64_t>(h0 * 16));
      CHECK(run.download<std::uint16_t>(dout, want.size()) == want);
    }
  }
}
