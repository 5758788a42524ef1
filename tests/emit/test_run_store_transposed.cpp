// TiledMma::store_transposed (dsl/mma/tiled_mma.hpp) end to end on the gfx12 emulator through
// both backends: a WMMA accumulator C (16 x 16) written as C^T into a bf16 tensor, once whole
// (one 128-bit store per lane run) and once crossing the tensor's edge (masked, memcheck on).
// Inputs are small integers, so C is exact in f32 and in bf16.
#include "dsl_emu_run.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/mma/gfx12.hpp>
#include <dsl/dsl.hpp>

#include "f16_test_values.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

// out (n_rows x n_cols, row stride 16) = (A B)^T for 16 x 16 bf16 A and B^T (n-major).
void check(int n_rows, int n_cols, bool want_vector_store) {
  using Atom = atoms::wmma_f32_16x16x16_bf16;
  const std::string name = "store_t_" + std::to_string(n_rows) + "x" + std::to_string(n_cols);
  KernelBuilder kb(name, {32, 1, 1});
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
  auto [A, Bt, O] =
      kb.args(gtensor<bf16>(row_major, "a"), gtensor<bf16>(row_major, "bt"), gptr<bf16>("o"));
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, mma.load_a(local_tile<16, 16>(A.shape(16, 16), 0, 0), 0),
       mma.load_b(local_tile<16, 16>(Bt.shape(16, 16), 0, 0), 0), acc);
  const GlobalTensor<bf16> out(GlobalPtr<bf16>(O.ir(), 16), Int64(n_rows), Int64(n_cols), Int64(16),
                               Int64(1));
  mma.store_transposed(acc, local_tile<16, 16>(out, 0, 0));
  const ir::Kernel k = kb.finish();

  std::vector<std::uint16_t> a(256), bt(256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      a[i * 16 + j] = static_cast<std::uint16_t>(num::f64_to_bf16(test::small_int_value(i, j, 1)));
      bt[i * 16 + j] = static_cast<std::uint16_t>(num::f64_to_bf16(test::small_int_value(i, j, 2)));
    }
  const std::uint16_t sentinel = 0x7777;
  // The tensor's last row ends at column n_cols: the allocation stops there (memcheck).
  const std::size_t elems = static_cast<std::size_t>((n_rows - 1) * 16 + n_cols);
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.uses("global_store_b128") == want_vector_store);
    const runtime::DevicePtr da = run.upload(a), db = run.upload(bt),
                             dout = run.upload(std::vector<std::uint16_t>(elems, sentinel));
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dout));
    const std::vector<std::uint16_t> o = run.download<std::uint16_t>(dout, elems);
    for (int n = 0; n < n_rows; ++n)
      for (int m = 0; m < 16; ++m) {
        const std::size_t at = static_cast<std::size_t>(n * 16 + m);
        if (at >= elems)
          continue;
        CAPTURE(n);
        CAPTURE(m);
        if (m >= n_cols) { // past the tensor's columns: untouched
          CHECK(o[at] == sentinel);
          continue;
        }
        double c = 0; // C(m, n) = sum_k A(m, k) B(k, n), B(k, n) = bt(n, k)
        for (int kk = 0; kk < 16; ++kk)
          c += test::small_int_value(m, kk, 1) * test::small_int_value(n, kk, 2);
        CHECK(o[at] == num::f64_to_bf16(c));
      }
  }
}

} // namespace

TEST_CASE("store_transposed: a whole tile leaves as 128-bit stores of C^T") {
  check(16, 16, true);
}

TEST_CASE("store_transposed: a tile crossing the tensor's edge writes only existing elements") {
  check(13, 12, true);
}
