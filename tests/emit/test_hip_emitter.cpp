// HIP emitter: small IR kernels built by hand with OpBuilder, emitted as HIP source, compiled by
// clang-22 for gfx1200 and gfx1201; the code object must contain the expected instructions and
// its kernel metadata must match ir::kernarg_layout.
#include "hip_toolchain.hpp"

#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>
#include <emit/hip/hip_emitter.hpp>
#include <emit/sample_kernels.hpp>

#include <regex>
#include <vector>

using namespace tw::ir;

namespace {

const Type gptr = Type::ptr(AddrSpace::global);

// Emits, compiles for both gfx12 targets and checks that every `expected` mnemonic appears.
void check_compiles_with(const Kernel& k, const std::vector<std::string>& expected) {
  const std::string src = tw::emit::hip::emit_source(k);
  CHECK(src.find("#include") == std::string::npos);
  for (const char* arch : {"gfx1200", "gfx1201"}) {
    CAPTURE(arch);
    const tw::test::HipBuild b = tw::test::compile_hip(src, arch);
    INFO("HIP source:\n" << src << "\nclang:\n" << b.log);
    REQUIRE(b.ok);
    for (const std::string& mnemonic : expected) {
      INFO("expected instruction: " << mnemonic);
      CHECK(b.disasm.find(mnemonic) != std::string::npos);
    }
  }
}

// gid = workgroup_id * workgroup_size + workitem_id (x).
Value global_id(OpBuilder& b) {
  Value wg = b.workgroup_id(Dim::x);
  Value size = b.workgroup_size(Dim::x);
  Value base = b.mul(wg, size);
  Value tid = b.workitem_id(Dim::x);
  return b.add(base, tid);
}

} // namespace

TEST_CASE("hip emitter: vector add with 128-bit loads and a ragged guard") {
  Kernel k;
  k.name = "vadd4";
  k.workgroup_size = {256, 1, 1};
  OpBuilder b(k);
  Value a = b.arg("a", gptr), bb = b.arg("b", gptr), c = b.arg("c", gptr);
  Value n = b.arg("n_vec4 */ (names are free text)", Type::i32());
  Value gid = global_id(b);
  Value in_range = b.cmp(CmpPred::lt, gid, n);
  b.begin_if(in_range);
  Value sixteen = b.i32(16);
  Value off = b.mul(gid, sixteen);
  const Type f32x4 = Type::vec(Type::f32(), 4);
  Value pa = b.ptr_add(a, off);
  Value va = b.load(f32x4, pa);
  Value pb = b.ptr_add(bb, off);
  Value vb = b.load(f32x4, pb);
  Value sum = b.add(va, vb);
  Value pc = b.ptr_add(c, off);
  b.store(pc, sum);
  b.end_if();
  check_compiles_with(k, {"global_load_b128", "global_store_b128", "v_add_f32"});
}

TEST_CASE("hip emitter: for loop with loop-carried values") {
  Kernel k;
  k.name = "strided_sum";
  k.workgroup_size = {64, 1, 1};
  OpBuilder b(k);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr), n = b.arg("n", Type::i32());
  Value tid = b.workitem_id(Dim::x);
  Value zero = b.i32(0), one = b.i32(1), zf = b.f32(0.0);
  // acc += in[tid + 64 * i] * i for i < n; count counts the iterations.
  auto loop = b.begin_for(zero, n, one, {zf, zero});
  Value stride = b.i32(64);
  Value row = b.mul(loop.iv, stride);
  Value idx = b.add(row, tid);
  Value four = b.i32(4);
  Value off = b.mul(idx, four);
  Value p = b.ptr_add(in, off);
  Value x = b.load(Type::f32(), p);
  Value fi = b.cvt(Type::f32(), loop.iv);
  Value acc = b.fma(x, fi, loop.carried[0]);
  Value count = b.add(loop.carried[1], one);
  std::vector<Value> finals = b.end_for({acc, count});
  Value fc = b.cvt(Type::f32(), finals[1]);
  Value mean = b.div(finals[0], fc);
  Value four2 = b.i32(4);
  Value o = b.mul(tid, four2);
  Value po = b.ptr_add(out, o);
  b.store(po, mean);
  check_compiles_with(k, {"s_cbranch", "v_fma_f32", "global_load_b32", "v_div_fixup_f32"});
}

