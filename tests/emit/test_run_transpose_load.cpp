// load_operand_transposed (dsl/copy/transpose_load.hpp) end to end on the gfx12 emulator through
// both backends: a WMMA whose B (and, in one case, A) operand comes from a transpose load of a
// row-major B (column-major A) equals the exact host product of the same 16 x 16 tiles. The
// inputs are small integers, so every product and sum is exact in f32 and the check is exact.
// Tile origins are not at (0, 0) and the tensors are larger than a tile (strides are real).
#include "dsl_emu_run.hpp"

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>
#include <atoms/mma/gfx12.hpp>
#include <dsl/copy/transpose_load.hpp>
#include <dsl/dsl.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::dsl;

namespace {

constexpr int kRows = 32, kCols = 48;       // every matrix is 32 x 48 (rows x cols) in memory
constexpr int kM0 = 16, kK0 = 16, kN0 = 32; // the tile used: A[m0.., k0..], B[k0.., n0..]

// D (16 x 16 f32, row-major) = A tile * B tile. B is row-major K x N; A is row-major M x K, or
// column-major when ATransposed (then A is read with a transpose load too).
template <class Atom, class T, bool ATransposed>
ir::Kernel transpose_load_kernel(const std::string& name) {
  KernelBuilder kb(name, {32, 1, 1});
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
  using TM = std::remove_cvref_t<decltype(mma)>;
  auto [A, B, D] = [&] {
    if constexpr (ATransposed)
      return kb.args(gtensor<T>(col_major, "a"), gtensor<T>(row_major, "b"),
                     gtensor<f32>(row_major, "d"));
    else
      return kb.args(gtensor<T>(row_major, "a"), gtensor<T>(row_major, "b"),
                     gtensor<f32>(row_major, "d"));
  }();
  typename TM::AFrag fa;
  if constexpr (ATransposed) // A is M x K column-major: its transposed view is K x M row-major
    fa.at(0, 0) = load_operand_transposed<Atom, MmaOperand::A>(A.shape(kCols, kRows).transposed(),
                                                               Int64(kK0), Int64(kM0));
  else
    fa = mma.load_a(local_tile<16, 16>(A.shape(kRows, kCols), kM0 / 16, kK0 / 16), 0);
  typename TM::BFrag fb;
  fb.at(0, 0) =
      load_operand_transposed<Atom, MmaOperand::B>(B.shape(kRows, kCols), Int64(kK0), Int64(kN0));
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, fa, fb, acc);
  mma.store(acc, local_tile<16, 16>(D.shape(16, 16), 0, 0));
  return kb.finish();
}

// Small integers in [-4, 4], different for A and B.
double value(int r, int c, int salt) {
  return static_cast<double>((r * 7 + c * 3 + salt * 5) % 9 - 4);
}

template <class Atom, class T, bool ATransposed>
void check(const std::string& name, std::uint64_t (*encode)(double), int elem_bytes,
           const char* instruction) {
  const ir::Kernel k = transpose_load_kernel<Atom, T, ATransposed>(name);
  // A (m, k): row-major 32 x 48 at m * 48 + k; or, ATransposed, column-major 48 x 32 (M = 48,
  // K = 32) at k * 48 + m. B (k, n): row-major 32 x 48 at k * 48 + n.
  std::vector<std::uint8_t> a(kRows * kCols * elem_bytes), b(kRows * kCols * elem_bytes);
  auto put = [&](std::vector<std::uint8_t>& mem, int idx, double v) {
    const std::uint64_t bits = encode(v);
    for (int i = 0; i < elem_bytes; ++i)
      mem[idx * elem_bytes + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  };
  for (int m = 0; m < (ATransposed ? kCols : kRows); ++m)
    for (int kk = 0; kk < (ATransposed ? kRows : kCols); ++kk)
      put(a, ATransposed ? kk * kCols + m : m * kCols + kk, value(m, kk, 1));
  for (int kk = 0; kk < kRows; ++kk)
    for (int n = 0; n < kCols; ++n)
      put(b, kk * kCols + n, value(kk, n, 2));
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.uses(instruction));
    const runtime::DevicePtr da = run.upload(a), db = run.upload(b), dd = run.alloc<float>(256);
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dd));
    const std::vector<float> d = run.download<float>(dd, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = 0;
        for (int kk = 0; kk < 16; ++kk)
          want += value(kM0 + i, kK0 + kk, 1) * value(kK0 + kk, kN0 + j, 2);
        CAPTURE(i);
        CAPTURE(j);
        CHECK(d[i * 16 + j] == want);
      }
  }
}

