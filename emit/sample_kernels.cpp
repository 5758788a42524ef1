#include <emit/registry.hpp>
#include <emit/sample_kernels.hpp>

#include <dsl/ir/ir.hpp>

#include <stdexcept>

namespace tw::emit::samples {

namespace {

using ir::Type;
using ir::Value;

const Type kGlobal = Type::ptr(ir::AddrSpace::global);
const Type kF32 = Type::f32();
const Type kF16 = Type::f16();

ir::Kernel make_kernel(std::string name, int block, std::int64_t lds_bytes = 0) {
  ir::Kernel k;
  k.name = std::move(name);
  k.workgroup_size = {block, 1, 1};
  k.lds_bytes = lds_bytes;
  return k;
}

// Pointer to element `index` (i32) of `elem_bytes`-byte elements: 64-bit byte offset.
Value element_ptr(ir::OpBuilder& b, Value base, Value index, int elem_bytes) {
  Value off = b.mul(b.sext(Type::i64(), index), b.i64(elem_bytes));
  return b.ptr_add(base, off);
}

// workgroup_id.x * block + workitem_id.x
Value global_thread(ir::OpBuilder& b, int block) {
  return b.add(b.mul(b.workgroup_id(), b.i32(block)), b.workitem_id());
}

Type f32_vec(int width) {
  return width == 1 ? kF32 : Type::vec(kF32, width);
}

} // namespace

ir::Kernel vector_add(int block, int width) {
  ir::Kernel k = make_kernel("ir_vector_add_w" + std::to_string(width), block);
  ir::OpBuilder b(k);
  Value a = b.arg("a", kGlobal), bb = b.arg("b", kGlobal), c = b.arg("c", kGlobal);
  Value n = b.arg("n", Type::i32());
  Value i = b.mul(global_thread(b, block), b.i32(width));
  b.begin_if(b.cmp(ir::CmpPred::le, b.add(i, b.i32(width)), n));
  const Type t = f32_vec(width);
  const auto align = static_cast<std::uint32_t>(4 * width);
  Value x = b.load(t, element_ptr(b, a, i, 4), align);
  Value y = b.load(t, element_ptr(b, bb, i, 4), align);
  b.store(element_ptr(b, c, i, 4), b.add(x, y), align);
  b.end_if();
  return k;
}

ir::Kernel loop_sum(int block) {
  ir::Kernel k = make_kernel("ir_loop_sum", block);
  ir::OpBuilder b(k);
  Value x = b.arg("x", kGlobal), out = b.arg("out", kGlobal), len = b.arg("len", Type::i32());
  Value row = global_thread(b, block);
  Value first = b.mul(row, len);
  auto loop = b.begin_for(b.i32(0), len, b.i32(1), {b.f32(0.0)});
  Value v = b.load(kF32, element_ptr(b, x, b.add(first, loop.iv), 4));
  std::vector<Value> sum = b.end_for({b.add(loop.carried[0], v)});
  b.store(element_ptr(b, out, row, 4), sum[0]);
  return k;
}

ir::Kernel if_else(int block) {
  ir::Kernel k = make_kernel("ir_if_else", block);
  ir::OpBuilder b(k);
  Value x = b.arg("x", kGlobal), out = b.arg("out", kGlobal), n = b.arg("n", Type::i32());
  Value i = global_thread(b, block);
  b.begin_if(b.cmp(ir::CmpPred::lt, i, n));
  Value v = b.load(kF32, element_ptr(b, x, i, 4));
  b.begin_if(b.cmp(ir::CmpPred::gt, v, b.f32(0.0)), {kF32});
  Value root = b.sqrt(v);
  b.begin_else({root});
  Value twice = b.mul(b.neg(v), b.f32(2.0));
  std::vector<Value> r = b.end_if({twice});
  b.store(element_ptr(b, out, i, 4), r[0]);
  b.end_if();
  return k;
}

ir::Kernel lds_reverse(int block, bool lds_only) {
  ir::Kernel k =
      make_kernel(lds_only ? "ir_lds_reverse_lds_fence" : "ir_lds_reverse", block, 4 * block);
  ir::OpBuilder b(k);
  Value in = b.arg("in", kGlobal), out = b.arg("out", kGlobal);
  Value t = b.workitem_id();
  Value g = global_thread(b, block);
  Value base = b.lds_ptr(0);
  b.store(b.ptr_add(base, b.mul(t, b.i32(4))), b.load(kF32, element_ptr(b, in, g, 4)));
  b.barrier(lds_only);
  Value mirrored = b.sub(b.i32(block - 1), t);
  b.store(element_ptr(b, out, g, 4), b.load(kF32, b.ptr_add(base, b.mul(mirrored, b.i32(4)))));
  return k;
}

namespace {

// Lane l's 16-bit operand for row / column l % 16 and k = k0 + 8 (l / 16) + e, e = 0..7: eight
// consecutive halves of a row of the row-major A (or a column of the column-major B), one
// 128-bit load. A and B share this k assignment, so the product is the same as with the
// hardware's interleaved k order (shared/RDNA4.md).
Value load_operand16(ir::OpBuilder& b, Value base, Value lane, Value ld, Value k0) {
  Value rc = b.rem_u(lane, b.i32(16));
  Value half = b.div_u(lane, b.i32(16));
  Value index = b.add(b.mul(rc, ld), b.add(k0, b.mul(half, b.i32(8))));
  return b.load(Type::vec(kF16, 8), element_ptr(b, base, index, 2), 16);
}

// D layout: VGPR r of lane l holds (row 8 (l / 16) + r, column l % 16); row-major store.
void store_accumulator(ir::OpBuilder& b, Value c, Value lane, Value d) {
  Value col = b.rem_u(lane, b.i32(16));
  Value row0 = b.mul(b.div_u(lane, b.i32(16)), b.i32(8));
  for (int r = 0; r < 8; ++r) {
    Value row = b.add(row0, b.i32(r));
    b.store(element_ptr(b, c, b.add(b.mul(row, b.i32(16)), col), 4), b.extract(d, r));
  }
}

Value zero_accumulator(ir::OpBuilder& b) {
  return b.splat(b.f32(0.0), 8);
}

} // namespace

ir::Kernel wmma_tile(const std::string& atom) {
  ir::Kernel k = make_kernel("ir_wmma_tile", 32);
  ir::OpBuilder b(k);
  Value a = b.arg("a", kGlobal), bm = b.arg("b", kGlobal), c = b.arg("c", kGlobal);
  Value lane = b.lane_id();
  Value av = load_operand16(b, a, lane, b.i32(16), b.i32(0));
  Value bv = load_operand16(b, bm, lane, b.i32(16), b.i32(0));
  if (atom.find("bf16") != std::string::npos) {
    // The same bits read as bf16: the kernel's inputs are bf16 then.
    av = b.bitcast(Type::vec(Type::bf16(), 8), av);
    bv = b.bitcast(Type::vec(Type::bf16(), 8), bv);
  }
  store_accumulator(b, c, lane, b.wmma(atom, av, bv, zero_accumulator(b)));
  return k;
}

ir::Kernel wmma_loop() {
  ir::Kernel k = make_kernel("ir_wmma_loop", 32);
  ir::OpBuilder b(k);
  Value a = b.arg("a", kGlobal), bm = b.arg("b", kGlobal), c = b.arg("c", kGlobal);
  Value kdim = b.arg("k", Type::i32());
  Value lane = b.lane_id();
  auto loop = b.begin_for(b.i32(0), kdim, b.i32(16), {zero_accumulator(b)});
  Value av = load_operand16(b, a, lane, kdim, loop.iv);
  Value bv = load_operand16(b, bm, lane, kdim, loop.iv);
  Value next = b.wmma("v_wmma_f32_16x16x16_f16", av, bv, loop.carried[0]);
  std::vector<Value> acc = b.end_for({next});
  store_accumulator(b, c, lane, acc[0]);
  return k;
}

ir::Kernel swmmac_tile(int index_key) {
  ir::Kernel k = make_kernel("ir_swmmac_tile", 32);
  ir::OpBuilder b(k);
  // Operands already in register order: A 8 halves, B 16 halves, index 1 word per lane.
  Value a = b.arg("a", kGlobal), bm = b.arg("b", kGlobal), idx = b.arg("index", kGlobal);
  Value c = b.arg("c", kGlobal);
  Value lane = b.lane_id();
  Value av = b.load(Type::vec(kF16, 8), element_ptr(b, a, b.mul(lane, b.i32(8)), 2), 16);
  Value b_lo = b.load(Type::vec(kF16, 8), element_ptr(b, bm, b.mul(lane, b.i32(16)), 2), 16);
  Value b_hi = b.load(Type::vec(kF16, 8),
                      element_ptr(b, bm, b.add(b.mul(lane, b.i32(16)), b.i32(8)), 2), 16);
  const Value halves[] = {b_lo, b_hi};
  Value bv = b.concat(halves);
  Value iv = b.load(Type::i32(), element_ptr(b, idx, lane, 4));
  ir::MmaMods mods;
  mods.index_key = static_cast<std::uint8_t>(index_key);
  Value d = b.swmmac("v_swmmac_f32_16x16x32_f16", av, bv, zero_accumulator(b), iv, mods);
  store_accumulator(b, c, lane, d);
  return k;
}

ir::Kernel buffer_copy(int block, int width) {
  ir::Kernel k = make_kernel("ir_buffer_copy_w" + std::to_string(width), block);
  ir::OpBuilder b(k);
  Value x = b.arg("x", kGlobal), out = b.arg("out", kGlobal), n = b.arg("n", Type::i32());
  Value rsrc = b.buffer_rsrc(x, b.mul(n, b.i32(4)));
  Value i = b.mul(global_thread(b, block), b.i32(width));
  Value v = b.buffer_load(f32_vec(width), rsrc, b.mul(i, b.i32(4)));
  b.store(element_ptr(b, out, i, 4), v, static_cast<std::uint32_t>(4 * width));
  return k;
}

ir::Kernel lane_reduce(int block) {
  ir::Kernel k = make_kernel("ir_lane_reduce", block);
  ir::OpBuilder b(k);
  Value x = b.arg("x", kGlobal), out_sum = b.arg("out_sum", kGlobal);
  Value out_rev = b.arg("out_rev", kGlobal);
  Value i = global_thread(b, block);
  Value v = b.load(kF32, element_ptr(b, x, i, 4));
  Value lane = b.lane_id();
  // Reversed lanes: lane l reads lane 31 - l (ds_bpermute addresses are bytes).
  Value rev = b.bpermute(b.mul(b.sub(b.i32(31), lane), b.i32(4)), v);
  b.store(element_ptr(b, out_rev, i, 4), rev);
  // Sum within each row of 16 (xor butterfly), then across the two rows.
  Value s = v;
  for (int m : {1, 2, 4, 8})
    s = b.add(s, b.dpp(s, s, ir::DppCtrl::row_xmask(m)));
  s = b.add(s, b.permlanex16(s, b.i32(0x76543210), b.i32(static_cast<std::int32_t>(0xfedcba98))));
  b.begin_if(b.cmp(ir::CmpPred::eq, lane, b.i32(0)));
  Value wave = b.add(b.mul(b.workgroup_id(), b.i32(block / 32)), b.wave_id());
  b.store(element_ptr(b, out_sum, wave, 4), s);
  b.end_if();
  return k;
}

} // namespace tw::emit::samples