TEST_CASE("hip emitter: if/else with results") {
  Kernel k;
  k.name = "branchy";
  k.workgroup_size = {64, 1, 1};
  OpBuilder b(k);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr);
  Value tid = b.workitem_id(Dim::x);
  Value four = b.i32(4);
  Value off = b.mul(tid, four);
  Value p = b.ptr_add(in, off);
  Value x = b.load(Type::f32(), p);
  Value zero = b.f32(0.0);
  Value positive = b.cmp(CmpPred::gt, x, zero);
  b.begin_if(positive, {Type::f32(), Type::i32()});
  Value s = b.sqrt(x);
  Value t1 = b.i32(1);
  b.begin_else({s, t1});
  Value m = b.neg(x);
  Value e = b.exp2(m);
  Value t2 = b.i32(2);
  std::vector<Value> r = b.end_if({e, t2});
  Value tag = b.cvt(Type::f32(), r[1]);
  Value y = b.add(r[0], tag);
  Value po = b.ptr_add(out, off);
  b.store(po, y);
  check_compiles_with(k, {"v_sqrt_f32", "v_exp_f32", "global_store_b32"});
}

TEST_CASE("hip emitter: LDS exchange across waves with a barrier") {
  Kernel k;
  k.name = "lds_reverse";
  k.workgroup_size = {64, 1, 1}; // two waves: the barrier is real
  k.lds_bytes = 256;
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value tid = b.workitem_id(Dim::x);
  Value four = b.i32(4);
  Value off = b.mul(tid, four);
  Value base = b.lds_ptr(0);
  Value mine = b.ptr_add(base, off);
  b.store(mine, tid);
  b.barrier();
  Value last = b.i32(63);
  Value other = b.sub(last, tid);
  Value ooff = b.mul(other, four);
  Value theirs = b.ptr_add(base, ooff);
  Value v = b.load(Type::i32(), theirs);
  Value po = b.ptr_add(out, off);
  b.store(po, v);
  check_compiles_with(k, {"ds_store_b32", "s_barrier_signal", "s_barrier_wait", "ds_load_b32"});
}

TEST_CASE("hip emitter: an LDS-only barrier fences LDS alone (no global_inv)") {
  const Kernel k = tw::emit::samples::lds_reverse(64, /*lds_only=*/true);
  const std::string src = tw::emit::hip::emit_source(k);
  CHECK(src.find("__builtin_amdgcn_fence(__ATOMIC_RELEASE, \"workgroup\", \"local\");") !=
        std::string::npos);
  check_compiles_with(k, {"ds_store_b32", "s_barrier_signal", "ds_load_b32"});
  for (const char* arch : {"gfx1200", "gfx1201"}) {
    const tw::test::HipBuild lds = tw::test::compile_hip(src, arch);
    const tw::test::HipBuild full =
        tw::test::compile_hip(tw::emit::hip::emit_source(tw::emit::samples::lds_reverse(64)), arch);
    REQUIRE((lds.ok && full.ok));
    CHECK(full.disasm.find("global_inv") != std::string::npos);
    CHECK(lds.disasm.find("global_inv") == std::string::npos);
  }
}

TEST_CASE("hip emitter: one WMMA 16x16x16 f16 tile product") {
  Kernel k;
  k.name = "wmma_tile";
  k.workgroup_size = {32, 1, 1};
  OpBuilder b(k);
  Value a = b.arg("a", gptr), bm = b.arg("b", gptr), d = b.arg("d", gptr);
  Value lane = b.lane_id();
  Value sixteen = b.i32(16);
  Value off = b.mul(lane, sixteen);
  const Type f16x8 = Type::vec(Type::f16(), 8);
  Value pa = b.ptr_add(a, off);
  Value va = b.load(f16x8, pa);
  Value pb = b.ptr_add(bm, off);
  Value vb = b.load(f16x8, pb);
  Value zero = b.f32(0.0);
  Value c = b.splat(zero, 8);
  Value acc = b.wmma("v_wmma_f32_16x16x16_f16", va, vb, c);
  Value lo = b.slice(acc, 0, 4), hi = b.slice(acc, 4, 4);
  Value thirtytwo = b.i32(32);
  Value doff = b.mul(lane, thirtytwo);
  Value pd = b.ptr_add(d, doff);
  b.store(pd, lo);
  Value pd2 = b.ptr_add(pd, sixteen);
  b.store(pd2, hi);
  check_compiles_with(k, {"v_wmma_f32_16x16x16_f16", "global_load_b128", "global_store_b128"});
}

