// Flash attention forward (kernels/attention): every feature and dtype against the float64
// reference of attention_harness.hpp, both emitters, the emulator with memcheck.
#include "attention_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

TEST_CASE("flash_attn bf16: dense, Sq != Sk, head dims 64 and 128") {
  for (auto [sq, sk, d] :
       {std::tuple{17, 97, 64}, std::tuple{97, 17, 128}, std::tuple{1, 129, 64}}) {
    Case c;
    c.sq = sq;
    c.sk = sk;
    c.d = c.dv = d;
    run_case(c);
  }
}

TEST_CASE("flash_attn bf16: head dims 32, 72, 80, 96, 256 (padded in registers and LDS)") {
  for (auto [sq, sk, d] : {std::tuple{17, 17, 32}, std::tuple{129, 97, 72}, std::tuple{1, 17, 80},
                           std::tuple{97, 129, 96}, std::tuple{17, 129, 256}}) {
    Case c;
    c.sq = sq;
    c.sk = sk;
    c.d = c.dv = d;
    run_case(c);
  }
}

TEST_CASE("flash_attn f16: dense, head dims 64 and 128, f16 and bf16 output") {
  for (auto [sq, sk, d, out] :
       {std::tuple{97, 256, 64, DType::f16}, std::tuple{129, 17, 128, DType::bf16}}) {
    Case c;
    c.dtype = DType::f16;
    c.out = out;
    c.sq = sq;
    c.sk = sk;
    c.d = c.dv = d;
    run_case(c);
  }
}

TEST_CASE("flash_attn bf16: value head dim != query head dim (Dv 40 / 48 / 80)") {
  for (auto [d, dv] : {std::pair{64, 40}, std::pair{128, 48}, std::pair{64, 80}}) {
    Case c;
    c.sq = 97;
    c.sk = 17;
    c.d = d;
    c.dv = dv;
    run_case(c);
  }
}

// A value head dim that is not a multiple of 8 cannot take V by transpose loads (16-byte
// rows): the kernel reads V element by element instead (FlashAttnKernelSpec::v_transpose_loads).
TEST_CASE("flash_attn bf16: head dims not a multiple of 8 (V without transpose loads)") {
  for (auto [sq, sk, d, dv] :
       {std::tuple{17, 97, 20, 20}, std::tuple{97, 17, 64, 36}, std::tuple{1, 129, 13, 13}}) {
    Case c;
    c.sq = sq;
    c.sk = sk;
    c.d = d;
    c.dv = dv;
    run_case(c);
  }
}

TEST_CASE("flash_attn bf16: GQA and MQA over two batches") {
  Case c;
  c.batch = 2;
  c.sq = 17;
  c.sk = 97;
  c.hq = 4;
  c.hkv = 2;
  run_case(c);
  c.hq = 3;
  c.hkv = 1;
  c.sq = 97;
  c.sk = 17;
  run_case(c);
}

TEST_CASE("flash_attn bf16: log-sum-exp output") {
  Case c;
  c.batch = 2;
  c.hq = 2;
  c.hkv = 2;
  c.sq = 97;
  c.sk = 129;
  c.lse = true;
  run_case(c);
}

TEST_CASE("flash_attn bf16: causal (bottom-right), Sq < Sk and Sq > Sk, with lse") {
  for (auto [sq, sk] : {std::pair{17, 97}, std::pair{129, 97}, std::pair{256, 256}}) {
    Case c;
    c.sq = sq;
    c.sk = sk;
    c.causal = true;
    c.lse = true; // rows of Sq > Sk that see no key: out 0, lse -inf
    run_case(c);
  }
}

TEST_CASE("flash_attn bf16: sliding window (left, right) and the decode-shaped Sq = 1 window") {
  Case c;
  c.sq = 97;
  c.sk = 129;
  c.left = 20;
  c.right = 5;
  run_case(c);
  c.left = -1;
  c.right = 3;
  run_case(c);
  Case dec;
  dec.sq = 1;
  dec.sk = 97;
  dec.left = 4;
  dec.right = 0;
  dec.lse = true;
  run_case(dec);
}

