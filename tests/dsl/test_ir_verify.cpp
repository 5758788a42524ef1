// The IR verifier: every class of error produces a message naming the op (or the kernel) and
// the rule. Most cases are caught by the OpBuilder as the op is built (it runs the same
// checks); structural cases are made by editing a built kernel and calling verify().
#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>

#include <functional>
#include <string>

using namespace tw::ir;

namespace {

const Type gptr = Type::ptr(AddrSpace::global);
const Type lptr = Type::ptr(AddrSpace::lds);
const Type cptr = Type::ptr(AddrSpace::constant);
const Type f32x8 = Type::vec(Type::f32(), 8);

// Fresh kernel with a few values every case can use.
struct Fixture {
  Kernel k;
  OpBuilder b{k};
  Value p, n, f, h, big;
  Fixture() {
    k.name = std::string("t");
    k.lds_bytes = 64;
    p = b.arg("p", gptr);
    n = b.arg("n", Type::i32());
    f = b.arg("f", Type::f32());
    h = b.arg("h", Type::f16());
    big = b.arg("big", Type::i64());
  }
};

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const VerifyError& e) {
    return e.what();
  }
  return "<no VerifyError thrown>";
}

// Builds with `bad`, expects a VerifyError whose text starts with `prefix` and contains `reason`.
void expect_build_error(const std::function<void(Fixture&)>& bad, const std::string& prefix,
                        const std::string& reason) {
  Fixture fx;
  const std::string msg = message_of([&] { bad(fx); });
  CAPTURE(msg);
  CHECK(msg.rfind(prefix, 0) == 0);
  CHECK(msg.find(reason) != std::string::npos);
}

} // namespace

TEST_CASE("ir verify: the message format names the op number, the op and the atom") {
  const std::string want = "ir.verify: op #12 'wmma v_wmma_f32_16x16x16_f16': operand A has "
                           "type <4 x i32>, expected <8 x f16>";
  Fixture fx;
  OpBuilder& b = fx.b;
  for (int i = 0; i < 9; ++i) // ops #0..#8
    b.i32(i);
  Value a = b.splat(fx.n, 4);  // #9: <4 x i32>, the wrong A
  Value bb = b.splat(fx.h, 8); // #10: <8 x f16>
  Value c = b.splat(fx.f, 8);  // #11: <8 x f32>
  // The OpBuilder rejects the op as it is built...
  CHECK(message_of([&] { b.wmma("v_wmma_f32_16x16x16_f16", a, bb, c); }) == want);
  // ...and verify() gives the same message for a kernel holding it.
  Op op;
  op.opcode = Opcode::wmma;
  op.attrs.atom = "v_wmma_f32_16x16x16_f16";
  op.operands = {a, bb, c};
  fx.k.value_types.push_back(f32x8);
  op.results = {Value{static_cast<std::uint32_t>(fx.k.value_types.size() - 1)}};
  fx.k.body.ops.push_back(op);
  CHECK(message_of([&] { verify(fx.k); }) == want);
}

TEST_CASE("ir verify: kernel-level errors name the kernel and the rule") {
  auto kernel_error = [](const std::function<void(Kernel&)>& edit) {
    Kernel k;
    k.name = "kern";
    OpBuilder b(k);
    b.arg("p", gptr);
    edit(k);
    return message_of([&] { verify(k); });
  };
  CHECK(kernel_error([](Kernel& k) { k.name = "bad name"; }) ==
        "ir.verify: kernel 'bad name': the name must be a C identifier (letters, digits, _)");
  CHECK(kernel_error([](Kernel& k) { k.name = "int"; }) ==
        "ir.verify: kernel 'int': the name is reserved in C++ (a keyword or starting with __)");
  CHECK(kernel_error([](Kernel& k) { k.name = "__k"; }).find("reserved in C++") !=
        std::string::npos);
  CHECK(kernel_error([](Kernel& k) { k.name.clear(); }).find("the kernel has no name") !=
        std::string::npos);
  CHECK(kernel_error([](Kernel& k) {
          k.workgroup_size = {0, 1, 1};
        }).find("workgroup size 0 in dimension 0 must be >= 1") != std::string::npos);
  CHECK(kernel_error([](Kernel& k) {
          k.workgroup_size = {64, 32, 1};
        }).find("workgroup of 2048 threads exceeds the gfx12 limit of 1024") != std::string::npos);
  CHECK(kernel_error([](Kernel& k) {
          k.lds_bytes = 65537;
        }).find("lds_bytes 65537 is outside 0..65536") != std::string::npos);
  CHECK(kernel_error([](Kernel& k) {
          OpBuilder b2(k);
          b2.arg("tile", lptr);
        }).find("argument 'tile' has type ptr<lds>: kernel arguments must be") !=
        std::string::npos);
  CHECK(kernel_error([](Kernel& k) {
          k.args[0].type = Type::i32();
        }).find("argument 'p' is declared i32 but its value has type ptr<global>") !=
        std::string::npos);
}

