// The canonical printer: exact text of small kernels built with OpBuilder.
#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>

using namespace tw::ir;

TEST_CASE("ir print: vector add kernel has the documented canonical text") {
  Kernel k;
  k.name = "vadd";
  k.workgroup_size = {256, 1, 1};
  OpBuilder b(k);
  Value a = b.arg("a", Type::ptr(AddrSpace::global));
  Value c = b.arg("c", Type::ptr(AddrSpace::global));
  Value n = b.arg("n", Type::i32());
  Value tid = b.workitem_id(Dim::x);
  Value in_range = b.cmp(CmpPred::lt, tid, n);
  b.begin_if(in_range);
  Value off = b.mul(tid, b.i32(4));
  // One builder call per statement: C++ leaves the order of argument evaluation open.
  Value pa = b.ptr_add(a, off);
  Value x = b.load(Type::f32(), pa);
  Value pc = b.ptr_add(c, off);
  Value one_and_half = b.f32(1.5);
  Value sum = b.add(x, one_and_half);
  b.store(pc, sum);
  b.end_if();
  verify(k);
  const std::string want = "kernel @vadd(%0: ptr<global> a, %1: ptr<global> c, %2: i32 n) "
                           "workgroup(256, 1, 1) lds(0) {\n"
                           "  %3 = workitem_id x : i32\n"
                           "  %4 = cmp lt %3, %2 (i32, i32) : i1\n"
                           "  if %4 {\n"
                           "    %5 = const_int 4 : i32\n"
                           "    %6 = mul %3, %5 : i32\n"
                           "    %7 = ptr_add %0, %6 (ptr<global>, i32) : ptr<global>\n"
                           "    %8 = load %7 (ptr<global>) : f32\n"
                           "    %9 = ptr_add %1, %6 (ptr<global>, i32) : ptr<global>\n"
                           "    %10 = const_float 1.5 : f32\n"
                           "    %11 = add %8, %10 : f32\n"
                           "    store %9, %11 (ptr<global>, f32)\n"
                           "    yield\n"
                           "  } else {\n"
                           "    yield\n"
                           "  }\n"
                           "}\n";
  CHECK(print(k) == want);
}

namespace {
// sum = 0; for i in [0, n) step 1: sum = sum + (i < 4 ? x : -x)  (scoped builder form)
Kernel loop_kernel_scoped() {
  Kernel k;
  k.name = "loop";
  k.workgroup_size = {32, 2, 1};
  k.lds_bytes = 128;
  OpBuilder b(k);
  Value x = b.arg("x", Type::f32());
  Value n = b.arg("n", Type::i32());
  Value zero = b.i32(0), one = b.i32(1);
  Value fz = b.f32(0);
  auto loop = b.begin_for(zero, n, one, {fz});
  Value four = b.i32(4);
  Value small = b.cmp(CmpPred::lt, loop.iv, four);
  b.begin_if(small, {Type::f32()});
  b.begin_else({x});
  Value nx = b.neg(x);
  std::vector<Value> r = b.end_if({nx});
  Value next = b.add(loop.carried[0], r[0]);
  std::vector<Value> sum = b.end_for({next});
  Value l = b.lds_ptr(16);
  b.store(l, sum[0], 4);
  return k;
}

// The same kernel with the callback forms.
Kernel loop_kernel_callbacks() {
  Kernel k;
  k.name = "loop";
  k.workgroup_size = {32, 2, 1};
  k.lds_bytes = 128;
  OpBuilder b(k);
  Value x = b.arg("x", Type::f32());
  Value n = b.arg("n", Type::i32());
  Value zero = b.i32(0), one = b.i32(1);
  Value fz = b.f32(0);
  std::vector<Value> sum =
      b.for_(zero, n, one, {fz}, [&](Value iv, std::span<const Value> carried) {
        Value four = b.i32(4);
        Value small = b.cmp(CmpPred::lt, iv, four);
        std::vector<Value> r = b.if_(
            small, {Type::f32()}, [&] { return std::vector<Value>{x}; },
            [&] { return std::vector<Value>{b.neg(x)}; });
        return std::vector<Value>{b.add(carried[0], r[0])};
      });
  Value l = b.lds_ptr(16);
  b.store(l, sum[0], 4);
  return k;
}
} // namespace

