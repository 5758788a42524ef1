// buffer_local_tile (dsl/copy/buffer_global_tile.hpp) end to end on the gfx12 emulator through both
// backends: a TiledCopy of 32 x 32 f16 tiles (128-bit runs) from a padded row-major matrix into
// a compact one. Interior tiles take the buffer loads (buffer_load_b128 with a 32-bit VGPR
// offset and an SGPR descriptor), edge tiles the masked GlobalTile path. whole() is false for a
// tile whose span passes 2^32 - 1 bytes (then the copy takes the masked 64-bit path): checked at
// the boundary stride. Memcheck (on in DslEmuRun) sees only in-bounds accesses.
#include "dsl_emu_run.hpp"

#include <atoms/copy/copy_atom.hpp>
#include <dsl/copy/buffer_global_tile.hpp>
#include <dsl/dsl.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {
constexpr int tile = 32;

// o[M, N] (compact) = a[M, N] with leading stride lda; grid ceil(M / 32) x ceil(N / 32).
ir::Kernel buffer_copy_kernel() {
  KernelBuilder kb("buffer_copy", {128, 1, 1});
  auto [A, O, M, N, lda] =
      kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f16>(row_major, "o", 16), scalar<i64>("m"),
              scalar<i64>("n"), scalar<i64>("lda"));
  constexpr auto copy = make_tiled_copy<f16>(atoms::global_load_b128{}, thread_layout<32, 4>);
  const Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);
  const auto regs = copy.load(buffer_local_tile<tile, tile>(A.shape(M, N, lda), bm, bn));
  copy.store(regs, local_tile<tile, tile>(O.shape(M, N), bm, bn));
  return kb.finish();
}

std::uint16_t elem(std::int64_t r, std::int64_t c) {
  return static_cast<std::uint16_t>(0x3000 + (r * 131 + c * 7) % 4093);
}

// A 128-bit buffer load at a 32-bit VGPR offset from an SGPR descriptor.
bool has_buffer_b128(const std::string& assembly) {
  static const std::regex form(R"(buffer_load_b128 v\[\d+:\d+\], v\d+, s\[\d+:\d+\], null offen)");
  return std::regex_search(assembly, form);
}
} // namespace

TEST_CASE("buffer_local_tile: buffer loads of whole tiles and masked edge tiles") {
  const ir::Kernel k = buffer_copy_kernel();
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(has_buffer_b128(run.art.assembly));

    SUBCASE("whole and edge tiles (M = 75, N = 70, lda = 72)") {
      const std::int64_t m = 75, n = 70, lda = 72;
      std::vector<std::uint16_t> a(static_cast<std::size_t>(m * lda));
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < lda; ++c)
          a[static_cast<std::size_t>(r * lda + c)] = c < n ? elem(r, c) : 0xFFFF;
      const runtime::DevicePtr da = run.upload(a),
                               dout = run.upload(std::vector<std::uint16_t>(m * n, 0));
      run.launch({3, 3, 1}, {128, 1, 1},
                 runtime::KernelArgs()
                     .ptr(da)
                     .ptr(dout)
                     .add<std::int64_t>(m)
                     .add<std::int64_t>(n)
                     .add<std::int64_t>(lda));
      const auto o = run.download<std::uint16_t>(dout, static_cast<std::size_t>(m * n));
      int wrong = 0;
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < n; ++c)
          wrong += o[static_cast<std::size_t>(r * n + c)] != elem(r, c);
      CHECK(wrong == 0);
    }
  }
}

namespace {
// o[0] = whole() of the first 32 x 32 tile of an M x 32 f16 tensor with leading stride lda.
ir::Kernel buffer_whole_kernel() {
  KernelBuilder kb("buffer_whole", {32, 1, 1});
  auto [A, O, M, lda] =
      kb.args(gtensor<f16>(row_major, "a"), gptr<i32>("o"), scalar<i64>("m"), scalar<i64>("lda"));
  const auto t = buffer_local_tile<tile, tile>(A.shape(M, Int64(tile), lda), 0, 0);
  if_(lane_id() == 0, [&] { O.store(Int32(0), cast<i32>(t.whole())); });
  return kb.finish();
}
} // namespace