TEST_CASE("flash_attn bf16: varlen (cu_seqlens), ragged batch, with causal and lse") {
  Case c;
  c.cu_q = {0, 17, 18, 115};
  c.cu_k = {0, 33, 130, 147};
  c.sq = 97; // max_seqlen_q
  c.sk = 97; // max_seqlen_k
  c.hq = 2;
  c.hkv = 1;
  c.lse = true;
  run_case(c);
  c.causal = true;
  run_case(c);
}

TEST_CASE("flash_attn bf16: logit softcap") {
  Case c;
  c.sq = 97;
  c.sk = 129;
  c.softcap = 0.5f; // small enough that tanh saturates some scores
  run_case(c);
}

TEST_CASE("flash_attn bf16: additive bias (f32 shared, bf16 per head) and bool mask (uint8)") {
  Case c;
  c.sq = 97;
  c.sk = 17;
  c.hq = 2;
  c.hkv = 2;
  c.bias = kernels::AttnBiasKind::additive;
  run_case(c);
  c.bias_dtype = DType::bf16;
  c.bias_per_head = true;
  run_case(c);
  c.bias = kernels::AttnBiasKind::bool_mask;
  c.bias_dtype = DType::uint8;
  c.lse = true;
  run_case(c);
}

TEST_CASE("flash_attn bf16: ALiBi, scalar and per-head slopes, dense and varlen, with a "
          "per-head mask") {
  Case c;
  c.sq = 17;
  c.sk = 97;
  c.hq = 2;
  c.hkv = 1;
  c.alibi = kernels::FlashAttnProblem::Alibi::scalar;
  run_case(c);
  c.alibi = kernels::FlashAttnProblem::Alibi::per_head;
  c.bias = kernels::AttnBiasKind::bool_mask;
  c.bias_dtype = DType::uint8;
  c.bias_per_head = true;
  run_case(c);
  Case v;
  v.cu_q = {0, 17, 114};
  v.cu_k = {0, 97, 114};
  v.sq = 97;
  v.sk = 97;
  v.hq = 2;
  v.alibi = kernels::FlashAttnProblem::Alibi::per_head;
  run_case(v);
}

TEST_CASE("flash_attn bf16: split-KV (partials, then the combine) against the oracle, and no "
          "split") {
  Case c;
  c.sq = 17;
  c.sk = 256;
  c.hq = 2;
  c.hkv = 1;
  c.num_splits = 3;
  run_case(c);
  c.causal = true;
  c.sq = 97;
  c.sk = 129;
  c.num_splits = 4;
  c.lse = true;
  run_case(c);
  c.num_splits = 1;
  run_case(c);
}

TEST_CASE("flash_attn bf16: dropout (Philox4x32-10 mask of the oracle), reproducible") {
  Case c;
  c.batch = 2;
  c.hq = 2;
  c.hkv = 1;
  c.sq = 17;
  c.sk = 97;
  c.dropout_p = 0.2f;
  c.dropout_seed = 0x123456789abcdefull;
  c.dropout_offset = 77;
  c.lse = true;
  const auto first = run_case(c);
  CHECK(run_case(c) == first); // the same seed and offset give the same bits
  Case v;
  v.cu_q = {0, 17, 114};
  v.cu_k = {0, 33, 50};
  v.sq = 97;
  v.sk = 33;
  v.causal = true;
  v.dropout_p = 0.5f;
  v.dropout_seed = 42;
  run_case(v);
}

TEST_CASE("flash_attn fp8 e4m3 and e5m2: QK and PV on the fp8 WMMA, q / k / v descales") {
  for (DType t : {DType::e4m3, DType::e5m2}) {
    Case c;
    c.dtype = t;
    c.sq = 97;
    c.sk = 129;
    c.d = c.dv = 64;
    c.q_descale = 0.5f;
    c.k_descale = 0.75f;
    c.v_descale = 1.5f;
    c.lse = true;
    run_case(c);
    c.causal = true;
    c.d = 128;
    c.dv = 80;
    c.out = DType::f16;
    run_case(c);
  }
}
