// buffer_clipped_walk (dsl/copy/buffer_clipped_walk.hpp) end to end on the gfx12 emulator
// through both backends: each workgroup walks its band of 32 rows of a padded row-major matrix
// along the columns in a run-time loop, one 32 x 32 tile per step, and copies every tile into a
// compact grid. One descriptor per band, made before the loop; a tile's column offset is the
// loads' scalar offset (soffset). The bands past the rows, the ragged last band and a column of
// tiles wholly past the matrix (whose runs would otherwise read the row padding, 0xFFFF / 0x7F,
// and the next rows) all read 0: rows through num_records, the tile past the columns through
// its soffset of 2^31 (the range check counts soffset). Memcheck (on in DslEmuRun) sees only
// in-bounds accesses.
#include "clipped_matrix.hpp"
#include "dsl_emu_run.hpp"

#include <atoms/copy/copy_atom.hpp>
#include <dsl/copy/buffer_clipped_walk.hpp>
#include <dsl/dsl.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <regex>
#include <stdexcept>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

// o[gm * 32, gn * TC] (compact) = the 32 x TC tiles of a[M, N] (leading stride lda), zeros
// outside it; workgroup x walks band x over gn tiles in a for_range.
template <ElemType T, int TC>
ir::Kernel walk_copy_kernel(const char* name) {
  KernelBuilder kb(name, {128, 1, 1});
  auto [A, O, M, N, lda, OM, ON, GN] =
      kb.args(gtensor<T>(row_major, "a", 16), gtensor<T>(row_major, "o", 16), scalar<i64>("m"),
              scalar<i64>("n"), scalar<i64>("lda"), scalar<i64>("om"), scalar<i64>("on"),
              scalar<i32>("gn"));
  constexpr int per_row = TC * T::bits / 128; // threads per row of 128-bit runs
  constexpr auto copy =
      make_tiled_copy<T>(atoms::global_load_b128{}, thread_layout<128 / per_row, per_row>);
  const Int32 bm = block_id(ir::Dim::x);
  const auto walk = buffer_clipped_walk<32, TC>(A.shape(M, N, lda), bm);
  for_range(Int32(0), GN, [&](const Int32& j) {
    const auto regs = copy.load(walk.tile(j));
    copy.store(regs, local_tile<32, TC>(O.shape(OM, ON), bm, j));
  });
  return kb.finish();
}

// Runs the walk over a m x n matrix of T (element (r, c) = val(r, c), padding `pad` up to lda)
// with gm bands and gn tiles of TC columns per band; every element outside must read 0.
template <ElemType T, int TC, class Raw, class Val>
void check_walk(const char* name, std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t gm,
                std::int64_t gn, Raw pad, Val val) {
  const ir::Kernel k = walk_copy_kernel<T, TC>(name);
  const std::int64_t om = gm * 32, on = gn * TC;
  const std::vector<Raw> a = test::padded_matrix(m, n, lda, pad, val);
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    // 128-bit buffer loads at a 32-bit VGPR offset plus an SGPR soffset; no masked load path
    CHECK(std::regex_search(run.art.assembly,
                            std::regex(R"(buffer_load_b128 v\[\d+:\d+\], v\d+, s\[\d+:\d+\], )"
                                       R"(s\d+ offen)")));
    CHECK(run.art.assembly.find("global_load") == std::string::npos);
    const runtime::DevicePtr da = run.upload(a),
                             dout = run.upload(std::vector<Raw>(om * on, Raw(0x12)));
    run.launch({std::uint32_t(gm), 1, 1}, {128, 1, 1},
               runtime::KernelArgs()
                   .ptr(da)
                   .ptr(dout)
                   .add<std::int64_t>(m)
                   .add<std::int64_t>(n)
                   .add<std::int64_t>(lda)
                   .add<std::int64_t>(om)
                   .add<std::int64_t>(on)
                   .add<std::int32_t>(std::int32_t(gn)));
    test::check_zero_outside(run.download<Raw>(dout, static_cast<std::size_t>(om * on)), m, n, om,
                             on, val);
  }
}

} // namespace

TEST_CASE("buffer_clipped_walk: one descriptor per band, tiles along the columns by soffset, "
          "0 past the rows and past the last column") {
  // 75 x 64 f16 in rows of 72: bands 0-1 whole, band 2 holds 11 rows, band 3 lies past the
  // rows; tiles 0-1 of each band inside the columns, tile 2 wholly past them.
  check_walk<f16, 32>("walk_f16", 75, 64, 72, 4, 3, std::uint16_t{0xFFFF},
                      [](std::int64_t r, std::int64_t c) {
                        return static_cast<std::uint16_t>(0x3000 + (r * 131 + c * 7) % 4093);
                      });
}

TEST_CASE("buffer_clipped_walk: 1-byte elements, runs of 16, a tile wholly past the columns") {
  // 45 x 128 int8 in rows of 144 (padding 0x7F): 64-column tiles 0-1 inside, tile 2 past.
  check_walk<i8, 64>("walk_i8", 45, 128, 144, 2, 3, std::int8_t{0x7F},
                     [](std::int64_t r, std::int64_t c) {
                       return static_cast<std::int8_t>(1 + (r * 37 + c * 11) % 120);
                     });
}

TEST_CASE("buffer_clipped_walk: a tensor whose columns are not contiguous is rejected") {
  KernelBuilder kb("walk_rejects", {128, 1, 1});
  auto [A, M, N, lda] = kb.args(gtensor<f16>(row_major, "a", 16), scalar<i64>("m"),
                                scalar<i64>("n"), scalar<i64>("lda"));
  const auto walk_transposed = [&] {
    (void)buffer_clipped_walk<32, 32>(A.shape(M, N, lda).transposed(), Int32(0));
  };
  CHECK_THROWS_WITH_AS(walk_transposed(),
                       doctest::Contains("buffer_clipped_walk: the tensor's columns must be "
                                         "contiguous"),
                       std::invalid_argument);
}