TEST_CASE("buffer_local_tile: whole() needs every offset within 2^32 - 1 bytes") {
  const ir::Kernel k = buffer_whole_kernel();
  // A 32 x 32 f16 tile spans (31 * lda + 32) * 2 bytes: lda = 69273665 gives 2^32 - 2.
  struct Case {
    std::int64_t m, lda;
    int whole;
  };
  const Case cases[] = {{32, 40, 1},       {31, 40, 0},        {32, 69273665, 1},
                        {32, 69273666, 0}, {64, 1LL << 31, 0}, {32, 1LL << 40, 0}};
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    const runtime::DevicePtr da = run.upload(std::vector<std::uint16_t>(64, 0));
    for (const Case& c : cases) {
      CAPTURE(c.m);
      CAPTURE(c.lda);
      const runtime::DevicePtr dout = run.upload(std::vector<std::int32_t>{-1});
      run.launch(
          {1, 1, 1}, {32, 1, 1},
          runtime::KernelArgs().ptr(da).ptr(dout).add<std::int64_t>(c.m).add<std::int64_t>(c.lda));
      CHECK(run.download<std::int32_t>(dout, 1)[0] == c.whole);
    }
  }
}

namespace {
// oa / ob (compact M x N) = the tiles (bm, bn) of a and b (leading stride ld), both read by
// load_both_whole_or_masked: b has M - 8 rows, so the last row of tiles is whole in a but not
// in b (both then take the masked path).
ir::Kernel buffer_both_kernel() {
  KernelBuilder kb("buffer_both", {128, 1, 1});
  auto [A, B, OA, OB, M, N, ld] =
      kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f16>(row_major, "b", 16),
              gtensor<f16>(row_major, "oa", 16), gtensor<f16>(row_major, "ob", 16),
              scalar<i64>("m"), scalar<i64>("n"), scalar<i64>("ld"));
  constexpr auto copy = make_tiled_copy<f16>(atoms::global_load_b128{}, thread_layout<32, 4>);
  const Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);
  const Int64 mb = M - Int64(8);
  const auto [ra, rb] =
      load_both_whole_or_masked(copy, buffer_local_tile<tile, tile>(A.shape(M, N, ld), bm, bn),
                                copy, buffer_local_tile<tile, tile>(B.shape(mb, N, ld), bm, bn));
  copy.store(ra, local_tile<tile, tile>(OA.shape(M, N), bm, bn));
  copy.store(rb, local_tile<tile, tile>(OB.shape(mb, N), bm, bn));
  return kb.finish();
}
} // namespace

TEST_CASE("load_both_whole_or_masked: two tiles under one branch, whole or masked together") {
  const ir::Kernel k = buffer_both_kernel();
  const std::int64_t m = 64, n = 72, ld = 80, mb = m - 8; // tiles: 2 x 3, the last column ragged
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m * ld)), b(a.size());
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < ld; ++c) {
      a[static_cast<std::size_t>(r * ld + c)] = c < n ? elem(r, c) : 0xFFFF;
      b[static_cast<std::size_t>(r * ld + c)] = c < n && r < mb ? elem(r + 100, c) : 0xFFFF;
    }
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(has_buffer_b128(run.art.assembly));
    const runtime::DevicePtr da = run.upload(a), db = run.upload(b),
                             doa = run.upload(std::vector<std::uint16_t>(m * n, 0)),
                             dob = run.upload(std::vector<std::uint16_t>(mb * n, 0));
    run.launch({2, 3, 1}, {128, 1, 1},
               runtime::KernelArgs()
                   .ptr(da)
                   .ptr(db)
                   .ptr(doa)
                   .ptr(dob)
                   .add<std::int64_t>(m)
                   .add<std::int64_t>(n)
                   .add<std::int64_t>(ld));
    const auto oa = run.download<std::uint16_t>(doa, static_cast<std::size_t>(m * n));
    const auto ob = run.download<std::uint16_t>(dob, static_cast<std::size_t>(mb * n));
    int wrong = 0;
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < n; ++c) {
        wrong += oa[static_cast<std::size_t>(r * n + c)] != elem(r, c);
        if (r < mb)
          wrong += ob[static_cast<std::size_t>(r * n + c)] != elem(r + 100, c);
      }
    CHECK(wrong == 0);
  }
}
