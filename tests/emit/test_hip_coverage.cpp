// HIP emitter coverage: every op form (all integer widths, f16 / bf16 / f32, vectors, every
// conversion, every memory width and address space, all 22 gfx12 matrix atoms) is emitted and
// compiled for gfx1200 and gfx1201, so no IR the verifier accepts yields HIP that clang rejects.
#include "hip_toolchain.hpp"

#include <atoms/mma/gfx12_instrs.hpp>
#include <doctest/doctest.h>
#include <dsl/ir/ir.hpp>
#include <emit/hip/hip_emitter.hpp>

#include <cstdint>
#include <limits>
#include <vector>

using namespace tw::ir;

namespace {

const Type gptr = Type::ptr(AddrSpace::global);

void compile_both(const Kernel& k, const std::vector<std::string>& expected = {}) {
  const std::string src = tw::emit::hip::emit_source(k);
  for (const char* arch : {"gfx1200", "gfx1201"}) {
    CAPTURE(arch);
    const tw::test::HipBuild b = tw::test::compile_hip(src, arch);
    INFO("HIP source:\n" << src << "\nclang:\n" << b.log);
    REQUIRE(b.ok);
    for (const std::string& m : expected) {
      INFO("expected instruction: " << m);
      CHECK(b.disasm.find(m) != std::string::npos);
    }
  }
}

// Folds `v` into the running i32 checksum so nothing is dead code.
struct Sink {
  OpBuilder& b;
  Value acc;
  void add_bits(Value v) {
    const Type t = b.type_of(v);
    Value w;
    if (t.bits() == 32)
      w = t == Type::i32() ? v : b.bitcast(Type::i32(), v);
    else if (t.is_int() && !t.is_vector())
      w = t.elem_bits() < 32 ? b.zext(Type::i32(), v) : b.trunc(Type::i32(), v);
    else if (t.bits() % 32 == 0) {
      Value words = b.bitcast(Type::vec(Type::i32(), t.bits() / 32), v);
      w = b.extract(words, 0);
    } else { // 16-bit floats, fp8
      Value bits = b.bitcast(Type::i(t.bits()), v);
      w = b.zext(Type::i32(), bits);
    }
    acc = b.xor_(acc, w);
  }
};

} // namespace

TEST_CASE("hip coverage: integer ops on every width and on vectors") {
  Kernel k;
  k.name = "int_ops";
  k.workgroup_size = {64, 1, 1};
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value seed = b.arg("seed", Type::i32());
  Value seed64 = b.arg("seed64", Type::i64());
  Value tid = b.workitem_id();
  Value x32 = b.add(seed, tid);
  Sink sink{b, x32};
  const Opcode binops[] = {Opcode::add,   Opcode::sub,   Opcode::mul, Opcode::div_s, Opcode::div_u,
                           Opcode::rem_s, Opcode::rem_u, Opcode::min, Opcode::max,   Opcode::min_u,
                           Opcode::max_u, Opcode::and_,  Opcode::or_, Opcode::xor_,  Opcode::shl,
                           Opcode::shr_u, Opcode::shr_s};
  const Opcode unops[] = {Opcode::neg, Opcode::abs, Opcode::not_};
  // Two independent operands of each type; every op result goes into the checksum.
  Value y32 = b.xor_(seed, b.mul(tid, tid));
  Value x64 = b.add(seed64, b.zext(Type::i64(), tid));
  Value y64 = b.sub(seed64, b.sext(Type::i64(), y32));
  std::vector<std::pair<Value, Value>> operands;
  operands.emplace_back(b.trunc(Type::i8(), x32), b.trunc(Type::i8(), y32));
  operands.emplace_back(b.trunc(Type::i16(), x32), b.trunc(Type::i16(), y32));
  operands.emplace_back(x32, y32);
  operands.emplace_back(x64, y64);
  operands.emplace_back(b.trunc(Type::i(7), x32), b.trunc(Type::i(7), y32)); // unsigned _BitInt
  operands.emplace_back(b.trunc(Type::i(48), x64), b.trunc(Type::i(48), y64));
  operands.emplace_back(b.splat(x32, 4), b.splat(y32, 4));
  operands.emplace_back(b.splat(operands[1].first, 8), b.splat(operands[1].second, 8));
  for (auto [v, w] : operands) {
    for (Opcode o : binops)
      sink.add_bits(b.binary(o, v, w));
    for (Opcode o : unops)
      sink.add_bits(b.unary(o, v));
    const Type t = b.type_of(v);
    if (t.is_vector())
      continue;
    // Comparisons, widening and narrowing.
    for (CmpPred p : {CmpPred::eq, CmpPred::ne, CmpPred::lt, CmpPred::le, CmpPred::gt, CmpPred::ge,
                      CmpPred::ult, CmpPred::ule, CmpPred::ugt, CmpPred::uge}) {
      Value c = b.cmp(p, v, w);
      sink.add_bits(b.select(c, v, w));
    }
    if (t.elem_bits() < 64) {
      sink.add_bits(b.sext(Type::i64(), v));
      sink.add_bits(b.zext(Type::i64(), w));
    }
    if (t.elem_bits() > 8)
      sink.add_bits(b.trunc(Type::i8(), v));
  }
  // i1 logic, sext / zext / trunc of i1.
  Value c1 = b.cmp(CmpPred::ult, x32, seed);
  Value c2 = b.cmp(CmpPred::ne, x32, tid);
  Value c = b.xor_(b.or_(b.and_(c1, c2), c1), b.not_(c2));
  Value ceq = b.cmp(CmpPred::eq, c, c1);
  sink.add_bits(b.sext(Type::i32(), ceq));
  sink.add_bits(b.zext(Type::i16(), c));
  sink.add_bits(b.zext(Type::i32(), b.trunc(Type::i1(), x32)));
  // Constants of every width, including negative and full-width values.
  sink.add_bits(b.const_int(Type::i8(), -1));
  sink.add_bits(b.const_int(Type::i64(), INT64_MIN));
  sink.add_bits(b.const_int(Type::i(7), 100));
  b.store(out, sink.acc);
  compile_both(k, {"v_mul_lo_u32", "v_mul_hi_u32", "v_ashrrev_i64", "v_lshlrev_b64", "v_min_i16",
                   "v_max_u16", "v_cmp_lt_i64"});
}

