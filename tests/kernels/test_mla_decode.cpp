// mla_decode (kernels/attention/mla_decode_api.hpp): MLA decode over a paged latent cache at the
// 576 / 512 widths against the float64 reference (oracles/mla_decode.hpp: gathers the pages
// itself), both emitters, memcheck emulator; one case per cache dtype here (the sweep is
// tests/kernels/slow/test_mla_decode_sweep.cpp, label slow), and the validation sentences.
#include "mla_decode_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

TEST_CASE("mla_decode bf16: Sq 1, 20 query heads (two row tiles), ragged lengths 0, 1, 37, 100, "
          "page 16, lse") {
  MlaCase m;
  m.hq = 20;
  m.seqlens_k = {0, 1, 37, 100};
  run_mla_case(m);
}

TEST_CASE("mla_decode f16: Sq 2, causal, CSR table, page 64, lengths 1 and 70") {
  MlaCase m;
  m.dtype = m.out = DType::f16;
  m.sq = 2;
  m.hq = 8;
  m.causal = true;
  m.csr = true;
  m.page_size = 64;
  m.seqlens_k = {1, 70};
  run_mla_case(m);
}

TEST_CASE("mla_decode e4m3 cache with descales: page 64, lengths 50 and 0") {
  MlaCase m;
  m.dtype = DType::e4m3;
  m.q_descale = 0.5f;
  m.k_descale = 0.25f;
  m.v_descale = 2.0f;
  m.page_size = 64;
  m.seqlens_k = {50, 0};
  run_mla_case(m);
}

TEST_CASE("mla_decode e5m2 cache: Sq 2, 4 query heads, page 16, f16 out") {
  MlaCase m;
  m.dtype = DType::e5m2;
  m.out = DType::f16;
  m.sq = 2;
  m.hq = 4;
  m.q_descale = 0.5f;
  m.k_descale = 0.5f;
  m.seqlens_k = {33};
  run_mla_case(m);
}

// int8 codes over [-128, 127]; the descales keep the scores at a few units (as in the int8
// attention tests: |q . k| of random codes is about sqrt(576) * 74^2).
TEST_CASE("mla_decode int8 cache with descales: lengths 0, 1, 130, page 64") {
  MlaCase m;
  m.dtype = DType::int8;
  m.q_descale = 0.02f;
  m.k_descale = 0.025f;
  m.v_descale = 1.0f / 64;
  m.page_size = 64;
  m.seqlens_k = {0, 1, 130};
  run_mla_case(m);
}

TEST_CASE("mla_decode bf16: q and cache rows 577 elements apart (not 16-byte aligned: "
          "element-wise loads), lengths 3 and 40") {
  MlaCase m;
  m.hq = 4;
  m.sq = 2;
  m.row_pad = 1;
  m.seqlens_k = {3, 40};
  run_mla_case(m);
}

TEST_CASE("mla_decode bf16: pages of 256 (8 KV blocks per page), CSR table, lengths 0, 1, 257") {
  MlaCase m;
  m.hq = 4;
  m.page_size = 256;
  m.csr = true;
  m.seqlens_k = {0, 1, 257};
  run_mla_case(m);
}

TEST_CASE("mla_decode bf16 split-KV: 3 splits, lengths 300 and 5, lse") {
  MlaCase m;
  m.num_splits = 3;
  m.seqlens_k = {300, 5};
  run_mla_case(m);
}

