// assume_whole (dsl/tensor/whole_tile.hpp) end to end on the gfx12 emulator through both
// backends: a WMMA whose A and B^T come from whole 16 x 16 tiles and whose C leaves through
// store_transposed, all through assume_whole views, gives the exact product and compiles to
// straight-line code (no branch: no masks, no per-run edge tests). Inputs are small integers,
// so every value is exact in f32 and bf16; memcheck (on in DslEmuRun) sees only in-bounds
// accesses.
#include "dsl_emu_run.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/mma/gfx12.hpp>
#include <dsl/dsl.hpp>
#include <dsl/tensor/whole_tile.hpp>

#include "f16_test_values.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using namespace tw;
using namespace tw::dsl;

TEST_CASE("assume_whole: unmasked loads and stores of whole tiles, without branches") {
  using Atom = atoms::wmma_f32_16x16x16_bf16;
  KernelBuilder kb("whole_tile", {32, 1, 1});
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
  auto [A, Bt, O] = kb.args(gtensor<bf16>(row_major, "a"), gtensor<bf16>(row_major, "bt"),
                            gtensor<bf16>(row_major, "o"));
  // A and B^T are 32 x 16 (the tile used is the second row block), O is 16 x 32 (the second
  // column block), so the tiles' origins are not at the tensors' starts.
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, mma.load_a(assume_whole(local_tile<16, 16>(A.shape(32, 16), 1, 0)), 0),
       mma.load_b(assume_whole(local_tile<16, 16>(Bt.shape(32, 16), 1, 0)), 0), acc);
  mma.store_transposed(acc, assume_whole(local_tile<16, 16>(O.shape(16, 32), 0, 1)));
  const ir::Kernel k = kb.finish();

  std::vector<std::uint16_t> a(32 * 16), bt(32 * 16);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 16; ++j) {
      a[i * 16 + j] = static_cast<std::uint16_t>(num::f64_to_bf16(test::small_int_value(i, j, 1)));
      bt[i * 16 + j] = static_cast<std::uint16_t>(num::f64_to_bf16(test::small_int_value(i, j, 2)));
    }
  const std::uint16_t sentinel = 0x7777;
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.uses("global_store_b128"));
    CHECK_FALSE(run.uses("s_cbranch_execz"));
    const runtime::DevicePtr da = run.upload(a), db = run.upload(bt),
                             dout = run.upload(std::vector<std::uint16_t>(16 * 32, sentinel));
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dout));
    const std::vector<std::uint16_t> o = run.download<std::uint16_t>(dout, 16 * 32);
    for (int n = 0; n < 16; ++n)
      for (int m = 0; m < 32; ++m) {
        CAPTURE(n);
        CAPTURE(m);
        if (m < 16) { // the first column block is not the tile: untouched
          CHECK(o[n * 32 + m] == sentinel);
          continue;
        }
        double c = 0; // C(m', n) with m' = m - 16: sum_k A(16 + m', k) B^T(16 + n, k)
        for (int kk = 0; kk < 16; ++kk)
          c += test::small_int_value(m, kk, 1) * test::small_int_value(16 + n, kk, 2);
        CHECK(o[n * 32 + m] == num::f64_to_bf16(c));
      }
  }
}