TEST_CASE("hip coverage: float ops and every conversion") {
  Kernel k;
  k.name = "float_ops";
  k.workgroup_size = {64, 1, 1};
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value xf0 = b.arg("x", Type::f32());
  Value xh0 = b.arg("xh", Type::f16());
  Value xb0 = b.arg("xb", Type::bf16());
  Value seed0 = b.arg("seed", Type::i32());
  // Per-lane values (uniform ones would be computed on the scalar unit).
  Value tid = b.workitem_id();
  Value seed = b.add(seed0, tid);
  Value tf = b.cvt(Type::f32(), tid);
  Value xf = b.add(xf0, tf);
  Value xh = b.add(xh0, b.cvt(Type::f16(), tf));
  Value xb = b.add(xb0, b.cvt(Type::bf16(), tf));
  Sink sink{b, seed};
  const Opcode binops[] = {Opcode::add, Opcode::sub, Opcode::mul,
                           Opcode::div, Opcode::min, Opcode::max};
  for (Value v : {xf, xh, xb, b.splat(xf, 4), b.splat(xh, 8), b.splat(xb, 2)}) {
    Value r = v;
    for (Opcode o : binops)
      r = b.binary(o, r, v);
    r = b.fma(r, v, v);
    r = b.abs(b.neg(r));
    const Type t = b.type_of(v);
    if (!t.is_vector())
      for (CmpPred p :
           {CmpPred::eq, CmpPred::ne, CmpPred::lt, CmpPred::le, CmpPred::gt, CmpPred::ge}) {
        Value c = b.cmp(p, r, v);
        r = b.select(c, r, v);
      }
    sink.add_bits(r);
  }
  // f32 math, scalar and vector.
  for (Value v : {xf, b.splat(xf, 2)})
    for (Opcode o :
         {Opcode::exp2, Opcode::log2, Opcode::rcp, Opcode::rsqrt, Opcode::sqrt, Opcode::tanh})
      sink.add_bits(b.unary(o, v));
  // Conversions: every allowed (from, to, rounding, saturate) combination.
  const Type ints[] = {Type::i8(), Type::i16(), Type::i32(), Type::i64()};
  const Type floats[] = {Type::f16(), Type::bf16(), Type::f32()};
  const Value float_values[] = {xh, xb, xf};
  for (Type it : ints) {
    Value iv = it.elem_bits() < 32   ? b.trunc(it, seed)
               : it.elem_bits() > 32 ? b.sext(it, seed)
                                     : seed;
    for (std::size_t f = 0; f < 3; ++f) {
      sink.add_bits(b.cvt(floats[f], iv));
      sink.add_bits(b.cvt_unsigned(floats[f], iv));
      sink.add_bits(b.cvt(it, float_values[f], Rounding::rtz));
      sink.add_bits(b.cvt_unsigned(it, float_values[f], Rounding::rtz));
    }
  }
  for (std::size_t from = 0; from < 3; ++from)
    for (std::size_t to = 0; to < 3; ++to) {
      if (from == to)
        continue;
      for (Rounding r : {Rounding::rne, Rounding::rtz})
        for (bool sat : {false, true}) {
          if (floats[to] == Type::f32() && (r == Rounding::rtz || sat))
            continue; // widening is exact: one form is enough
          sink.add_bits(b.cvt(floats[to], float_values[from], r, sat));
        }
    }
  for (Type f8 : {Type::e4m3(), Type::e5m2()}) {
    for (bool sat : {false, true}) {
      Value q = b.cvt(f8, xf, Rounding::rne, sat);
      Value qs = b.cvt_stochastic(f8, xf, seed, sat);
      sink.add_bits(b.cvt(Type::f32(), q));
      sink.add_bits(b.cvt(Type::f32(), qs));
    }
    // Vector conversions go lane by lane.
    Value v = b.cvt(Type::vec(f8, 4), b.splat(xf, 4));
    sink.add_bits(b.cvt(Type::vec(Type::f32(), 4), v));
  }
  // Float constants: ordinary, negative zero, infinities and NaN.
  for (double d : {0.1, -0.0, 1e300, -1e300, 65504.0})
    sink.add_bits(b.const_float(Type::f32(), d));
  sink.add_bits(b.const_float(Type::f16(), 0.333));
  sink.add_bits(b.const_float(Type::bf16(), -2.5));
  sink.add_bits(b.const_float(Type::f32(), std::numeric_limits<double>::infinity()));
  sink.add_bits(b.const_float(Type::f32(), std::numeric_limits<double>::quiet_NaN()));
  b.store(out, sink.acc);
  compile_both(k, {"v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32", "v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32",
                   "v_cvt_f32_bf8", "v_cvt_pk_rtz_f16_f32", "v_exp_f32", "v_fma_f16",
                   "v_min_num_f32"});
}