namespace tw::emit {

void register_sample_kernels(KernelRegistry& registry) {
  using samples::vector_add;
  const KernelParamSpec block256{"block", "256",
                                 "threads per workgroup: 32..1024, a multiple of 32"};
  auto block = [](const ParamReader& p) {
    const auto v = p.integer_in("block", 32, 1024);
    if (v % 32 != 0)
      p.reject("block", "must be a multiple of 32 (whole waves)");
    return static_cast<int>(v);
  };
  registry.add(
      {"ir_vector_add",
       "c = a + b (f32), `width` floats per thread with one load each",
       {block256, {"width", "4", "floats per thread: 1, 2 or 4 (4 = 128-bit loads)"}},
       [block](const ParamReader& p) {
         return samples::vector_add(block(p), static_cast<int>(p.one_of("width", {1, 2, 4})));
       },
       {{{"width", "1"}}, {{"width", "4"}}}});
  registry.add({"ir_loop_sum",
                "out[row] = sum of x[row * len .. + len) in a for loop",
                {{"block", "64", "threads per workgroup: 32..1024, a multiple of 32"}},
                [block](const ParamReader& p) { return samples::loop_sum(block(p)); },
                {}});
  registry.add({"ir_if_else",
                "out = x > 0 ? sqrt(x) : -2x, with nested if / if-else",
                {block256},
                [block](const ParamReader& p) { return samples::if_else(block(p)); },
                {}});
  registry.add({"ir_lds_reverse",
                "reverses each workgroup's block of floats through LDS and a barrier",
                {block256},
                [block](const ParamReader& p) { return samples::lds_reverse(block(p)); },
                {}});
  registry.add(
      {"ir_wmma_tile",
       "one wave, C = A * B (16x16x16) with one 16-bit WMMA atom",
       {{"atom", "v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_f16 or v_wmma_f32_16x16x16_bf16"}},
       [](const ParamReader& p) {
         const std::string& atom = p.str("atom");
         if (atom != "v_wmma_f32_16x16x16_f16" && atom != "v_wmma_f32_16x16x16_bf16")
           p.reject("atom", "must be v_wmma_f32_16x16x16_f16 or v_wmma_f32_16x16x16_bf16");
         return samples::wmma_tile(atom);
       },
       {}});
  registry.add({"ir_wmma_loop",
                "one wave, C = A (16xK) * B (Kx16), a K loop of 128-bit loads and WMMA",
                {},
                [](const ParamReader&) { return samples::wmma_loop(); },
                {}});
  registry.add({"ir_swmmac_tile",
                "one wave, one 2:4-sparse v_swmmac_f32_16x16x32_f16",
                {{"index_key", "0", "which 16-bit half of the index VGPR: 0 or 1"}},
                [](const ParamReader& p) {
                  return samples::swmmac_tile(static_cast<int>(p.one_of("index_key", {0, 1})));
                },
                {}});
  registry.add(
      {"ir_buffer_copy",
       "out = x through a bounded buffer resource (zero past n)",
       {block256, {"width", "1", "floats per thread: 1, 2 or 4"}},
       [block](const ParamReader& p) {
         return samples::buffer_copy(block(p), static_cast<int>(p.one_of("width", {1, 2, 4})));
       },
       {{{"width", "1"}}, {{"width", "4"}}}});
  registry.add({"ir_lane_reduce",
                "wave sums with DPP + permlanex16, lane reversal with ds_bpermute",
                {{"block", "64", "threads per workgroup: 32..1024, a multiple of 32"}},
                [block](const ParamReader& p) { return samples::lane_reduce(block(p)); },
                {}});
}

} // namespace tw::emit
