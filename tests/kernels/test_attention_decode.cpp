// decode_attn (kernels/attention/paged_attn_api.hpp): 1 to 16 query rows per sequence over a
// paged cache, against the float64 paged oracle (both emitters, memcheck emulator), and the
// decode window case against the prefill kernel's bottom-right mask on the same data.
#include "paged_attention_harness.hpp"

using namespace tw;
using namespace tw::oracle;
using namespace tw::oracle::attention_test;

namespace {
void decode(runtime::Device& d, const kernels::PagedAttnArgs& a) {
  kernels::decode_attn(d, a);
}
} // namespace

TEST_CASE("decode_attn bf16: Sq 1, GQA 4:1, ragged lengths 0, 1, 37, 200, page 16, lse") {
  PagedCase pc;
  pc.attn.batch = 4;
  pc.attn.sq = 1;
  pc.attn.hq = 8;
  pc.attn.hkv = 2;
  pc.attn.lse = true;
  pc.seqlens_k = {0, 1, 37, 200};
  pc.page_size = 16;
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn f16: Sq 16 (speculative rows), causal, CSR table, page 64") {
  PagedCase pc;
  pc.attn.dtype = pc.attn.out = DType::f16;
  pc.attn.batch = 2;
  pc.attn.sq = 16;
  pc.attn.hq = 2;
  pc.attn.causal = true;
  pc.seqlens_k = {16, 150};
  pc.page_size = 64;
  pc.csr = true;
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn bf16: varlen query rows 1..4, scalar ALiBi, split-KV over a long context") {
  PagedCase pc;
  pc.attn.sq = 4;
  pc.attn.cu_q = {0, 1, 5, 7};
  pc.attn.hq = 2;
  pc.attn.alibi = kernels::FlashAttnProblem::Alibi::scalar;
  pc.attn.num_splits = 4;
  pc.attn.lse = true;
  pc.seqlens_k = {700, 3, 64};
  pc.page_size = 32;
  run_paged_case(pc, decode);
}

