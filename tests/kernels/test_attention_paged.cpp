// Paged attention (kernels/attention/paged_attn_api.hpp): the prefill composition over page
// pools through dense and CSR block tables that permute pages, against the float64 paged
// oracle (which gathers the pages itself), both emitters, the emulator with memcheck (pools and
// tables are allocated to their exact size: a read past them stops the run).
#include "paged_attention_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {
void paged(runtime::Device& d, const kernels::PagedAttnArgs& a) {
  kernels::paged_attn(d, a);
}
} // namespace

TEST_CASE("paged_attn bf16: page 16 (a KV block spans two pages), ragged lengths 97, 0, 1, 40, "
          "GQA") {
  PagedCase pc;
  pc.attn.batch = 4;
  pc.attn.sq = 17;
  pc.attn.hq = 4;
  pc.attn.hkv = 2;
  pc.attn.lse = true;
  pc.seqlens_k = {97, 0, 1, 40};
  pc.page_size = 16;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn f16: page 64 (a page holds two KV blocks), CSR table, causal, D = 128") {
  PagedCase pc;
  pc.attn.dtype = DType::f16;
  pc.attn.out = DType::f16;
  pc.attn.batch = 3;
  pc.attn.sq = 5;
  pc.attn.d = pc.attn.dv = 128;
  pc.attn.causal = true;
  pc.seqlens_k = {129, 17, 64};
  pc.page_size = 64;
  pc.csr = true;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn bf16: varlen queries over pages, sliding window, lse") {
  PagedCase pc;
  pc.attn.sq = 17; // max_seqlen_q
  pc.attn.cu_q = {0, 3, 20, 21};
  pc.attn.hq = 2;
  pc.attn.left = 8;
  pc.attn.right = 0;
  pc.attn.lse = true;
  pc.seqlens_k = {50, 17, 1};
  pc.page_size = 32;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn bf16: ragged ALiBi, bottom-right per sequence (varlen queries, per-head "
          "slopes)") {
  PagedCase pc;
  pc.attn.sq = 9;
  pc.attn.cu_q = {0, 9, 10, 14};
  pc.attn.hq = 4;
  pc.attn.hkv = 1;
  pc.attn.alibi = kernels::FlashAttnProblem::Alibi::per_head;
  pc.seqlens_k = {33, 70, 5};
  pc.page_size = 16;
  pc.csr = true;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn bf16: uniform ALiBi (one scalar slope) in varlen paged, equal and ragged "
          "lengths, bottom-right per sequence") {
  PagedCase pc;
  pc.attn.sq = 5;
  pc.attn.cu_q = {0, 5, 10, 15}; // equal query and key lengths in every sequence
  pc.attn.hq = 2;
  pc.attn.alibi = kernels::FlashAttnProblem::Alibi::scalar;
  pc.attn.lse = true;
  pc.seqlens_k = {48, 48, 48};
  pc.page_size = 16;
  run_paged_case(pc, paged);
  pc.attn.cu_q = {0, 5, 6, 6, 9}; // ragged: 5, 1, 0, 3 queries over 77, 1, 20, 0 keys
  pc.attn.causal = true;
  pc.seqlens_k = {77, 1, 20, 0};
  pc.csr = true;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn bf16: pages of 128 and 256 (a page holds 4 / 8 KV blocks), ragged lengths "
          "0, 1, 300, 129, dense and CSR tables") {
  for (auto [ps, csr] : {std::pair{128, false}, std::pair{256, true}}) {
    PagedCase pc;
    pc.attn.batch = 4;
    pc.attn.sq = 17;
    pc.attn.hq = 2;
    pc.attn.hkv = 1;
    pc.attn.causal = true;
    pc.attn.lse = true;
    pc.seqlens_k = {0, 1, 300, 129};
    pc.page_size = ps;
    pc.csr = csr;
    run_paged_case(pc, paged);
  }
}

TEST_CASE("paged_attn bf16: value head 40 with query head 64 (zero-extended, output cropped)") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 17;
  pc.attn.d = 64;
  pc.attn.dv = 40;
  pc.seqlens_k = {45, 80};
  pc.page_size = 16;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn fp8 pages (e4m3, e5m2) with descales") {
  for (DType t : {DType::e4m3, DType::e5m2}) {
    PagedCase pc;
    pc.attn.dtype = t;
    pc.attn.batch = 2;
    pc.attn.sq = 17;
    pc.attn.q_descale = 0.5f;
    pc.attn.k_descale = 0.25f;
    pc.attn.v_descale = 2.0f;
    pc.seqlens_k = {97, 30};
    pc.page_size = 16;
    run_paged_case(pc, paged);
  }
}