std::uint64_t enc_f16(double v) {
  return num::f64_to_f16(v);
}
std::uint64_t enc_bf16(double v) {
  return num::f64_to_bf16(v);
}
std::uint64_t enc_e4m3(double v) {
  return num::f64_to_e4m3(v, num::Saturate::no);
}

} // namespace

TEST_CASE("transpose load: f16 WMMA with B from global_load_tr_b128 of a row-major B") {
  check<atoms::wmma_f32_16x16x16_f16, f16, false>("tr_f16_b", enc_f16, 2, "global_load_tr_b128");
}

TEST_CASE("transpose load: bf16 WMMA with A and B both from global_load_tr_b128") {
  check<atoms::wmma_f32_16x16x16_bf16, bf16, true>("tr_bf16_ab", enc_bf16, 2,
                                                   "global_load_tr_b128");
}

TEST_CASE("transpose load: fp8 WMMA with B from global_load_tr_b64 of a row-major B") {
  check<atoms::wmma_f32_16x16x16_fp8_fp8, e4m3, false>("tr_fp8_b", enc_e4m3, 1,
                                                       "global_load_tr_b64");
}

TEST_CASE("transpose load: a tensor whose columns are not adjacent is rejected with a sentence") {
  KernelBuilder kb("tr_bad", {32, 1, 1});
  auto [B] = kb.args(gtensor<f16>(col_major, "b"));
  CHECK_THROWS_WITH_AS((load_operand_transposed<atoms::wmma_f32_16x16x16_f16, MmaOperand::B>(
                           B.shape(16, 16), Int64(0), Int64(0))),
                       doctest::Contains("must be adjacent in memory"), std::invalid_argument);
}

// load_operand_transposed_masked: a 16 x 16 B tile that crosses both edges of a 20 x 24
// row-major B (4 of its k rows and 8 of its n columns exist). The missing elements act as 0
// and memcheck (on in DslEmuRun) proves nothing past the tensor is read.
TEST_CASE("transpose load, masked: a tile past the tensor's edge reads its missing elements as 0") {
  using Atom = atoms::wmma_f32_16x16x16_bf16;
  constexpr int rows = 20, cols = 24, k0 = 16, n0 = 16;
  KernelBuilder kb("tr_masked", {32, 1, 1});
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
  using TM = std::remove_cvref_t<decltype(mma)>;
  auto [A, B, D] = kb.args(gtensor<bf16>(row_major, "a"), gtensor<bf16>(row_major, "b"),
                           gtensor<f32>(row_major, "d"));
  const auto fa = mma.load_a(local_tile<16, 16>(A.shape(16, 16), 0, 0), 0);
  typename TM::BFrag fb;
  fb.at(0, 0) = load_operand_transposed_masked<Atom, MmaOperand::B>(B.shape(rows, cols), Int64(k0),
                                                                    Int64(n0));
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, fa, fb, acc);
  mma.store(acc, local_tile<16, 16>(D.shape(16, 16), 0, 0));
  const ir::Kernel k = kb.finish();

  std::vector<std::uint16_t> a(16 * 16), b(rows * cols);
  for (int m = 0; m < 16; ++m)
    for (int kk = 0; kk < 16; ++kk)
      a[m * 16 + kk] = static_cast<std::uint16_t>(num::f64_to_bf16(value(m, kk, 1)));
  for (int kk = 0; kk < rows; ++kk)
    for (int n = 0; n < cols; ++n)
      b[kk * cols + n] = static_cast<std::uint16_t>(num::f64_to_bf16(value(kk, n, 2)));
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.uses("global_load_tr_b128"));
    const runtime::DevicePtr da = run.upload(a), db = run.upload(b), dd = run.alloc<float>(256);
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dd));
    const std::vector<float> d = run.download<float>(dd, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = 0;
        for (int kk = 0; kk < 16; ++kk)
          if (k0 + kk < rows && n0 + j < cols)
            want += value(i, kk, 1) * value(k0 + kk, n0 + j, 2);
        CAPTURE(i);
        CAPTURE(j);
        CHECK(d[i * 16 + j] == want);
      }
  }
}

