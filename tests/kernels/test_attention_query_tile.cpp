// Flash attention with 128-row query tiles (FlashAttnArgs::query_tile = 128: 8 waves per
// workgroup, one 16-query column each) against the float64 reference of attention_harness.hpp,
// both emitters, the emulator with memcheck: bf16 and e4m3, Sq 1, 97, 129 and 256 with
// Sq != Sk, causal and not, GQA, varlen with ragged sequences. Head dims 32 and 96 take the
// 64-bit K copy (k_copy_bits in flash_attn_body.hpp), 64 and 128 the 128-bit one.
#include "attention_harness.hpp"

#include <kernels/attention/flash_attn_launch.hpp>

#include <tuple>

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {
Case tile128(DType dtype, int64_t sq, int64_t sk, int64_t d, bool causal) {
  Case c;
  c.dtype = dtype;
  c.query_tile = 128;
  c.sq = sq;
  c.sk = sk;
  c.d = c.dv = d;
  c.causal = causal;
  if (dtype == DType::e4m3) {
    c.q_descale = 0.5f;
    c.k_descale = 0.25f;
    c.v_descale = 2.0f;
  }
  return c;
}
// The validated problem of a dense bf16 case, as spec_of sees it.
kernels::FlashAttnProblem bf16_problem_of(const Case& c) {
  kernels::FlashAttnProblem p;
  p.dtype = p.out_dtype = DType::bf16;
  p.batch = c.batch;
  p.seqlen_q = c.sq;
  p.seqlen_k = c.sk;
  p.heads_q = c.hq;
  p.heads_kv = c.hkv;
  p.head_dim = c.d;
  p.head_dim_v = c.dv;
  return p;
}
} // namespace

TEST_CASE("flash_attn query_tile 128: dense, Sq 1 / 97 / 129 / 256, Sq != Sk, causal and not") {
  for (DType dtype : {DType::bf16, DType::e4m3})
    for (bool causal : {false, true})
      for (auto [sq, sk, d] : {std::tuple{1, 97, 64}, std::tuple{97, 129, 32},
                               std::tuple{129, 97, 128}, std::tuple{256, 200, 96}}) {
        CAPTURE(causal);
        run_case(tile128(dtype, sq, sk, d, causal));
      }
}

TEST_CASE("flash_attn query_tile 128: GQA over two batches, with lse") {
  for (DType dtype : {DType::bf16, DType::e4m3})
    for (bool causal : {false, true}) {
      CAPTURE(causal);
      Case c = tile128(dtype, 129, 256, 64, causal);
      c.batch = 2;
      c.hq = 4;
      c.hkv = 2;
      c.lse = true;
      run_case(c);
    }
}

TEST_CASE("flash_attn query_tile 128: varlen with ragged sequences, causal and not") {
  for (DType dtype : {DType::bf16, DType::e4m3})
    for (bool causal : {false, true}) {
      CAPTURE(causal);
      // query lengths 1, 97, 129, 256; key lengths 17, 129, 97, 300
      Case c = tile128(dtype, 256, 300, 64, causal);
      c.batch = 4;
      c.hq = 2;
      c.hkv = 1;
      c.cu_q = {0, 1, 98, 227, 483};
      c.cu_k = {0, 17, 146, 243, 543};
      run_case(c);
    }
}

TEST_CASE("flash_attn query_tile 128: split-KV and the default tile agree with the oracle") {
  // a forced split (the partials written by 128-row tiles, then the combine), and query_tile 64
  // given explicitly (the default kernel)
  Case c = tile128(DType::bf16, 129, 300, 64, true);
  c.num_splits = 3;
  run_case(c);
  c.num_splits = 1;
  c.query_tile = 64;
  run_case(c);
}

TEST_CASE("flash_attn default query_tile at D 256: 128 rows for Sq 97, 64 for Sq 17, dense "
          "causal and varlen, against the oracle") {
  // query_tile 0: the host picks 128 rows (D > 128, Sq > 64) or 64 (Sq <= 64); the picks are
  // test_attention_validation's, the results here
  for (auto [sq, causal] : {std::pair{97, true}, std::pair{97, false}, std::pair{17, true}}) {
    Case c = tile128(DType::bf16, sq, 129, 256, causal);
    c.query_tile = 0;
    run_case(c);
  }
  Case v = tile128(DType::f16, 97, 129, 256, true);
  v.query_tile = 0;
  v.batch = 2;
  v.cu_q = {0, 97, 100};  // Sq_b: 97, 3
  v.cu_k = {0, 129, 146}; // Sk_b: 129, 17
  v.lse = true;
  run_case(v);
}

TEST_CASE("flash_attn query_tile: the launch picks 8 waves for 128 rows, 4 otherwise") {
  // spec_of on validated problems: the tile of the problem becomes the spec's waves and name
  const Case c;
  const Inputs in = make_inputs(c);
  HostTensor out(c.out, {c.batch, c.sq, c.hq, c.dv}), lse(DType::f32, {c.batch, c.hq, c.sq});
  const kernels::FlashAttnArgs a =
      args_of(c, in, out, lse, [](const HostTensor& t) { return t.view(); });
  kernels::FlashAttnProblem p = bf16_problem_of(c);
  for (auto [tile, waves] : {std::pair{64, 4}, std::pair{128, 8}}) {
    p.query_tile = tile;
    const kernels::flash_attn_kernel::FlashAttnKernelSpec s =
        kernels::flash_attn_kernel::spec_of(a, p);
    CHECK(s.waves == waves);
    CHECK(s.block_q() == tile);
    CHECK((s.name().find("_q128") != std::string::npos) == (tile == 128));
  }
}

TEST_CASE(
    "flash_attn spec_of: K is read clipped only when a block's num_records stays below 2^31") {
  // bf16 K blocks are 32 rows. A row stride of 2^25 elements keeps the block's last byte
  // offset (31 strides + the head) below 2^31 but puts num_records (32 strides = 2^31 bytes)
  // at it, where the clipped tile's "past the columns" offset 2^31 would read inside: the
  // launch must take the branching K loads instead.
  const Case c;
  const Inputs in = make_inputs(c);
  HostTensor out(c.out, {c.batch, c.sq, c.hq, c.dv}), lse(DType::f32, {c.batch, c.hq, c.sq});
  kernels::FlashAttnArgs a = args_of(c, in, out, lse, [](const HostTensor& t) { return t.view(); });
  kernels::FlashAttnProblem p = bf16_problem_of(c);
  p.query_tile = 64;
  REQUIRE(a.k.rank() == 4);
  REQUIRE(a.k.address() % 16 == 0);
  const int64_t dense_row_stride = a.k.strides[1];
  CHECK(kernels::flash_attn_kernel::spec_of(a, p).k_clipped);
  a.k.strides[1] = int64_t{1} << 25;
  a.k.strides[0] = a.k.strides[1] * p.seqlen_k;
  CHECK_FALSE(kernels::flash_attn_kernel::spec_of(a, p).k_clipped);
  a.k.strides[1] = (int64_t{1} << 25) - 8; // 32 strides' bytes just below 2^31
  a.k.strides[0] = a.k.strides[1] * p.seqlen_k;
  CHECK(kernels::flash_attn_kernel::spec_of(a, p).k_clipped);
  CHECK(dense_row_stride < a.k.strides[1]);
}