TEST_CASE("ir verify: malformed types are rejected with the type rule") {
  CHECK(type_error(Type::i(65)) == "integer width 65 is outside 1..64");
  CHECK(type_error(Type::vec(Type::f32(), 65)) == "vector lane count 65 is outside 2..64");
  CHECK(type_error(Type::packed_i4(12)).find("multiple of 8 elements") != std::string::npos);
  CHECK(type_error(Type::vec(Type::i1(), 4)).find("vectors of i1") != std::string::npos);
  CHECK(type_error(Type::vec(Type::i(12), 4)).find("vector elements of i12") != std::string::npos);
  CHECK(type_error(Type::vec(gptr, 2)).find("vectors of ptr<global>") != std::string::npos);
  CHECK(type_error(Type{}).find("invalid") != std::string::npos);
  expect_build_error([](Fixture& x) { x.b.const_int(Type::i(70), 1); },
                     "ir.verify: op #0 'const_int'", "result 0: integer width 70");
}

TEST_CASE("ir verify: arithmetic, comparison and select errors") {
  const std::string at0 = "ir.verify: op #0 ";
  expect_build_error([](Fixture& x) { x.b.add(x.n, x.f); }, at0 + "'add'",
                     "operand 1 has type f32, expected i32 (the type of operand 0)");
  expect_build_error([](Fixture& x) { x.b.add(x.p, x.p); }, at0 + "'add'",
                     "operand 0 has type ptr<global>, expected an integer or float");
  expect_build_error([](Fixture& x) { x.b.div(x.n, x.n); }, at0 + "'div'",
                     "expected a float (f16, bf16, f32");
  expect_build_error([](Fixture& x) { x.b.and_(x.f, x.f); }, at0 + "'and'",
                     "operand 0 has type f32, expected an integer");
  expect_build_error([](Fixture& x) { x.b.log2(x.h); }, at0 + "'log2'",
                     "operand 0 has type f16, expected f32");
  expect_build_error([](Fixture& x) { x.b.fma(x.f, x.f, x.h); }, at0 + "'fma'",
                     "operand 2 has type f16, expected f32");
  expect_build_error([](Fixture& x) { x.b.append(Opcode::add, {x.n}, {Type::i32()}); },
                     at0 + "'add'", "takes 2 operand(s), got 1");
  expect_build_error(
      [](Fixture& x) {
        x.b.append(Opcode::add, {x.n, x.n}, {Type::i64()});
      },
      at0 + "'add'", "result has type i64, expected i32");
  expect_build_error([](Fixture& x) { x.b.cmp(CmpPred::ult, x.f, x.f); }, at0 + "'cmp'",
                     "predicate ult is unsigned and needs integer operands, got f32");
  expect_build_error(
      [](Fixture& x) {
        Value v = x.b.splat(x.f, 4);
        x.b.cmp(CmpPred::lt, v, v);
      },
      "ir.verify: op #1 'cmp'", "expected a scalar integer or float");
  expect_build_error([](Fixture& x) { x.b.select(x.n, x.f, x.f); }, at0 + "'select'",
                     "condition (operand 0) has type i32, expected i1");
  expect_build_error(
      [](Fixture& x) {
        Value c = x.b.boolean(true);
        x.b.select(c, x.f, x.h);
      },
      "ir.verify: op #1 'select'", "operands 1 and 2 differ: f32 vs f16");
  expect_build_error(
      [](Fixture& x) {
        Value c = x.b.boolean(true);
        x.b.add(c, c);
      },
      "ir.verify: op #1 'add'", "i1 is a boolean: it takes and, or, xor, not");
  expect_build_error(
      [](Fixture& x) {
        Value c = x.b.boolean(true);
        x.b.cmp(CmpPred::lt, c, c);
      },
      "ir.verify: op #1 'cmp'", "cmp on i1 takes eq or ne only");
  expect_build_error(
      [](Fixture& x) {
        Value w = x.b.load(Type::packed_i4(8), x.p);
        x.b.extract(w, 0);
      },
      "ir.verify: op #1 'extract'", "packed int4 vectors only take part in bitcast");
}