TEST_CASE(
    "decode_attn bf16: pages of 256, Sq 1, GQA 4:1, ragged lengths 0, 1, 255, 513, split-KV") {
  PagedCase pc;
  pc.attn.batch = 4;
  pc.attn.sq = 1;
  pc.attn.hq = 8;
  pc.attn.hkv = 2;
  pc.attn.num_splits = 2;
  pc.attn.lse = true;
  pc.seqlens_k = {0, 1, 255, 513};
  pc.page_size = 256;
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn validation: more than 16 query rows is paged_attn's job") {
  PagedCase pc;
  pc.attn.sq = 17;
  pc.seqlens_k = {20};
  const PagedInputs in = make_paged_inputs(pc);
  runtime::EmuDevice& dev = emu_device();
  DeviceTensors dt(dev);
  HostTensor out(pc.attn.out, {1, 17, 1, 64}), lse;
  const kernels::PagedAttnArgs a =
      paged_args_of(pc, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
  std::string message;
  try {
    kernels::decode_attn(dev, a);
  } catch (const kernels::ArgumentError& e) {
    message = e.what();
  }
  CHECK(message == "decode_attn: argument 'q' has Sq = 17 query rows per sequence; expected 1 to "
                   "16 for decode (paged_attn takes longer ones)");
}

TEST_CASE("decode_attn window (left 4, right 0) equals the prefill kernel's bottom-right mask on "
          "the same data") {
  // Dense K / V [B, Sk, Hkv, D] for flash_attn; the same codes scattered into shuffled pages for
  // decode_attn. A decode query sees keys Sk - 5 .. Sk - 1.
  Case c;
  c.batch = 2;
  c.sq = 1;
  c.sk = 70;
  c.hq = 2;
  c.left = 4;
  c.right = 0;
  c.lse = true;
  c.seed = 9;
  const Inputs dense = make_inputs(c);
  const int64_t ps = 16, per_seq = (c.sk + ps - 1) / ps, pages = c.batch * per_seq + 2;
  HostTensor kp(c.dtype, {pages, ps, c.hkv, c.d}), vp(c.dtype, {pages, ps, c.hkv, c.dv});
  HostTensor table(DType::i32, {c.batch, per_seq}), lens(DType::i32, {c.batch});
  for (int64_t b = 0; b < c.batch; ++b) {
    lens.set({b}, double(c.sk));
    for (int64_t s = 0; s < per_seq; ++s) // reversed, interleaved: page (pages-1) - (s*B + b)
      table.set({b, s}, double(pages - 1 - (s * c.batch + b)));
    for (int64_t j = 0; j < c.sk; ++j) {
      const int64_t page = int64_t(table.at({b, j / ps})), slot = j % ps;
      for (int64_t h = 0; h < c.hkv; ++h)
        for (int64_t e = 0; e < c.d; ++e) {
          kp.set_code({page, slot, h, e}, dense.k.code({b, j, h, e}));
          vp.set_code({page, slot, h, e}, dense.v.code({b, j, h, e}));
        }
    }
  }
  const Extents out_shape{c.batch, 1, c.hq, c.dv}, lse_shape{c.batch, c.hq, 1};
  runtime::EmuDevice& dev = emu_device();
  for_each_backend([&](emit::Backend) {
    DeviceTensors dt(dev);
    const auto up = [&](const HostTensor& t) { return dt.upload(t); };
    HostTensor prefill_out(c.out, out_shape), prefill_lse(DType::f32, lse_shape);
    const kernels::FlashAttnArgs pre = args_of(c, dense, prefill_out, prefill_lse, up);
    kernels::flash_attn(dev, pre);
    HostTensor decode_out(c.out, out_shape), decode_lse(DType::f32, lse_shape);
    kernels::PagedAttnArgs a;
    a.attn = args_of(c, dense, decode_out, decode_lse, up);
    a.attn.k = up(kp);
    a.attn.v = up(vp);
    a.paged.block_table = up(table);
    a.paged.seqlens_k = up(lens);
    kernels::decode_attn(dev, a);
    const auto got_prefill = download_flat(dev, pre.out, prefill_out);
    const auto got_prefill_lse = download_flat(dev, *pre.lse, prefill_lse);
    const auto got_decode = download_flat(dev, a.attn.out, decode_out);
    const auto got_decode_lse = download_flat(dev, *a.attn.lse, decode_lse);
    REQUIRE(got_decode.size() == got_prefill.size());
    int bad = 0;
    for (size_t n = 0; n < got_decode.size(); ++n)
      if (std::abs(got_decode[n] - got_prefill[n]) > ulp(c.out, got_prefill[n]) && bad++ < 3)
        MESSAGE("out[" << n << "]: decode " << got_decode[n] << ", prefill " << got_prefill[n]);
    CHECK(bad == 0);
    for (size_t n = 0; n < got_decode_lse.size(); ++n)
      CHECK(std::abs(got_decode_lse[n] - got_prefill_lse[n]) <=
            1e-5 * (1 + std::abs(got_prefill_lse[n])));
  });
  // and the decode run against the oracle, on paged inputs built by the harness
  PagedCase pc;
  pc.attn = c;
  pc.seqlens_k = {70, 70};
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn int8 pages: Sq 1, GQA 4:1, window (left 4, right 0), lengths 0, 1, 77") {
  PagedCase pc;
  pc.attn.dtype = DType::int8;
  pc.attn.q_descale = 0.02f;
  pc.attn.k_descale = 0.025f;
  pc.attn.v_descale = 1.0f / 64;
  pc.attn.batch = 3;
  pc.attn.sq = 1;
  pc.attn.hq = 4;
  pc.attn.hkv = 1;
  pc.attn.lse = true;
  pc.seqlens_k = {0, 1, 77};
  pc.page_size = 16;
  run_paged_case(pc, decode);
  pc.attn.left = 4;
  pc.attn.right = 0;
  run_paged_case(pc, decode);
}

// GQA packing (kernels/attention/blocks/gqa_packing.hpp): decode_attn packs the Sq query rows of
// the G = Hq / Hkv query heads of one kv head into the rows of one query tile.

TEST_CASE("decode_attn GQA packing: G * Sq = 80 rows over two tiles (G 16, Sq 5), causal, lse") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 5;
  pc.attn.hq = 16;
  pc.attn.hkv = 1;
  pc.attn.d = pc.attn.dv = 32;
  pc.attn.causal = true;
  pc.attn.lse = true;
  pc.seqlens_k = {3, 90};
  pc.page_size = 16;
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn GQA packing: varlen query rows (ragged 1, 4, 3) with a window, per-head "
          "ALiBi, head dims 40 / 24") {
  PagedCase pc;
  pc.attn.sq = 4;
  pc.attn.cu_q = {0, 1, 5, 8};
  pc.attn.hq = 6;
  pc.attn.hkv = 2;
  pc.attn.d = 40;
  pc.attn.dv = 24;
  pc.attn.left = 9;
  pc.attn.right = 0;
  pc.attn.alibi = kernels::FlashAttnProblem::Alibi::per_head;
  pc.attn.lse = true;
  pc.seqlens_k = {33, 1, 70};
  pc.page_size = 32;
  pc.csr = true;
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn GQA packing: split-KV partials of packed rows, softcap, e4m3 pages") {
  PagedCase pc;
  pc.attn.dtype = DType::e4m3;
  pc.attn.batch = 2;
  pc.attn.sq = 2;
  pc.attn.hq = 8;
  pc.attn.hkv = 2;
  pc.attn.softcap = 5.0f;
  pc.attn.q_descale = 0.5f;
  pc.attn.k_descale = 0.25f;
  pc.attn.num_splits = 3;
  pc.attn.lse = true;
  pc.seqlens_k = {400, 0};
  pc.page_size = 64;
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn GQA packing: dropout indexes each packed row by its own head and query") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 3;
  pc.attn.hq = 4;
  pc.attn.hkv = 2;
  pc.attn.dropout_p = 0.25f;
  pc.attn.dropout_seed = 11;
  pc.attn.dropout_offset = 5;
  pc.seqlens_k = {50, 20};
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn GQA packing: one workgroup per kv head and query tile, the pages read G "
          "times less than one workgroup per query head") {
  // B 4, Sq 1, Hq 8, Hkv 2: packed, ceil(4 * 1 / 64) x 2 x 4 = 8 workgroups; paged_attn (one
  // query head per workgroup) launches 8 x 4 = 32, each reading its kv head's pages.
  PagedCase pc;
  pc.attn.batch = 4;
  pc.attn.sq = 1;
  pc.attn.hq = 8;
  pc.attn.hkv = 2;
  pc.attn.num_splits = 1;
  pc.seqlens_k = {256, 256, 256, 256};
  pc.page_size = 64;
  pc.spare_pages = 0;
  const PagedInputs in = make_paged_inputs(pc);
  runtime::EmuDevice& dev = emu_device();
  DeviceTensors dt(dev);
  HostTensor out(pc.attn.out, {4, 1, 8, 64}), lse;
  const kernels::PagedAttnArgs a =
      paged_args_of(pc, in, out, lse, [&](const HostTensor& t) { return dt.upload(t); });
  kernels::decode_attn(dev, a);
  const emu::LaunchStats decoded = dev.last_stats();
  kernels::paged_attn(dev, a);
  const emu::LaunchStats prefill = dev.last_stats();
  CHECK(decoded.workgroups == 8);
  CHECK(prefill.workgroups == 32);
  // K and V: 4 sequences x 256 keys x 2 kv heads x (64 + 64) dims x 2 bytes
  const uint64_t kv_bytes = 4ull * 256 * 2 * 128 * 2;
  MESSAGE("global bytes read: decode " << decoded.global_bytes_read << ", paged prefill "
                                       << prefill.global_bytes_read << ", K + V once " << kv_bytes);
  CHECK(decoded.global_bytes_read >= kv_bytes);
  // G = 4 times less (within 2.5%: q and the tables); the composition itself reads K once per
  // workgroup (through LDS) but V once per wave (docs/kernels.md "Paged attention").
  CHECK(double(decoded.global_bytes_read) * 3.9 < double(prefill.global_bytes_read));
  CHECK(decoded.global_bytes_read < 3 * kv_bytes);
}

