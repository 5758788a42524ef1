// int8 flash attention (kernels/attention, the iu8 WMMA with signed operands) against the
// float64 reference, which applies P's int8 quantization rule itself (docs/kernels.md "int8
// attention", tests/kernels/oracles/attention.hpp): both emitters, the memcheck emulator.
#include "attention_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {

// int8 codes over [-128, 127]; the descales put the scores at a few units (|q . k| of random
// codes is about sqrt(D) * 74^2, times q_descale * k_descale / sqrt(D)) so that the softmax is
// neither uniform nor one-hot, and V's real values near [-2, 2].
Case int8_case(int64_t sq, int64_t sk, int64_t d = 64) {
  Case c;
  c.dtype = DType::int8;
  c.sq = sq;
  c.sk = sk;
  c.d = c.dv = d;
  c.q_descale = 0.02f;
  c.k_descale = 0.025f;
  c.v_descale = 1.0f / 64;
  return c;
}

} // namespace

TEST_CASE("flash_attn int8: dense, Sq != Sk among 1, 17, 97, 129, with lse") {
  for (auto [sq, sk, d] : {std::tuple{17, 97, 64}, std::tuple{97, 17, 64}, std::tuple{1, 129, 128},
                           std::tuple{129, 1, 32}}) {
    Case c = int8_case(sq, sk, d);
    c.lse = true;
    run_case(c);
  }
}

TEST_CASE("flash_attn int8: causal (bottom-right) and sliding window") {
  Case c = int8_case(97, 129);
  c.causal = true;
  c.lse = true;
  run_case(c);
  c = int8_case(129, 97);
  c.causal = true; // rows that see no key: out 0
  run_case(c);
  c = int8_case(1, 97);
  c.left = 4;
  c.right = 0;
  run_case(c);
}

TEST_CASE("flash_attn int8: GQA / MQA, value head dim != query head dim, f16 output") {
  Case c = int8_case(17, 129);
  c.batch = 2;
  c.hq = 4;
  c.hkv = 2;
  run_case(c);
  c = int8_case(97, 17, 128);
  c.hq = 3;
  c.hkv = 1;
  c.dv = 80;
  c.out = DType::f16;
  run_case(c);
}

TEST_CASE("flash_attn int8: split-KV (each split quantizes P against its own running max)") {
  Case c = int8_case(17, 129);
  c.hq = 2;
  c.hkv = 1;
  c.num_splits = 3;
  c.lse = true;
  run_case(c);
  c.causal = true;
  c.sq = 97;
  run_case(c);
}

TEST_CASE("flash_attn int8: varlen ragged batch with causal, softcap and ALiBi") {
  Case c = int8_case(97, 97);
  c.cu_q = {0, 17, 18, 115};
  c.cu_k = {0, 33, 130, 147};
  c.hq = 2;
  c.hkv = 1;
  c.causal = true;
  c.lse = true;
  run_case(c);
  c.causal = false;
  c.softcap = 3.0f;
  c.alibi = kernels::FlashAttnProblem::Alibi::scalar;
  run_case(c);
}

TEST_CASE("flash_attn int8: dropout (kept probabilities still quantized into [0, 127])") {
  Case c = int8_case(17, 97);
  c.hq = 2;
  c.dropout_p = 0.5f; // kept p / (1 - p) reaches 2: the quantization scale is 127 (1 - p)
  c.dropout_seed = 7;
  c.dropout_offset = 3;
  const auto first = run_case(c);
  CHECK(run_case(c) == first);
}
