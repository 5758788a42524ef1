// The slow MLA decode sweep (ctest label kernels_slow): every cache dtype x page size (16, 64)
// x table form (dense, CSR) x Sq (1, 2) at the 576 / 512 widths, with ragged lengths including
// 0 and 1, causal for Sq = 2, several query heads (a partial second row tile), and split-KV per
// dtype; against the float64 reference (oracles/mla_decode.hpp) on the memcheck emulator
// through both emitters. tests/kernels/test_mla_decode.cpp keeps one case per dtype.
#include "../mla_decode_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {
MlaCase quantized(DType t, MlaCase m) {
  m.dtype = t;
  if (t == DType::int8) {
    m.q_descale = 0.02f;
    m.k_descale = 0.025f;
    m.v_descale = 1.0f / 64;
  } else if (t == DType::e4m3 || t == DType::e5m2) {
    m.q_descale = 0.5f;
    m.k_descale = 0.75f;
    m.v_descale = 1.5f;
  }
  return m;
}
constexpr DType dtypes[] = {DType::bf16, DType::f16, DType::e4m3, DType::e5m2, DType::int8};
} // namespace

TEST_CASE("mla_decode sweep: dtype x page 16 / 64 x dense / CSR table x Sq 1 / 2") {
  uint64_t seed = 11;
  for (const DType t : dtypes)
    for (const int64_t page : {16, 64})
      for (const bool csr : {false, true})
        for (const int64_t sq : {1, 2}) {
          MlaCase m = quantized(t, {});
          m.out = t == DType::f16 ? DType::f16 : DType::bf16;
          m.page_size = page;
          m.csr = csr;
          m.sq = sq;
          m.hq = sq == 1 ? 18 : 9; // 18 packed rows: a full and a partial row tile
          m.causal = sq == 2;
          m.seqlens_k = {1, 0, 97, 150};
          m.seed = seed++;
          run_mla_case(m);
        }
}

// (int8's reference needs the split count the kernel runs: 2 and 4 given; the others also
// take the host's choice, 2 splits for 600 keys.)
TEST_CASE("mla_decode sweep: split-KV per dtype (host-chosen or 2, and 4 splits)") {
  uint64_t seed = 101;
  for (const DType t : dtypes)
    for (const int splits : {t == DType::int8 ? 2 : 0, 4}) {
      MlaCase m = quantized(t, {});
      m.num_splits = splits;
      m.page_size = 64;
      m.seqlens_k = {600, 2};
      m.seed = seed++;
      run_mla_case(m);
    }
}