TEST_CASE("decode_attn GQA packing with a per-head additive bias (each packed row reads its own "
          "head's rows) and a shared bool mask, split-KV") {
  PagedCase pc;
  pc.attn.batch = 3;
  pc.attn.sq = 3;
  pc.attn.hq = 6;
  pc.attn.hkv = 2;
  pc.attn.bias = kernels::AttnBiasKind::additive;
  pc.attn.bias_per_head = true;
  pc.attn.lse = true;
  pc.seqlens_k = {20, 1, 77};
  run_paged_case(pc, decode);
  pc.attn.bias = kernels::AttnBiasKind::bool_mask;
  pc.attn.bias_dtype = DType::int8;
  pc.attn.bias_per_head = false;
  pc.attn.num_splits = 2;
  pc.seqlens_k = {300, 1, 77};
  run_paged_case(pc, decode);
}

TEST_CASE("decode_attn GQA packing with 128-row query tiles: G * Sq = 144 rows over two tiles") {
  PagedCase pc;
  pc.attn.batch = 2;
  pc.attn.sq = 9;
  pc.attn.hq = 16;
  pc.attn.hkv = 1;
  pc.attn.causal = true;
  pc.attn.lse = true;
  pc.attn.query_tile = 128;
  pc.seqlens_k = {3, 150};
  pc.page_size = 16;
  run_paged_case(pc, decode);
}