TEST_CASE("ir verify: integer conversion, bitcast and cvt errors") {
  const std::string at0 = "ir.verify: op #0 ";
  expect_build_error([](Fixture& x) { x.b.trunc(Type::i64(), x.n); }, at0 + "'trunc'",
                     "the result must be narrower than the operand");
  expect_build_error([](Fixture& x) { x.b.zext(Type::i16(), x.n); }, at0 + "'zext'",
                     "the result must be wider than the operand");
  expect_build_error([](Fixture& x) { x.b.sext(Type::i64(), x.f); }, at0 + "'sext'",
                     "both must be integers with the same lane count");
  expect_build_error([](Fixture& x) { x.b.bitcast(Type::i64(), x.n); }, at0 + "'bitcast'",
                     "cannot bitcast i32 (32 bits) to i64 (64 bits)");
  expect_build_error([](Fixture& x) { x.b.bitcast(Type::i64(), x.p); }, at0 + "'bitcast'",
                     "pointers and buffer resources are not bit patterns");
  expect_build_error(
      [](Fixture& x) {
        Value v = x.b.const_int(Type::i(24), 0);
        x.b.bitcast(Type::vec(Type::i8(), 3), v);
      },
      "ir.verify: op #1 'bitcast'", "bitcast takes types of 8, 16, 32 or 64-bit elements");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::i64(), x.n); }, at0 + "'cvt'",
                     "int to int is trunc / zext / sext, not cvt");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::f32(), x.f); }, at0 + "'cvt'",
                     "converts a type to itself");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::vec(Type::f16(), 2), x.f); }, at0 + "'cvt'",
                     "operand and result must have the same lane count");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::e4m3(), x.h); }, at0 + "'cvt'",
                     "fp8 results are converted from f32 only");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::e5m2(), x.f, Rounding::rtz); }, at0 + "'cvt'",
                     "rounding rtz is not available for fp8");
  expect_build_error([](Fixture& x) { x.b.cvt_stochastic(Type::e4m3(), x.f, x.f); }, at0 + "'cvt'",
                     "random bits have type f32, expected i32");
  expect_build_error([](Fixture& x) { x.b.cvt_stochastic(Type::f16(), x.f, x.n); }, at0 + "'cvt'",
                     "stochastic rounding is only for e4m3 / e5m2 results");
  expect_build_error(
      [](Fixture& x) {
        Value q = x.b.cvt(Type::e4m3(), x.f);
        x.b.cvt(Type::f16(), q);
      },
      "ir.verify: op #1 'cvt'", "fp8 values convert to f32 only");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::i32(), x.f, Rounding::rtz, true); },
                     at0 + "'cvt'", "saturate applies to float -> f16 / bf16 / fp8");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::i32(), x.f); }, at0 + "'cvt'",
                     "float -> int conversions round toward zero: use rounding rtz (got rne)");
  expect_build_error([](Fixture& x) { x.b.cvt(Type::f32(), x.n, Rounding::rtz); }, at0 + "'cvt'",
                     "int -> float conversions round to nearest even");
  expect_build_error(
      [](Fixture& x) {
        Value b = x.b.boolean(false);
        x.b.cvt(Type::f32(), b);
      },
      "ir.verify: op #1 'cvt'", "cvt converts between ints (8..64 bits)");
}