// Both transpose loads of a row-gathered B (a paged cache: dsl/tensor/gathered_rows.hpp): the
// 20 x 24 logical B lives in pages of 4 rows scattered over a pool by a page table, so the 16
// rows of one tile come from 4 different pages. D = A B[0..16, 0..16] (unmasked) +
// A B[16..32, 16..32] (masked: 4 rows and 8 columns exist). memcheck proves neither the pool
// nor the table (5 entries: rows 0 .. 19) is read past its end.
TEST_CASE("transpose load, gathered rows: a paged B read unmasked and masked") {
  using Atom = atoms::wmma_f32_16x16x16_bf16;
  constexpr int rows = 20, cols = 24, page = 4, pages = 5;
  const std::vector<std::int32_t> table = {3, 0, 4, 1, 2}; // logical page -> pool page
  KernelBuilder kb("tr_gathered", {32, 1, 1});
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
  using TM = std::remove_cvref_t<decltype(mma)>;
  auto [A, Pool, Table, D] = kb.args(gtensor<bf16>(row_major, "a"), gptr<bf16>("pool"),
                                     gptr<i32>("table"), gtensor<f32>(row_major, "d"));
  const RowGatheredTensor<bf16, PagedRows> b(
      Pool, Int64(rows), Int64(cols),
      PagedRows{Table, Int32(page), Int64(page * cols), Int64(cols)});
  const auto fa = mma.load_a(local_tile<16, 16>(A.shape(16, 16), 0, 0), 0);
  typename TM::BFrag whole, edge;
  whole.at(0, 0) = load_operand_transposed<Atom, MmaOperand::B>(b, Int64(0), Int64(0));
  edge.at(0, 0) = load_operand_transposed_masked<Atom, MmaOperand::B>(b, Int64(16), Int64(16));
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, fa, whole, acc);
  gemm(mma, fa, edge, acc);
  mma.store(acc, local_tile<16, 16>(D.shape(16, 16), 0, 0));
  const ir::Kernel k = kb.finish();

  std::vector<std::uint16_t> a(16 * 16), pool(pages * page * cols);
  for (int m = 0; m < 16; ++m)
    for (int kk = 0; kk < 16; ++kk)
      a[m * 16 + kk] = static_cast<std::uint16_t>(num::f64_to_bf16(value(m, kk, 1)));
  for (int r = 0; r < rows; ++r) // logical row r: slot r % page of pool page table[r / page]
    for (int n = 0; n < cols; ++n)
      pool[(table[r / page] * page + r % page) * cols + n] =
          static_cast<std::uint16_t>(num::f64_to_bf16(value(r, n, 2)));
  for (emit::Backend backend : test::kBothBackends) {
    CAPTURE(emit::backend_name(backend));
    test::DslEmuRun run(k, backend);
    CHECK(run.uses("global_load_tr_b128"));
    const runtime::DevicePtr da = run.upload(a), dp = run.upload(pool), dt = run.upload(table),
                             dd = run.alloc<float>(256);
    run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(dp).ptr(dt).ptr(dd));
    const std::vector<float> d = run.download<float>(dd, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = 0;
        for (int kk = 0; kk < 16; ++kk) {
          want += value(i, kk, 1) * value(kk, j, 2);
          if (16 + kk < rows && 16 + j < cols)
            want += value(i, kk, 1) * value(16 + kk, 16 + j, 2);
        }
        CAPTURE(i);
        CAPTURE(j);
        CHECK(d[i * 16 + j] == want);
      }
  }
}