TEST_CASE("ir print: for with a carried value and an if with a result") {
  const Kernel k = loop_kernel_scoped();
  verify(k);
  const std::string want = "kernel @loop(%0: f32 x, %1: i32 n) workgroup(32, 2, 1) lds(128) {\n"
                           "  %2 = const_int 0 : i32\n"
                           "  %3 = const_int 1 : i32\n"
                           "  %4 = const_float 0 : f32\n"
                           "  %12 = for %2 to %1 step %3 iter(%4) : f32 {\n"
                           "  ^(%5: i32, %6: f32):\n"
                           "    %7 = const_int 4 : i32\n"
                           "    %8 = cmp lt %5, %7 (i32, i32) : i1\n"
                           "    %10 = if %8 : f32 {\n"
                           "      yield %0\n"
                           "    } else {\n"
                           "      %9 = neg %0 : f32\n"
                           "      yield %9\n"
                           "    }\n"
                           "    %11 = add %6, %10 : f32\n"
                           "    yield %11\n"
                           "  }\n"
                           "  %13 = lds_ptr +16 : ptr<lds>\n"
                           "  store align(4) %13, %12 (ptr<lds>, f32)\n"
                           "}\n";
  CHECK(print(k) == want);
}

TEST_CASE("ir print: callback and scoped builder forms give the same kernel text") {
  CHECK(print(loop_kernel_callbacks()) == print(loop_kernel_scoped()));
}

TEST_CASE("ir print: attributes of every attributed op are spelled out") {
  Kernel k;
  k.name = "attrs";
  OpBuilder b(k);
  Value f = b.arg("f", Type::f32());
  Value i = b.arg("i", Type::i32());
  Value q = b.cvt(Type::e4m3(), f, Rounding::rne, true);
  (void)q;
  Value u = b.cvt_unsigned(Type::f32(), i);
  (void)u;
  Value d = b.dpp(i, i, DppCtrl::quad_perm(1, 0, 3, 2), 0xF, 0x3, false);
  (void)d;
  Value v = b.splat(f, 4);
  Value e = b.extract(v, 2);
  (void)e;
  Value wy = b.workgroup_id(Dim::y);
  (void)wy;
  Value h = b.splat(b.cvt(Type::f16(), f), 8);
  Value c = b.splat(f, 8);
  MmaMods m;
  m.neg_lo = m.neg_hi = 3;
  m.neg_lo |= 4;
  Value w = b.wmma("v_wmma_f32_16x16x16_f16", h, h, c, m);
  (void)w;
  Value big = b.const_float(Type::f32(), 0.1);
  (void)big;
  b.sched_barrier(sched_kind::salu | sched_kind::valu);
  b.wait_lds(3);
  b.wait_global(0);
  const std::string text = print(k);
  CHECK(text.find("%2 = cvt rne saturate %0 (f32) : e4m3\n") != std::string::npos);
  CHECK(text.find("%3 = cvt rne unsigned %1 (i32) : f32\n") != std::string::npos);
  CHECK(text.find("%4 = dpp quad_perm[1,0,3,2] row_mask(15) bank_mask(3) %1, %1 : i32\n") !=
        std::string::npos);
  CHECK(text.find("%6 = extract [2] %5 : f32\n") != std::string::npos);
  CHECK(text.find("%7 = workgroup_id y : i32\n") != std::string::npos);
  CHECK(text.find("= wmma v_wmma_f32_16x16x16_f16 neg_lo(7) neg_hi(3) %9, %9, %10 : <8 x f32>\n") !=
        std::string::npos);
  CHECK(text.find("= const_float 0.10000000000000001 : f32\n") != std::string::npos);
  CHECK(text.find("  sched_barrier mask(6)\n") != std::string::npos);
  CHECK(text.find("  wait_lds 3\n") != std::string::npos);
  CHECK(text.find("  wait_global 0\n") != std::string::npos);
}

TEST_CASE("ir print: op numbers in the text are the verifier's op numbers") {
  Kernel k = loop_kernel_scoped();
  const std::string text = print(k, PrintOptions{true});
  CHECK(text.find("  %12 = for %2 to %1 step %3 iter(%4) : f32 {  // #3\n") != std::string::npos);
  CHECK(text.find("    %10 = if %8 : f32 {  // #6\n") != std::string::npos);
  CHECK(text.find("      yield %0  // #7\n") != std::string::npos);
  CHECK(text.find("    %11 = add %6, %10 : f32  // #10\n") != std::string::npos);
  CHECK(text.find("  store align(4) %13, %12 (ptr<lds>, f32)  // #13\n") != std::string::npos);
  CHECK(print(k, PrintOptions{}) == print(k));
  // Break op #10 (add f32 + i32): the verifier names the same number.
  Op& add = k.body.ops[3].regions[0].ops[3];
  REQUIRE(add.opcode == Opcode::add);
  add.operands[1] = add.operands[0];
  add.operands[0] = k.args[1].value; // n: i32
  try {
    verify(k);
    FAIL("verify accepted an add of i32 and f32");
  } catch (const VerifyError& e) {
    CHECK(std::string(e.what()).rfind("ir.verify: op #10 'add': ", 0) == 0);
  }
}