TEST_CASE("ir verify: vector op errors") {
  const std::string at0 = "ir.verify: op #0 ";
  expect_build_error([](Fixture& x) { x.b.extract(x.f, 0); }, at0 + "'extract'",
                     "operand 0 has type f32, expected a vector");
  expect_build_error(
      [](Fixture& x) {
        Value v = x.b.splat(x.f, 4);
        x.b.extract(v, 4);
      },
      "ir.verify: op #1 'extract'", "index 4 is outside 0..3 of <4 x f32>");
  expect_build_error(
      [](Fixture& x) {
        Value v = x.b.splat(x.f, 4);
        x.b.insert(v, x.h, 1);
      },
      "ir.verify: op #1 'insert'", "inserted value has type f16, expected f32");
  expect_build_error(
      [](Fixture& x) {
        Value v = x.b.splat(x.f, 4);
        x.b.slice(v, 2, 4);
      },
      "ir.verify: op #1 'slice'", "lanes [2, 6) are outside <4 x f32>");
  expect_build_error(
      [](Fixture& x) {
        Value v = x.b.splat(x.f, 4);
        Value w = x.b.splat(x.h, 4);
        Value both[] = {v, w};
        x.b.concat(both);
      },
      "ir.verify: op #2 'concat'", "operand 1 has type <4 x f16>, expected elements of f32");
  expect_build_error(
      [](Fixture& x) {
        Value e[] = {x.f, x.h};
        x.b.build_vector(e);
      },
      at0 + "'build_vector'", "operand 1 has type f16, expected f32");
  expect_build_error([](Fixture& x) { x.b.splat(x.p, 2); }, at0 + "'splat'",
                     "result 0: vectors of ptr<global> are not supported");
}

TEST_CASE("ir verify: memory and address space errors") {
  const std::string at0 = "ir.verify: op #0 ";
  expect_build_error([](Fixture& x) { x.b.ptr_add(x.n, x.n); }, at0 + "'ptr_add'",
                     "operand 0 has type i32, expected a pointer");
  expect_build_error(
      [](Fixture& x) {
        Value l = x.b.lds_ptr(0);
        x.b.ptr_add(l, x.big);
      },
      "ir.verify: op #1 'ptr_add'", "expected i32 (LDS pointers are 32-bit)");
  expect_build_error([](Fixture& x) { x.b.load(Type::f32(), x.n); }, at0 + "'load'",
                     "address has type i32, expected a pointer");
  expect_build_error([](Fixture& x) { x.b.load(Type::vec(Type::i8(), 3), x.p); }, at0 + "'load'",
                     "loaded type <3 x i8> is not a memory value");
  expect_build_error([](Fixture& x) { x.b.load(Type::i1(), x.p); }, at0 + "'load'",
                     "loaded type i1 is not a memory value");
  expect_build_error([](Fixture& x) { x.b.load(Type::f32(), x.p, 3); }, at0 + "'load'",
                     "align 3 must be 0 (natural) or a power of two <= 16");
  expect_build_error(
      [](Fixture& x) {
        Value c = x.b.arg("table", cptr);
        x.b.store(c, x.f);
      },
      at0 + "'store'", "cannot store through ptr<constant>");
  expect_build_error([](Fixture& x) { x.b.lds_ptr(64); }, at0 + "'lds_ptr'",
                     "byte offset 64 is outside the kernel's LDS block of 64 bytes");
  expect_build_error(
      [](Fixture& x) {
        Value l = x.b.lds_ptr(0);
        x.b.buffer_rsrc(l, x.n);
      },
      "ir.verify: op #1 'buffer_rsrc'", "base has type ptr<lds>, expected ptr<global>");
  expect_build_error([](Fixture& x) { x.b.buffer_rsrc(x.p, x.big); }, at0 + "'buffer_rsrc'",
                     "num_records has type i64, expected i32 (bytes)");
  expect_build_error(
      [](Fixture& x) {
        Value r = x.b.buffer_rsrc(x.p, x.n);
        x.b.buffer_load(Type::f32(), r, x.big);
      },
      "ir.verify: op #1 'buffer_load'", "byte offset has type i64, expected i32");
  expect_build_error(
      [](Fixture& x) {
        Value r = x.b.buffer_rsrc(x.p, x.n);
        x.b.buffer_load(Type::vec(Type::f32(), 8), r, x.n);
      },
      "ir.verify: op #1 'buffer_load'", "loaded type <8 x f32> is not a memory value");
  expect_build_error(
      [](Fixture& x) {
        Value r = x.b.buffer_rsrc(x.p, x.n);
        x.b.buffer_load(Type::f32(), r, x.n, x.big);
      },
      "ir.verify: op #1 'buffer_load'", "scalar byte offset has type i64, expected i32");
  expect_build_error([](Fixture& x) { x.b.buffer_store(x.p, x.n, x.f); }, at0 + "'buffer_store'",
                     "operand 0 has type ptr<global>, expected buffer_rsrc");
}