TEST_CASE("hip coverage: vector construction and lane access") {
  Kernel k;
  k.name = "vector_ops";
  k.workgroup_size = {32, 1, 1};
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value x = b.arg("x", Type::f32());
  Value s = b.arg("s", Type::i32());
  Sink sink{b, s};
  Value e[] = {x, b.neg(x), b.rcp(x)};
  Value v3 = b.build_vector(e);
  Value v4 = b.insert(b.splat(x, 4), b.sqrt(x), 2);
  Value parts[] = {v3, v4, x};
  Value v8 = b.concat(parts);
  Value mid = b.slice(v8, 2, 4);
  Value one = b.slice(v8, 7, 1);
  Value picked = b.extract(mid, 3);
  sink.add_bits(mid);
  sink.add_bits(one);
  sink.add_bits(picked);
  Value c = b.cmp(CmpPred::lt, x, picked);
  sink.add_bits(b.select(c, mid, b.slice(v8, 0, 4)));
  // Packed int4 and fp8 vectors as containers.
  Value words = b.splat(s, 2);
  Value nibbles = b.bitcast(Type::packed_i4(16), words);
  Value back = b.bitcast(Type::vec(Type::i32(), 2), b.select(c, nibbles, nibbles));
  sink.add_bits(back);
  Value f8 = b.bitcast(Type::vec(Type::e4m3(), 8), words);
  sink.add_bits(b.extract(f8, 5));
  b.store(out, sink.acc);
  compile_both(k);
}