TEST_CASE("hip emitter: buffer loads and stores through a resource with num_records") {
  Kernel k;
  k.name = "buffer_copy";
  k.workgroup_size = {64, 1, 1};
  OpBuilder b(k);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr), bytes = b.arg("bytes", Type::i32());
  Value rin = b.buffer_rsrc(in, bytes);
  Value rout = b.buffer_rsrc(out, bytes);
  Value gid = global_id(b);
  Value sixteen = b.i32(16);
  Value off = b.mul(gid, sixteen);
  Value v = b.buffer_load(Type::vec(Type::f32(), 4), rin, off);
  b.buffer_store(rout, off, v);
  Value four = b.i32(4);
  Value off4 = b.mul(gid, four);
  Value w = b.buffer_load(Type::i32(), rin, off4);
  b.buffer_store(rout, off4, w);
  check_compiles_with(
      k, {"buffer_load_b128", "buffer_store_b128", "buffer_load_b32", "buffer_store_b32"});
}

TEST_CASE("hip emitter: math, conversions, lane ops and the other matrix forms") {
  Kernel k;
  k.name = "op_zoo";
  k.workgroup_size = {64, 1, 1};
  OpBuilder b(k);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr), seed = b.arg("seed", Type::i32());
  Value lane = b.lane_id();
  Value tid = b.workitem_id(Dim::x);
  Value four = b.i32(4);
  Value off = b.mul(tid, four);
  Value p = b.ptr_add(in, off);
  Value x = b.load(Type::f32(), p);
  // Math.
  Value m1 = b.exp2(x), m2 = b.log2(x), m3 = b.rcp(x), m4 = b.rsqrt(x), m5 = b.tanh(x);
  Value s1 = b.add(m1, m2), s2 = b.add(m3, m4);
  Value s3 = b.add(s1, s2);
  Value acc = b.add(s3, m5);
  // Conversions: fp8 RNE with saturation, stochastic, back to f32; f16 rtz; bf16 rne.
  Value q = b.cvt(Type::e4m3(), acc, Rounding::rne, true);
  Value qs = b.cvt_stochastic(Type::e5m2(), acc, seed);
  Value dq = b.cvt(Type::f32(), q), dqs = b.cvt(Type::f32(), qs);
  Value h = b.cvt(Type::f16(), acc, Rounding::rtz);
  Value bf = b.cvt(Type::bf16(), acc);
  Value hf = b.cvt(Type::f32(), h), bff = b.cvt(Type::f32(), bf);
  Value c1 = b.add(dq, dqs), c2 = b.add(hf, bff);
  Value conv = b.add(c1, c2);
  // Lane ops: a DPP row_shr reduction step, row_share broadcast, permlanes, bpermute.
  Value bits = b.bitcast(Type::i32(), conv);
  Value zero = b.i32(0);
  Value sh = b.dpp(zero, bits, DppCtrl::row_shr(1));
  Value bc = b.dpp(zero, bits, DppCtrl::row_share(15), 0xF, 0xF, false);
  Value sel_lo = b.i32(0x76543210), sel_hi = b.i32(static_cast<std::int32_t>(0xFEDCBA98u));
  Value pl = b.permlane16(sh, sel_lo, sel_hi);
  Value px = b.permlanex16(bc, sel_lo, sel_hi);
  Value next = b.add(lane, b.i32(1));
  Value addr = b.mul(next, four);
  Value bp = b.bpermute(addr, pl);
  Value first = b.readfirstlane(px);
  Value l1 = b.xor_(bp, first);
  Value lanes = b.add(l1, b.wave_id());
  // iu8 WMMA and SWMMAC f16.
  const Type i8x8 = Type::vec(Type::i8(), 8);
  Value ai = b.bitcast(i8x8, b.splat(lanes, 2));
  Value ci = b.splat(zero, 8);
  MmaMods signed_ab;
  signed_ab.a_signed = signed_ab.b_signed = true;
  Value di = b.wmma("v_wmma_i32_16x16x16_iu8", ai, ai, ci, signed_ab);
  Value hv = b.splat(h, 8);
  Value hb = b.splat(h, 16);
  Value cf = b.splat(conv, 8);
  MmaMods key1;
  key1.index_key = 1;
  Value ds = b.swmmac("v_swmmac_f32_16x16x32_f16", hv, hb, cf, lanes, key1);
  Value di0 = b.extract(di, 3);
  Value ds0 = b.extract(ds, 5);
  Value dif = b.cvt(Type::f32(), di0);
  Value total = b.add(dif, ds0);
  Value po = b.ptr_add(out, off);
  b.store(po, total);
  check_compiles_with(k, {"v_exp_f32", "v_log_f32", "v_rcp_f32", "v_rsq_f32", "v_cvt_pk_fp8_f32",
                          "v_cvt_sr_bf8_f32", "v_cvt_f32_fp8", "v_cvt_pk_rtz_f16_f32", "row_shr:1",
                          "row_share:15", "v_permlane16_b32", "v_permlanex16_b32",
                          "ds_bpermute_b32", "v_readfirstlane_b32", "v_wmma_i32_16x16x16_iu8",
                          "v_swmmac_f32_16x16x32_f16", "v_mbcnt_lo_u32_b32"});
}