TEST_CASE("ir verify: lane op errors") {
  const std::string at0 = "ir.verify: op #0 ";
  expect_build_error([](Fixture& x) { x.b.bpermute(x.f, x.n); }, at0 + "'bpermute'",
                     "byte address has type f32, expected i32");
  expect_build_error([](Fixture& x) { x.b.bpermute(x.n, x.h); }, at0 + "'bpermute'",
                     "value has type f16, expected i32 or f32");
  expect_build_error([](Fixture& x) { x.b.permlane16(x.big, x.n, x.n); }, at0 + "'permlane16'",
                     "value has type i64, expected i32 or f32");
  expect_build_error([](Fixture& x) { x.b.permlanex16(x.n, x.f, x.n); }, at0 + "'permlanex16'",
                     "lane selects (operands 1, 2) must be i32");
  expect_build_error([](Fixture& x) { x.b.dpp(x.n, x.n, DppCtrl::row_shr(0)); }, at0 + "'dpp'",
                     "row_shr(0): the shift must be 1..15");
  expect_build_error([](Fixture& x) { x.b.dpp(x.n, x.n, DppCtrl::row_shl(16)); }, at0 + "'dpp'",
                     "row_shl(16): the shift must be 1..15");
  expect_build_error([](Fixture& x) { x.b.dpp(x.n, x.n, DppCtrl::row_share(16)); }, at0 + "'dpp'",
                     "row_share(16): the lane / mask must be 0..15");
  expect_build_error([](Fixture& x) { x.b.dpp(x.n, x.n, DppCtrl::row_mirror(), 0x1F); },
                     at0 + "'dpp'", "row_mask / bank_mask must be 4-bit masks");
  expect_build_error([](Fixture& x) { x.b.dpp(x.f, x.n, DppCtrl::row_mirror()); }, at0 + "'dpp'",
                     "old (operand 0) has type f32, expected i32");
  expect_build_error([](Fixture& x) { x.b.readfirstlane(x.h); }, at0 + "'readfirstlane'",
                     "value has type f16, expected i32 or f32");
}