TEST_CASE("paged_attn bf16: split-KV with the combine kernel, against the oracle") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 3;
  pc.attn.num_splits = 3;
  pc.attn.lse = true;
  pc.seqlens_k = {300, 2};
  pc.page_size = 64;
  run_paged_case(pc, paged);
}

namespace {
// int8 pages: codes over [-128, 127] with descales that keep the scores at a few units (as in
// test_attention_int8.cpp); P's quantization blocks start at each sequence's key 0.
PagedCase int8_paged_case() {
  PagedCase pc;
  pc.attn.dtype = DType::int8;
  pc.attn.q_descale = 0.02f;
  pc.attn.k_descale = 0.025f;
  pc.attn.v_descale = 1.0f / 64;
  return pc;
}
} // namespace

TEST_CASE("paged_attn int8 pages with descales: page 16 and 64, dense and CSR tables, ragged "
          "lengths 0, 1, 97, 130, GQA, lse") {
  for (auto [ps, csr] : {std::pair{16, false}, std::pair{64, true}}) {
    PagedCase pc = int8_paged_case();
    pc.attn.batch = 4;
    pc.attn.sq = 19;
    pc.attn.hq = 4;
    pc.attn.hkv = 2;
    pc.attn.d = pc.attn.dv = 64;
    pc.attn.lse = true;
    pc.seqlens_k = {97, 0, 1, 130};
    pc.page_size = ps;
    pc.csr = csr;
    run_paged_case(pc, paged);
  }
}

TEST_CASE("paged_attn int8 pages: varlen queries, causal, value head 40, f16 output") {
  PagedCase pc = int8_paged_case();
  pc.attn.out = DType::f16;
  pc.attn.sq = 17;
  pc.attn.cu_q = {0, 3, 20, 21};
  pc.attn.hq = 2;
  pc.attn.d = 96;
  pc.attn.dv = 40;
  pc.attn.causal = true;
  pc.seqlens_k = {70, 17, 1};
  pc.page_size = 32;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn int8 pages: split-KV (each split quantizes P against its own running max)") {
  PagedCase pc = int8_paged_case();
  pc.attn.batch = 2;
  pc.attn.sq = 3;
  pc.attn.num_splits = 3;
  pc.attn.lse = true;
  pc.seqlens_k = {300, 2};
  pc.page_size = 64;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn with a bias: additive [Sq, Sk] shared, causal, ragged lengths 0, 1, 45, 97 "
          "(Sk = the longest), page 16") {
  PagedCase pc;
  pc.attn.batch = 4;
  pc.attn.sq = 7;
  pc.attn.hq = 2;
  pc.attn.causal = true;
  pc.attn.bias = kernels::AttnBiasKind::additive;
  pc.attn.lse = true;
  pc.seqlens_k = {45, 0, 1, 97};
  pc.page_size = 16;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn with a bool mask per head [Hq, Sq, Sk] (uint8), GQA, CSR table, page 64, "
          "f16 bias dtype additive per head") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 17;
  pc.attn.hq = 4;
  pc.attn.hkv = 2;
  pc.attn.bias = kernels::AttnBiasKind::bool_mask;
  pc.attn.bias_dtype = DType::uint8;
  pc.attn.bias_per_head = true;
  pc.attn.lse = true;
  pc.seqlens_k = {70, 130};
  pc.page_size = 64;
  pc.csr = true;
  run_paged_case(pc, paged);
  pc.attn.bias = kernels::AttnBiasKind::additive;
  pc.attn.bias_dtype = DType::f16;
  run_paged_case(pc, paged);
}

TEST_CASE("paged_attn bf16: 128-row query tiles (query_tile 128), Sq 129, causal, GQA") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 129;
  pc.attn.hq = 2;
  pc.attn.hkv = 1;
  pc.attn.causal = true;
  pc.attn.lse = true;
  pc.attn.query_tile = 128;
  pc.seqlens_k = {140, 300};
  pc.page_size = 16;
  run_paged_case(pc, paged);
}