namespace {
// The validation sentence of mla_decode on a case's device arguments after `edit`.
template <class Edit>
std::string mla_error(const MlaCase& m, Edit&& edit) {
  const PagedCase pc = paged_case_of(m);
  const PagedInputs in = make_paged_inputs(pc);
  runtime::EmuDevice& dev = emu_device();
  DeviceTensors dt(dev);
  HostTensor out(m.out, {pc.attn.batch, m.sq, m.hq, kernels::mla_v_dim});
  HostTensor lse(DType::f32, {pc.attn.batch, m.hq, m.sq});
  kernels::MlaDecodeArgs a =
      mla_args_of(m, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
  edit(a, static_cast<runtime::Device&>(dev));
  try {
    kernels::mla_decode(dev, a);
  } catch (const kernels::ArgumentError& e) {
    return e.what();
  }
  return "(no error)";
}
} // namespace

TEST_CASE("mla_decode validation: a page index past the pool is refused before launch") {
  MlaCase m;
  m.seqlens_k = {20, 3};
  // 3 used pages + 3 spare = 6 pages; slot 1 of batch 0 points at page 6
  const std::string e = mla_error(m, [](kernels::MlaDecodeArgs& a, runtime::Device& d) {
    const int32_t bad = 6;
    d.copy_to_device(a.paged.block_table->device_address + 4, &bad, 4);
  });
  CHECK(e == "mla_decode: argument 'block_table' has page 6 for batch 0, slot 1; expected a page "
             "index in [0, num_pages = 6) of 'kv_cache'");
}

TEST_CASE("mla_decode validation: widths, query rows, dtypes") {
  MlaCase m;
  CHECK(mla_error(m,
                  [](kernels::MlaDecodeArgs& a, runtime::Device&) { a.kv_cache.shape[2] = 512; }) ==
        "mla_decode: argument 'kv_cache' has shape [6, 16, 512]; expected [num_pages, "
        "page_size, 576] (K is the whole row, V its first 512 dims)");
  CHECK(mla_error(m, [](kernels::MlaDecodeArgs& a, runtime::Device&) { a.q.shape[3] = 512; }) ==
        "mla_decode: argument 'q' has shape [1, 1, 16, 512]; expected [B, Sq, Hq, 576] (512 "
        "latent + 64 rope dims)");
  CHECK(mla_error(m, [](kernels::MlaDecodeArgs& a, runtime::Device&) { a.out.shape[3] = 576; }) ==
        "mla_decode: argument 'out' has shape [1, 1, 16, 576]; expected [1, 1, 16, 512] ([B, Sq, "
        "Hq, 512] from 'q' and the value width)");
  CHECK(mla_error(m, [](kernels::MlaDecodeArgs& a, runtime::Device&) {
          a.kv_cache.dtype = DType::f16;
        }).find("mla_decode: argument 'kv_cache'") == 0);
  CHECK(mla_error(m, [](kernels::MlaDecodeArgs& a, runtime::Device&) { a.q_descale = 2.0f; }) ==
        "mla_decode: parameter 'q_descale' is 2 with bf16 inputs; expected 1 (descales "
        "apply to fp8 / int8 inputs)");
  MlaCase many = m;
  many.sq = 17;
  CHECK(mla_error(many, [](kernels::MlaDecodeArgs&, runtime::Device&) {}) ==
        "mla_decode: argument 'q' has Sq = 17 query rows per sequence; expected 1 to 16 for "
        "decode");
}

TEST_CASE("mla_decode traffic: one workgroup per 16 packed rows, the cache read about (576 + "
          "512) / 576 times") {
  // B 2, Sq 1, Hq 16: 2 workgroups (one row tile each), 256 keys per sequence on pages of 64.
  MlaCase m;
  m.hq = 16;
  m.seqlens_k = {256, 256};
  m.page_size = 64;
  PagedCase pc = paged_case_of(m);
  pc.spare_pages = 0;
  const PagedInputs in = make_paged_inputs(pc);
  runtime::EmuDevice& dev = emu_device();
  DeviceTensors dt(dev);
  HostTensor out(m.out, {2, 1, 16, kernels::mla_v_dim}), lse(DType::f32, {2, 16, 1});
  const kernels::MlaDecodeArgs a =
      mla_args_of(m, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
  kernels::mla_decode(dev, a);
  const emu::LaunchStats s = dev.last_stats();
  CHECK(s.workgroups == 2);
  // the cache once: 2 sequences x 256 keys x 576 dims x 2 bytes
  const uint64_t cache_bytes = 2ull * 256 * 576 * 2;
  MESSAGE("global bytes read: " << s.global_bytes_read << ", the cache once " << cache_bytes);
  // K's 576 and V's 512 dims of every row, each wave its slices (docs/kernels.md "MLA decode"):
  // 1114112 bytes; q 36864; the rest is the block-table lookups of the gathered rows, one per
  // row of a whole K block (not one per run: 1316224 in all, 2.23 x the cache, when each of the
  // 9 k steps read the table again; seen now: 1185152, 2.01 x).
  CHECK(s.global_bytes_read >= cache_bytes / 576 * (576 + 512));
  CHECK(double(s.global_bytes_read) < 2.05 * double(cache_bytes));
}