TEST_CASE("ir verify: WMMA / SWMMAC atom operand shapes and modifiers") {
  // A, B, C of v_wmma_f32_16x16x16_f16 are ops #0..#2 in every case.
  auto operands = [](Fixture& x) {
    Value a = x.b.splat(x.h, 8);
    Value bb = x.b.splat(x.h, 8);
    Value c = x.b.splat(x.f, 8);
    return std::array<Value, 3>{a, bb, c};
  };
  const std::string at3 = "ir.verify: op #3 ";
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.wmma("v_wmma_f32_16x16x16_f99", v[0], v[1], v[2]);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f99'", "unknown matrix atom 'v_wmma_f32_16x16x16_f99'");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.wmma("v_swmmac_f32_16x16x32_f16", v[0], v[1], v[2]);
      },
      at3 + "'wmma v_swmmac_f32_16x16x32_f16'", "is a SWMMAC instruction: use the swmmac op");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.wmma("v_wmma_f32_16x16x16_f16", v[2], v[1], v[2]);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f16'", "operand A has type <8 x f32>, expected <8 x f16>");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.wmma("v_wmma_f32_16x16x16_f16", v[0], v[1], v[0]);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f16'", "operand C has type <8 x f16>, expected <8 x f32>");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.wmma("v_wmma_i32_16x16x16_iu8", v[0], v[1], v[2]);
      },
      at3 + "'wmma v_wmma_i32_16x16x16_iu8'", "operand A has type <8 x f16>, expected <8 x i8>");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        MmaMods m;
        m.clamp = true;
        x.b.wmma("v_wmma_f32_16x16x16_f16", v[0], v[1], v[2], m);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f16'", "modifier clamp is only for integer");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        MmaMods m;
        m.a_signed = true;
        x.b.wmma("v_wmma_f32_16x16x16_f16", v[0], v[1], v[2], m);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f16'", "a_signed / b_signed is only for iu8 / iu4");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        MmaMods m;
        m.neg_lo = 1; // neg_hi bit 0 not set
        x.b.wmma("v_wmma_f32_16x16x16_f16", v[0], v[1], v[2], m);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f16'", "neg_lo and neg_hi must agree in bits 0-1");
  expect_build_error(
      [](Fixture& x) {
        Value a = x.b.load(Type::vec(Type::e4m3(), 8), x.p);
        Value c = x.b.splat(x.f, 8);
        MmaMods m;
        m.neg_lo = m.neg_hi = 1;
        x.b.wmma("v_wmma_f32_16x16x16_fp8_fp8", a, a, c, m);
      },
      "ir.verify: op #2 'wmma v_wmma_f32_16x16x16_fp8_fp8'",
      "bits 0-1 (negate A / B) are only for f16 / bf16 atoms");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        MmaMods m;
        m.index_key = 1;
        x.b.wmma("v_wmma_f32_16x16x16_f16", v[0], v[1], v[2], m);
      },
      at3 + "'wmma v_wmma_f32_16x16x16_f16'", "modifier index_key 1 is outside");
  // SWMMAC: B is <16 x f16>, the index an i32, index_key 0..1.
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.swmmac("v_swmmac_f32_16x16x32_f16", v[0], v[1], v[2], x.n);
      },
      at3 + "'swmmac v_swmmac_f32_16x16x32_f16'",
      "operand B has type <8 x f16>, expected <16 x f16>");
  expect_build_error(
      [](Fixture& x) {
        Value a = x.b.splat(x.h, 8);
        Value bb = x.b.splat(x.h, 16);
        Value c = x.b.splat(x.f, 8);
        x.b.swmmac("v_swmmac_f32_16x16x32_f16", a, bb, c, x.f);
      },
      at3 + "'swmmac v_swmmac_f32_16x16x32_f16'", "operand index has type f32, expected i32");
  expect_build_error(
      [](Fixture& x) {
        Value a = x.b.splat(x.h, 8);
        Value bb = x.b.splat(x.h, 16);
        Value c = x.b.splat(x.f, 8);
        MmaMods m;
        m.index_key = 2;
        x.b.swmmac("v_swmmac_f32_16x16x32_f16", a, bb, c, x.n, m);
      },
      at3 + "'swmmac v_swmmac_f32_16x16x32_f16'", "modifier index_key 2 is outside 0..1");
  expect_build_error(
      [&](Fixture& x) {
        auto v = operands(x);
        x.b.swmmac("v_wmma_f32_16x16x16_f16", v[0], v[1], v[2], x.n);
      },
      at3 + "'swmmac v_wmma_f32_16x16x16_f16'", "is a dense WMMA instruction: use the wmma op");
  // A well-formed pair passes.
  Fixture ok;
  auto v = operands(ok);
  ok.b.wmma("v_wmma_f32_16x16x16_f16", v[0], v[1], v[2]);
  CHECK_NOTHROW(verify(ok.k));
}

