// The slow flash attention sweep (ctest label kernels_slow): the shapes, head dims, value
// heads, ragged batches, decode windows and dtype x feature combinations of issue 10's proof
// list that tests/kernels/test_attention_forward.cpp (one case per feature) does not cover,
// against the float64 reference on the memcheck emulator through both emitters. Every test
// case is one section; each run names its case (CAPTURE) so a failure names both.
#include "../attention_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {
// The int8 / fp8 descales of the forward tests (scores of a few units).
Case quantized(DType t, Case c) {
  c.dtype = t;
  if (t == DType::int8) {
    c.q_descale = 0.02f;
    c.k_descale = 0.025f;
    c.v_descale = 1.0f / 64;
  } else if (t == DType::e4m3 || t == DType::e5m2) {
    c.q_descale = 0.5f;
    c.k_descale = 0.75f;
    c.v_descale = 1.5f;
  }
  return c;
}
} // namespace

TEST_CASE("flash_attn sweep [shapes]: every Sq != Sk among 1, 17, 97, 129, 256") {
  const int64_t lens[] = {1, 17, 97, 129, 256};
  int n = 0;
  for (int64_t sq : lens)
    for (int64_t sk : lens) {
      if (sq == sk)
        continue;
      Case c;
      c.sq = sq;
      c.sk = sk;
      c.causal = n++ % 2 == 1; // half of them bottom-right causal
      CAPTURE(c.causal);
      run_case(c);
    }
}

TEST_CASE("flash_attn sweep [head dims]: 32, 64, 72, 80, 96, 128, 256 with causal GQA and lse") {
  for (int64_t d : {32, 64, 72, 80, 96, 128, 256}) {
    Case c;
    c.sq = 97;
    c.sk = 256;
    c.hq = 4;
    c.hkv = 2;
    c.d = c.dv = d;
    c.causal = true;
    c.lse = true;
    run_case(c);
  }
}

TEST_CASE("flash_attn sweep [value heads]: Dv 40 / 48 / 80 with query heads 64 / 128") {
  for (int64_t d : {64, 128})
    for (int64_t dv : {40, 48, 80}) {
      Case c;
      c.sq = 17;
      c.sk = 129;
      c.d = d;
      c.dv = dv;
      run_case(c);
    }
}

TEST_CASE("flash_attn sweep [ragged varlen]: empty, one-token and long sequences, f16") {
  Case c;
  c.dtype = c.out = DType::f16;
  c.cu_q = {0, 0, 1, 130, 147, 403};   // Sq_b: 0, 1, 129, 17, 256
  c.cu_k = {0, 17, 17, 114, 370, 371}; // Sk_b: 17, 0, 97, 256, 1
  c.sq = 256;
  c.sk = 256;
  c.hq = 4;
  c.hkv = 1;
  c.lse = true;
  run_case(c);
  c.causal = true;
  run_case(c);
  c.causal = false;
  c.left = 16;
  c.right = 4;
  run_case(c);
}

TEST_CASE("flash_attn sweep [decode window]: Sq = 1 with left windows, dense and varlen") {
  for (int64_t sk : {17, 129, 256})
    for (int64_t left : {0, 4, 100}) {
      Case c;
      c.sq = 1;
      c.sk = sk;
      c.hq = 4;
      c.hkv = 1;
      c.left = left;
      c.right = 0;
      c.lse = true;
      CAPTURE(left);
      run_case(c);
    }
  Case v; // one query per sequence, each at its own sequence's end
  v.cu_q = {0, 1, 2, 3};
  v.cu_k = {0, 97, 98, 354};
  v.sq = 1;
  v.sk = 256;
  v.hq = 2;
  v.left = 8;
  v.right = 0;
  v.lse = true;
  run_case(v);
}

TEST_CASE("flash_attn sweep [dtype x feature]: f16, e4m3, e5m2, int8 with every feature") {
  for (DType t : {DType::f16, DType::e4m3, DType::e5m2, DType::int8}) {
    CAPTURE(kernels::dtype_name(t));
    Case base;
    base.sq = 97;
    base.sk = 129;
    base.hq = 2;
    base.hkv = 1;
    {
      Case c = quantized(t, base); // sliding window, softcap, per-head ALiBi, lse
      c.left = 30;
      c.right = 10;
      c.softcap = 5.0f;
      c.alibi = kernels::FlashAttnProblem::Alibi::per_head;
      c.lse = true;
      run_case(c);
    }
    {
      Case c = quantized(t, base); // additive per-head bias, split-KV
      c.bias = kernels::AttnBiasKind::additive;
      c.bias_per_head = true;
      c.num_splits = 2;
      run_case(c);
    }
    {
      Case c = quantized(t, base); // bool mask, causal, dropout
      c.bias = kernels::AttnBiasKind::bool_mask;
      c.bias_dtype = DType::uint8;
      c.causal = true;
      c.dropout_p = 0.25f;
      c.dropout_seed = 99;
      run_case(c);
    }
    {
      Case c = quantized(t, base); // varlen with causal and lse
      c.cu_q = {0, 17, 114};
      c.cu_k = {0, 129, 146};
      c.lse = true;
      c.causal = true;
      run_case(c);
    }
  }
}
