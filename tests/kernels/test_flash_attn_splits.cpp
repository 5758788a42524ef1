// The split-KV heuristic of flash_attn (kernels/attention/flash_attn_splits.hpp), on problem
// shapes whose answer follows from the documented rule by hand.
#include <kernels/attention/flash_attn_splits.hpp>

#include <doctest/doctest.h>

using namespace tw::kernels;

namespace {
FlashAttnProblem shape(int64_t batch, int64_t heads, int64_t sq, int64_t sk, int splits = 0) {
  FlashAttnProblem p;
  p.batch = batch;
  p.heads_q = heads;
  p.seqlen_q = sq;
  p.seqlen_k = sk;
  p.num_splits = splits;
  return p;
}
} // namespace

TEST_CASE("flash_attn splits: an explicit count is kept") {
  CHECK(choose_num_splits(shape(1, 1, 1, 8192, 1)) == 1);
  CHECK(choose_num_splits(shape(64, 64, 4096, 64, 5)) == 5);
}

TEST_CASE("flash_attn splits: a grid with a workgroup per CU is not split") {
  // 1 x 8 heads x ceil(512 / 64) = 64 workgroups: one per CU already
  CHECK(choose_num_splits(shape(1, 8, 512, 32768)) == 1);
  CHECK(choose_num_splits(shape(4, 32, 1, 32768)) == 1); // decode, 128 heads x batch
}

TEST_CASE("flash_attn splits: few query tiles and a long Sk split towards 128 workgroups") {
  // decode, B 1, 8 heads: 8 workgroups -> 128 / 8 = 16 splits; Sk 8192 allows 32, cap 16
  CHECK(choose_num_splits(shape(1, 8, 1, 8192)) == 16);
  // B 2, 4 heads, Sq 100 (2 tiles): 16 workgroups -> 8 splits; Sk 4096 allows 16
  CHECK(choose_num_splits(shape(2, 4, 100, 4096)) == 8);
  // 1 workgroup wants 128 splits; Sk 1000 allows only 1000 / 256 = 3
  CHECK(choose_num_splits(shape(1, 1, 1, 1000)) == 3);
}

TEST_CASE("flash_attn splits: a short Sk is not split") {
  CHECK(choose_num_splits(shape(1, 1, 1, 511)) == 1); // 511 / 256 = 1 split at most
  CHECK(choose_num_splits(shape(1, 1, 1, 0)) == 1);
  CHECK(choose_num_splits(shape(0, 8, 1, 4096)) == 1); // empty
}

TEST_CASE("flash_attn split heuristic: 128-row query tiles count half the workgroups") {
  // 8 heads x Sq 512: 64 tiles of 64 rows fill the 64 CUs (no split); 32 tiles of 128 rows
  // do not: ceil(128 / 32) = 4 splits (Sk / 256 = 128 allows them)
  FlashAttnProblem p = shape(1, 8, 512, 32768);
  CHECK(choose_num_splits(p, split_heuristic_of(p)) == 1);
  p.query_tile = 128;
  CHECK(split_heuristic_of(p).query_tile == 128);
  CHECK(choose_num_splits(p, split_heuristic_of(p)) == 4);
}