TEST_CASE("ir verify: control flow structure and SSA visibility") {
  expect_build_error(
      [](Fixture& x) {
        Value lb = x.b.f32(0);
        x.b.begin_for(lb, lb, lb);
        x.b.end_for();
      },
      "ir.verify: op #1 'for'", "lb has type f32, expected i32 or i64");
  expect_build_error(
      [](Fixture& x) {
        Value zero = x.b.i32(0);
        x.b.begin_for(zero, x.big, zero);
        x.b.end_for();
      },
      "ir.verify: op #1 'for'", "lb, ub and step must have one type, got i32, i64, i32");
  expect_build_error(
      [](Fixture& x) {
        Value zero = x.b.i32(0);
        x.b.begin_for(zero, x.n, zero, {x.f});
        x.b.end_for({x.h});
      },
      "ir.verify: op #1 'for'", "the body yield 0 has type f16, expected f32");
  expect_build_error(
      [](Fixture& x) {
        Value zero = x.b.i32(0);
        x.b.begin_for(zero, x.n, zero, {x.f});
        x.b.end_for({});
      },
      "ir.verify: op #1 'for'", "the body yields 0 value(s), expected 1");
  expect_build_error(
      [](Fixture& x) {
        x.b.begin_if(x.n);
        x.b.end_if();
      },
      "ir.verify: op #0 'if'", "condition has type i32, expected i1");
  expect_build_error(
      [](Fixture& x) {
        Value c = x.b.boolean(true);
        x.b.begin_if(c, {Type::f32()});
        x.b.end_if({x.f}); // no else: the else region yields nothing
      },
      "ir.verify: op #1 'if'", "the else-region yields 0 value(s), expected 1");
  expect_build_error(
      [](Fixture& x) {
        Value c = x.b.boolean(true);
        x.b.begin_if(c);
        Value inner = x.b.f32(1);
        x.b.end_if();
        x.b.add(inner, x.f); // `inner` lives in the then-region only
      },
      "ir.verify: op #5 'add'", "is used outside the region that defines it");
  expect_build_error(
      [](Fixture& x) {
        Value zero = x.b.i32(0), one = x.b.i32(1);
        auto loop = x.b.begin_for(zero, x.n, one);
        x.b.end_for();
        x.b.add(loop.iv, one); // the induction variable is not visible after the loop
      },
      "ir.verify: op #4 'add'", "is used outside the region that defines it");
  expect_build_error([](Fixture& x) { x.b.end_for(); }, "ir.verify: OpBuilder::end_for",
                     "the innermost open construct is not a for");

  // verify() on hand-edited kernels: use before definition, a value defined twice, misplaced
  // yields, regions without a yield.
  auto edited = [](const std::function<void(Kernel&, Fixture&)>& edit) {
    Fixture x;
    Value c = x.b.boolean(true);
    x.b.begin_if(c, {Type::f32()});
    Value one = x.b.f32(1);
    x.b.begin_else({one});
    Value two = x.b.f32(2);
    std::vector<Value> r = x.b.end_if({two});
    x.b.add(r[0], x.f);
    CHECK_NOTHROW(verify(x.k));
    edit(x.k, x);
    return message_of([&] { verify(x.k); });
  };
  // Ops in print order: #0 const_int, #1 if, #2 const_float 1, #3 yield, #4 const_float 2,
  // #5 yield, #6 add (top level: body.ops = {const_int, if, add}).
  CHECK(edited([](Kernel& k, Fixture&) {
          std::swap(k.body.ops[0], k.body.ops[1]);
        }).find("ir.verify: op #0 'if': operand 0 (%") != std::string::npos);
  CHECK(edited([](Kernel& k, Fixture&) {
          k.body.ops[1].regions[0].ops[0].results = {k.args[2].value};
        }).find("is defined twice") != std::string::npos);
  CHECK(edited([](Kernel& k, Fixture&) {
          k.body.ops.push_back(Op{Opcode::yield, {}, {}, {}, {}});
        }).find("ir.verify: op #7 'yield': a yield outside a for / if region") !=
        std::string::npos);
  CHECK(edited([](Kernel& k, Fixture&) {
          k.body.ops[1].regions[0].ops.pop_back();
        }).find("ir.verify: op #1 'if': the then-region does not end with a yield") !=
        std::string::npos);
  CHECK(edited([](Kernel& k, Fixture&) {
          Region& then = k.body.ops[1].regions[0];
          then.ops.insert(then.ops.begin(), Op{Opcode::yield, {}, {}, {}, {}});
        }).find("ir.verify: op #2 'yield': a yield must be the last op of its region") !=
        std::string::npos);
  CHECK(edited([](Kernel& k, Fixture&) {
          k.body.ops[2].operands[0].id = 999;
        }).find("ir.verify: op #6 'add': operand 0 is not a value of kernel 't'") !=
        std::string::npos);
}

TEST_CASE("ir verify: int_to_ptr takes an i64 address and makes a global pointer") {
  expect_build_error([](Fixture& fx) { fx.b.int_to_ptr(fx.n); }, "ir.verify: op #",
                     "'int_to_ptr': address has type i32, expected i64");
  Fixture fx;
  const Value q = fx.b.int_to_ptr(fx.big);
  CHECK(fx.k.type_of(q) == gptr);
}