// load_operand_transposed_clamped, of a plain and of a row-gathered (paged) B: the 16 x 16 tile
// at (16, 16) of a 20 x 24 B has 4 k rows and 8 n columns; its missing elements are copies of
// B's (unspecified which), so A is 0 in the k columns whose B rows are missing and only the
// n columns that exist are checked. memcheck proves every read stays inside B (and the page
// table).
TEST_CASE("transpose load, clamped: a tile past the edge reads only inside the tensor") {
  using Atom = atoms::wmma_f32_16x16x16_bf16;
  constexpr int rows = 20, cols = 24, k0 = 16, n0 = 16, page = 4, pages = 5;
  const std::vector<std::int32_t> table = {3, 0, 4, 1, 2};
  for (bool gathered : {false, true}) {
    CAPTURE(gathered);
    KernelBuilder kb(gathered ? "tr_clamped_paged" : "tr_clamped", {32, 1, 1});
    constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>);
    using TM = std::remove_cvref_t<decltype(mma)>;
    auto [A, B, Table, D] = kb.args(gtensor<bf16>(row_major, "a"), gptr<bf16>("b"),
                                    gptr<i32>("table"), gtensor<f32>(row_major, "d"));
    const auto fa = mma.load_a(local_tile<16, 16>(A.shape(16, 16), 0, 0), 0);
    typename TM::BFrag fb;
    if (gathered)
      fb.at(0, 0) = load_operand_transposed_clamped<Atom, MmaOperand::B>(
          RowGatheredTensor<bf16, PagedRows>(
              B, Int64(rows), Int64(cols),
              PagedRows{Table, Int32(page), Int64(page * cols), Int64(cols)}),
          Int64(k0), Int64(n0));
    else
      fb.at(0, 0) = load_operand_transposed_clamped<Atom, MmaOperand::B>(
          GlobalTensor<bf16>(B, Int64(rows), Int64(cols), Int64(cols), Int64(1)), Int64(k0),
          Int64(n0));
    auto acc = mma.make_accumulator(0.0f);
    gemm(mma, fa, fb, acc);
    mma.store(acc, local_tile<16, 16>(D.shape(16, 16), 0, 0));
    const ir::Kernel k = kb.finish();

    std::vector<std::uint16_t> a(16 * 16), b(gathered ? pages * page * cols : rows * cols);
    for (int m = 0; m < 16; ++m)
      for (int kk = 0; kk < 16; ++kk) // zero where B's row k0 + kk is missing
        a[m * 16 + kk] =
            static_cast<std::uint16_t>(num::f64_to_bf16(k0 + kk < rows ? value(m, kk, 1) : 0.0));
    for (int r = 0; r < rows; ++r)
      for (int n = 0; n < cols; ++n) {
        const int row_at = gathered ? table[r / page] * page + r % page : r;
        b[row_at * cols + n] = static_cast<std::uint16_t>(num::f64_to_bf16(value(r, n, 2)));
      }
    for (emit::Backend backend : test::kBothBackends) {
      CAPTURE(emit::backend_name(backend));
      test::DslEmuRun run(k, backend);
      CHECK(run.uses("global_load_tr_b128"));
      const runtime::DevicePtr da = run.upload(a), db = run.upload(b), dt = run.upload(table),
                               dd = run.alloc<float>(256);
      run.launch({1, 1, 1}, {32, 1, 1}, runtime::KernelArgs().ptr(da).ptr(db).ptr(dt).ptr(dd));
      const std::vector<float> d = run.download<float>(dd, 256);
      for (int i = 0; i < 16; ++i)
        for (int j = 0; n0 + j < cols; ++j) {
          double want = 0;
          for (int kk = 0; k0 + kk < rows; ++kk)
            want += value(i, kk, 1) * value(k0 + kk, n0 + j, 2);
          CAPTURE(i);
          CAPTURE(j);
          CHECK(d[i * 16 + j] == want);
        }
    }
  }
}