TEST_CASE("hip emitter: kernel metadata matches ir::kernarg_layout") {
  Kernel k;
  k.name = "arg_layout";
  k.workgroup_size = {128, 1, 1};
  OpBuilder b(k);
  Value flag = b.arg("flag", Type::i8());
  Value out = b.arg("out", gptr);
  Value h = b.arg("scale_h", Type::f16());
  Value n = b.arg("n", Type::i32());
  Value big = b.arg("big", Type::i64());
  Value bf = b.arg("scale_bf", Type::bf16());
  Value table = b.arg("table", Type::ptr(AddrSpace::constant));
  Value f = b.arg("f", Type::f32());
  // Use every argument so none is optimised away from the computation.
  Value t0 = b.load(Type::f32(), table);
  Value hf = b.cvt(Type::f32(), h), bff = b.cvt(Type::f32(), bf);
  Value nf = b.cvt(Type::f32(), n), bigf = b.cvt(Type::f32(), big);
  Value flag32 = b.zext(Type::i32(), flag);
  Value flagf = b.cvt(Type::f32(), flag32);
  Value s1 = b.add(t0, hf), s2 = b.add(bff, nf), s3 = b.add(bigf, flagf);
  Value s4 = b.add(s1, s2), s5 = b.add(s3, f);
  Value s = b.add(s4, s5);
  b.store(out, s);

  const KernargLayout layout = kernarg_layout(k);
  // The layout rule (natural alignment, in order) by hand: i8@0, ptr@8, f16@16, i32@20,
  // i64@24, bf16@32, ptr@40, f32@48; size 52.
  const std::vector<std::pair<unsigned, unsigned>> want = {{0, 1},  {8, 8},  {16, 2}, {20, 4},
                                                           {24, 8}, {32, 2}, {40, 8}, {48, 4}};
  REQUIRE(layout.slots.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(layout.slots[i].offset == want[i].first);
    CHECK(layout.slots[i].size == want[i].second);
  }
  CHECK(layout.size == 52);

  const std::string src = tw::emit::hip::emit_source(k);
  const tw::test::HipBuild build = tw::test::compile_hip(src, "gfx1201");
  INFO(src << "\n" << build.log);
  REQUIRE(build.ok);
  // The metadata lists each argument's .offset and .size in argument order.
  std::vector<std::pair<unsigned, unsigned>> seen;
  const std::regex offset_re(R"(\.offset:\s+(\d+))"), size_re(R"(\.size:\s+(\d+))");
  std::smatch m;
  std::string rest = build.notes;
  while (std::regex_search(rest, m, offset_re)) {
    const unsigned off = static_cast<unsigned>(std::stoul(m[1]));
    rest = m.suffix();
    std::smatch s;
    REQUIRE(std::regex_search(rest, s, size_re));
    seen.emplace_back(off, static_cast<unsigned>(std::stoul(s[1])));
  }
  INFO(build.notes);
  CHECK(seen == want);
  CHECK(build.notes.find(".kernarg_segment_size: 52") != std::string::npos);
  CHECK(build.notes.find(".max_flat_workgroup_size: 128") != std::string::npos);
}