TEST_CASE("ir verify: fp8 constants hold exactly representable values (storage codes)") {
  Fixture ok;
  ok.b.const_float(Type::e4m3(), 0.0);
  ok.b.const_float(Type::e4m3(), -448.0);
  ok.b.const_float(Type::e5m2(), 57344.0);
  ok.b.const_float(Type::e5m2(), 0.15625); // 5 * 2^-5
  expect_build_error([](Fixture& fx) { fx.b.const_float(Type::e4m3(), 0.3); }, "ir.verify: op #",
                     "value 0.300000 is not exactly representable as e4m3");
  expect_build_error([](Fixture& fx) { fx.b.const_float(Type::e4m3(), 480.0); }, "ir.verify: op #",
                     "is not exactly representable as e4m3");
}

TEST_CASE("ir verify: mul_hi_u, f16 exp2 / rcp and global_load_tr rules") {
  const std::string at0 = "ir.verify: op #0 ";
  expect_build_error([](Fixture& x) { x.b.mul_hi_u(x.big, x.big); }, at0 + "'mul_hi_u'",
                     "operand 0 has type i64, expected i32");
  expect_build_error([](Fixture& x) { x.b.mul_hi_u(x.f, x.f); }, at0 + "'mul_hi_u'",
                     "expected i32");
  expect_build_error([](Fixture& x) { x.b.exp2(x.b.arg("bf", Type::bf16())); }, at0 + "'exp2'",
                     "expected f32 or f16 (scalar or vector; bf16 goes through f32)");
  expect_build_error([](Fixture& x) { x.b.log2(x.h); }, at0 + "'log2'", "expected f32");
  expect_build_error(
      [](Fixture& x) { x.b.global_load_tr(Type::vec(Type::f16(), 8), x.b.lds_ptr(0)); },
      "ir.verify: op #1 'global_load_tr'", "expected ptr<global>");
  expect_build_error([](Fixture& x) { x.b.global_load_tr(Type::vec(Type::f32(), 4), x.p); },
                     at0 + "'global_load_tr'", "must be 8 elements of 16 bits");
  // Accepted forms.
  Fixture fx;
  CHECK(fx.b.type_of(fx.b.mul_hi_u(fx.n, fx.n)) == Type::i32());
  CHECK(fx.b.type_of(fx.b.exp2(fx.h)) == Type::f16());
  CHECK(fx.b.type_of(fx.b.rcp(fx.b.splat(fx.h, 2))) == Type::vec(Type::f16(), 2));
  CHECK(fx.b.type_of(fx.b.global_load_tr(Type::vec(Type::bf16(), 8), fx.p)) ==
        Type::vec(Type::bf16(), 8));
  CHECK(fx.b.type_of(fx.b.global_load_tr(Type::vec(Type::e4m3(), 8), fx.p)) ==
        Type::vec(Type::e4m3(), 8));
}

TEST_CASE("ir verify: a sched_barrier mask names instruction kinds of README (0 to 0x7ff)") {
  expect_build_error([](Fixture& x) { x.b.sched_barrier(0x800); },
                     "ir.verify: op #0 'sched_barrier'", "mask 2048 has bits outside 0x7ff");
  Fixture fx;
  fx.b.sched_barrier(sched_kind::none);
  fx.b.sched_barrier(sched_kind::salu | sched_kind::valu);
  fx.b.sched_barrier(0x7FF);
  CHECK(fx.k.body.ops.size() == 3);
  CHECK(fx.k.body.ops[1].opcode == Opcode::sched_barrier);
  CHECK(fx.k.body.ops[1].attrs.int_value == 6);
  CHECK_NOTHROW(verify(fx.k));
}

TEST_CASE("ir verify: wait_lds and wait_global counts are 0 to 63 (the gfx12 counters)") {
  expect_build_error([](Fixture& x) { x.b.wait_lds(64); }, "ir.verify: op #0 'wait_lds'",
                     "count 64 is outside 0..63");
  expect_build_error([](Fixture& x) { x.b.wait_global(-1); }, "ir.verify: op #0 'wait_global'",
                     "count -1 is outside 0..63");
  Fixture fx;
  fx.b.wait_lds(0);
  fx.b.wait_global(63);
  CHECK(fx.k.body.ops.size() == 2);
  CHECK(fx.k.body.ops[0].opcode == Opcode::wait_lds);
  CHECK(fx.k.body.ops[1].opcode == Opcode::wait_global);
  CHECK(fx.k.body.ops[1].attrs.int_value == 63);
  CHECK_NOTHROW(verify(fx.k));
}