TEST_CASE("hip coverage: every load / store width, address space, alignment and buffer width") {
  Kernel k;
  k.name = "memory_ops";
  k.workgroup_size = {64, 1, 1};
  k.lds_bytes = 65536;
  OpBuilder b(k);
  Value in = b.arg("in", gptr), out = b.arg("out", gptr);
  Value table = b.arg("table", Type::ptr(AddrSpace::constant));
  Value bytes = b.arg("bytes", Type::i32());
  Value tid = b.workitem_id();
  Value off = b.mul(tid, b.i32(16));
  Value off64 = b.zext(Type::i64(), off);
  Value gin = b.ptr_add(in, off64);
  Value gout = b.ptr_add(out, off);
  Value lds = b.ptr_add(b.lds_ptr(0), off);
  Value rin = b.buffer_rsrc(in, bytes);
  Value rout = b.buffer_rsrc(out, bytes);
  const Type widths[] = {Type::i8(),
                         Type::f16(),
                         Type::bf16(),
                         Type::e5m2(),
                         Type::i32(),
                         Type::vec(Type::i8(), 4),
                         Type::i64(),
                         Type::vec(Type::f16(), 4),
                         Type::vec(Type::f32(), 3),
                         Type::vec(Type::f16(), 6),
                         Type::vec(Type::f32(), 4),
                         Type::vec(Type::bf16(), 8),
                         Type::packed_i4(32),
                         Type::vec(Type::e4m3(), 16)};
  // Phase 1: global -> LDS (slot i owns LDS bytes [1024 i, 1024 (i + 1))), constant and buffer
  // loads -> buffer stores. Phase 2 (after a barrier): LDS of the neighbour lane -> global.
  Value neighbour = b.mul(b.xor_(tid, b.i32(1)), b.i32(16));
  Value lds_n = b.ptr_add(b.lds_ptr(0), neighbour);
  std::vector<std::pair<Type, std::uint32_t>> accesses;
  int slot = 0;
  for (Type t : widths)
    for (std::uint32_t align : {0u, 1u, 4u}) {
      if (align && static_cast<int>(align) >= t.bytes())
        continue;
      Value g = b.load(t, gin, align);
      Value p = b.ptr_add(lds, b.i32(slot * 1024));
      b.store(p, g, align);
      accesses.emplace_back(t, align);
      ++slot;
    }
  for (Type t : widths) {
    Value c = b.load(t, table);
    Value bl = b.buffer_load(t, rin, off);
    Value sel = b.select(b.cmp(CmpPred::eq, tid, bytes), c, bl);
    b.buffer_store(rout, b.add(off, b.i32(slot * 1024)), sel);
  }
  b.wait_global(0); // the gfx12 wait intrinsics, declared by name (no clang builtin)
  b.wait_lds(1);
  b.barrier();
  slot = 0;
  for (auto [t, align] : accesses) {
    Value p = b.ptr_add(lds_n, b.i32(slot * 1024));
    Value l = b.load(t, p, align);
    b.store(b.ptr_add(gout, b.i32(slot * 4096)), l, align);
    ++slot;
  }
  compile_both(k, {"global_store_b96", "ds_load_b128", "ds_load_b96", "ds_store_b96",
                   "buffer_load_u8", "buffer_load_u16", "buffer_load_b64", "buffer_load_b96",
                   "buffer_store_b8", "buffer_store_b128", "s_load_b128"});
}

TEST_CASE("hip coverage: all 22 gfx12 WMMA / SWMMAC atoms with modifiers, an i64 loop and "
          "an if with a buffer resource result") {
  Kernel k;
  k.name = "mma_all";
  k.workgroup_size = {32, 1, 1};
  OpBuilder b(k);
  Value out = b.arg("out", gptr);
  Value seed = b.arg("seed", Type::i32());
  Value n64 = b.arg("n", Type::i64());
  Sink sink{b, seed};
  // Operands made from the seed: a splat of i32 words bitcast to the atom's operand type.
  auto operand = [&](Type t) {
    Value w = t.bits() == 32 ? seed : b.splat(seed, t.bits() / 32);
    return b.bitcast(t, w);
  };
  std::vector<std::string> mnemonics;
  for (const tw::atoms::MmaInstrInfo& info : tw::atoms::all_mma_instrs()) {
    const MmaOperandTypes t = mma_operand_types(info);
    MmaMods m;
    if (info.modifiers & tw::atoms::kMmaSignedness)
      m.a_signed = true;
    if (info.modifiers & tw::atoms::kMmaClamp)
      m.clamp = true;
    if (info.modifiers & tw::atoms::kMmaNegAB)
      m.neg_lo = m.neg_hi = 2; // negate B
    if (info.modifiers & tw::atoms::kMmaNegC) {
      m.neg_lo |= 4; // -|C|
      m.neg_hi |= 4;
    }
    if (info.index_keys > 1)
      m.index_key = 1;
    Value a = operand(t.a), bb = operand(t.b), c = operand(t.cd);
    const std::string name(info.mnemonic);
    Value d = info.sparse ? b.swmmac(name, a, bb, c, seed, m) : b.wmma(name, a, bb, c, m);
    sink.add_bits(d);
    mnemonics.push_back(name);
  }
  // A 64-bit induction variable, and an if whose result is a buffer resource.
  Value zero = b.i64(0), one = b.i64(1);
  std::vector<Value> fin =
      b.for_(zero, n64, one, {sink.acc}, [&](Value iv, std::span<const Value> c) {
        Value lo = b.trunc(Type::i32(), iv);
        return std::vector<Value>{b.add(c[0], lo)};
      });
  Value cond = b.cmp(CmpPred::ugt, fin[0], seed);
  Value small = b.i32(64), large = b.i32(128);
  std::vector<Value> r = b.if_(
      cond, {Type::buffer_rsrc()}, [&] { return std::vector<Value>{b.buffer_rsrc(out, small)}; },
      [&] { return std::vector<Value>{b.buffer_rsrc(out, large)}; });
  b.buffer_store(r[0], b.lane_id(), fin[0]);
  compile_both(k, mnemonics);
}
