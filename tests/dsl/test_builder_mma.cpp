// Tiled MMA / tiled copy / LDS tiles: lane maps derived from the atom tables (checked here
// against the RDNA4.md formulas, evaluated by hand), and the structure of traced WMMA kernels.
#include <doctest/doctest.h>

#include <dsl/dsl.hpp>
#include <dsl/mma/accumulator_visit.hpp>
#include <dsl/mma/block_scaled.hpp>

#include <functional>

using namespace tw::dsl;
namespace ir = tw::ir;

namespace {
using F32Atom = MmaAtomLanes<tw::atoms::wmma_f32_16x16x16_f16>;

// Calls f on every op of a region, nested regions included.
void walk(const ir::Region& r, const std::function<void(const ir::Op&)>& f) {
  for (const ir::Op& op : r.ops) {
    f(op);
    for (const ir::Region& sub : op.regions)
      walk(sub, f);
  }
}
int count_ops(const ir::Kernel& k, const std::function<bool(const ir::Op&)>& pred) {
  int n = 0;
  walk(k.body, [&](const ir::Op& op) { n += pred(op) ? 1 : 0; });
  return n;
}
bool is_load_of(const ir::Kernel& k, const ir::Op& op, ir::Type t, ir::AddrSpace space) {
  return op.opcode == ir::Opcode::load && k.type_of(op.results[0]) == t &&
         k.type_of(op.operands[0]).is_ptr(space);
}
} // namespace

TEST_CASE("lane maps of the f16 WMMA atom follow the RDNA4 formulas") {
  constexpr const LaneMap& a = F32Atom::a_map;
  constexpr const LaneMap& b = F32Atom::b_map;
  constexpr const LaneMap& c = F32Atom::c_map;
  // A: lane 17, value 5 (VGPR g = 2, half h = 1): row 17 % 16 = 1,
  // k = 8*(2/2) + 4*(17/16) + 2*(2%2) + 1 = 13.
  CHECK(a.lane_row(17) + a.value_row[5] == 1);
  CHECK(a.lane_col(17) + a.value_col[5] == 13);
  // A: lane 3, value 2 (g = 1, h = 0): k = 0 + 0 + 2 + 0 = 2.
  CHECK(a.lane_col(3) + a.value_col[2] == 2);
  // B: lane 30, value 7 (g = 3, h = 1): column 14, k = 8 + 4 + 2 + 1 = 15.
  CHECK(b.lane_col(30) + b.value_col[7] == 14);
  CHECK(b.lane_row(30) + b.value_row[7] == 15);
  // C (f32): lane 20, VGPR 3: row 8*(20/16) + 3 = 11, column 20 % 16 = 4.
  CHECK(c.lane_row(20) + c.value_row[3] == 11);
  CHECK(c.lane_col(20) + c.value_col[3] == 4);
  // Adjacent values: A's k values 0-3 and 8-11 (lanes 0-15) are runs of 4 -> two 64-bit loads;
  // B read from an n-major tile (transposed) likewise; C values are all in different rows.
  CHECK(detail::run_length(a, 0, false, 8) == 4);
  CHECK(detail::run_length(a, 4, false, 8) == 4);
  CHECK(detail::run_length(b, 0, true, 8) == 4);
  CHECK(detail::run_length(c, 0, false, 4) == 1);
}

TEST_CASE("single-wave WMMA tile: one wmma, vector operand loads, masked stores") {
  KernelBuilder kb("wmma_tile", {32, 1, 1});
  auto [A, B, D] = kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f16>(col_major, "b", 16),
                           gtensor<f32>(row_major, "d"));
  constexpr auto mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
  static_assert(mma.tile_m == 16 && mma.tile_n == 16 && mma.threads == 32);
  const auto gA = local_tile<16, 16>(A.shape(16, 16), 0, 0);
  const auto gBt = local_tile<16, 16>(B.shape(16, 16).transposed(), 0, 0);
  const auto gD = local_tile<16, 16>(D.shape(16, 16), 0, 0);
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, mma.load_a(gA, 0), mma.load_b(gBt, 0), acc);
  mma.store(acc, gD);
  const ir::Kernel k = kb.finish();

  int wmmas = 0;
  walk(k.body, [&](const ir::Op& op) {
    if (op.opcode != ir::Opcode::wmma)
      return;
    ++wmmas;
    CHECK(op.attrs.atom == "v_wmma_f32_16x16x16_f16");
    CHECK(k.type_of(op.operands[0]) == ir::Type::vec(ir::Type::f16(), 8));
    CHECK(k.type_of(op.operands[1]) == ir::Type::vec(ir::Type::f16(), 8));
    CHECK(k.type_of(op.operands[2]) == ir::Type::vec(ir::Type::f32(), 8));
  });
  CHECK(wmmas == 1);
  // One run of 8 f16 per operand (A and B: the tiled layer's k-contiguous operand map; the
  // hardware map would split it into two runs of 4): 2 vector loads of <8 x f16>, 16-byte
  // aligned.
  const ir::Type v8h = ir::Type::vec(ir::Type::f16(), 8);
  CHECK(count_ops(k, [&](const ir::Op& op) {
          return is_load_of(k, op, v8h, ir::AddrSpace::global) && op.attrs.align == 16;
        }) == 2);
  // Each lane stores its 8 accumulator values as f32, each under its own bound check.
  CHECK(count_ops(k, [&](const ir::Op& op) { return op.opcode == ir::Opcode::store; }) == 8);
  CHECK(count_ops(k, [](const ir::Op& op) { return op.opcode == ir::Opcode::lane_id; }) >= 1);
}

TEST_CASE("packed int4 atom: lane maps and k steps in bytes and WMMA operands as packed int4") {
  using Iu4 = MmaAtomLanes<tw::atoms::wmma_i32_16x16x32_iu4>;
  static_assert(Iu4::packed_int4 && Iu4::K == 32 && Iu4::k_storage == 16);
  constexpr const LaneMap& a = Iu4::a_map;
  constexpr const LaneMap& b = Iu4::b_map;
  static_assert(a.separable && b.separable && a.values == 8 && a.elem_bits == 8);
  CHECK((a.rows == 16 && a.cols == 16 && b.rows == 16 && b.cols == 16));
  // RDNA4: lane l, VGPR g, nibble n holds k = 16*(l/16) + 8g + n; byte value v holds nibbles
  // 2v and 2v + 1, i.e. k byte 8*(l/16) + v. A: lane 17, byte 5: row 1, k byte 13.
  CHECK(a.lane_row(17) + a.value_row[5] == 1);
  CHECK(a.lane_col(17) + a.value_col[5] == 13);
  // B: lane 30, byte 7: column 14, k byte 15.
  CHECK(b.lane_col(30) + b.value_col[7] == 14);
  CHECK(b.lane_row(30) + b.value_row[7] == 15);
  // The 8 bytes of a lane are one run (one 64-bit load).
  CHECK(detail::run_length(a, 0, false, 16) == 8);
  CHECK(detail::run_length(b, 0, true, 16) == 8);

  KernelBuilder kb("iu4_tile", {32, 1, 1});
  auto [A, B, D] = kb.args(gtensor<i8>(row_major, "a", 16), gtensor<i8>(col_major, "b", 16),
                           gtensor<i32>(row_major, "d"));
  constexpr auto mma = make_tiled_mma(tw::atoms::wmma_i32_16x16x32_iu4{}, wave_layout<1, 1>);
  static_assert(mma.tile_k == 32 && mma.tile_k_storage == 16);
  const auto gA = local_tile<16, 16>(A.shape(16, 16), 0, 0); // 16 rows of 32 nibbles
  const auto gBt = local_tile<16, 16>(B.shape(16, 16).transposed(), 0, 0);
  auto acc = mma.make_accumulator(0);
  gemm_with_mods(mma, mma.load_a(gA, 0), mma.load_b(gBt, 0), acc,
                 ir::MmaMods{.a_signed = true, .b_signed = false});
  mma.store(acc, local_tile<16, 16>(D.shape(16, 16), 0, 0));
  const ir::Kernel k = kb.finish();
  int wmmas = 0;
  walk(k.body, [&](const ir::Op& op) {
    if (op.opcode != ir::Opcode::wmma)
      return;
    ++wmmas;
    CHECK(op.attrs.atom == "v_wmma_i32_16x16x32_iu4");
    CHECK(k.type_of(op.operands[0]) == ir::Type::packed_i4(16));
    CHECK(k.type_of(op.operands[1]) == ir::Type::packed_i4(16));
    CHECK(k.type_of(op.operands[2]) == ir::Type::vec(ir::Type::i32(), 8));
  });
  CHECK(wmmas == 1);
  // Each operand: one <8 x i8> load (8 consecutive bytes = 16 nibbles of k per lane).
  CHECK(count_ops(k, [&](const ir::Op& op) {
          return is_load_of(k, op, ir::Type::vec(ir::Type::i8(), 8), ir::AddrSpace::global);
        }) == 2);
}

TEST_CASE("tiled f16 GEMM: LDS plan, double-buffered loop, 128-bit loads, 32 WMMA per tile") {
  constexpr auto mma =
      make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<2, 2>, repeat<4, 4>);
  constexpr auto cp = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<32, 4>);
  static_assert(cp.vec == 8 && cp.threads == 128);
  constexpr auto plan = lds_plan(lds_buffer<f16>("sA", 128, 32, stages(2), pad(8)),
                                 lds_buffer<f16>("sB", 128, 32, stages(2), pad(8)));
  KernelBuilder kb("gemm", {mma.threads, 1, 1});
  auto [A, B, C, M, N, K] =
      kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f16>(col_major, "b", 16),
              gtensor<f32>(row_major, "c"), scalar<i64>("m"), scalar<i64>("n"), scalar<i64>("k"));
  const auto a = A.shape(M, K);
  const auto bt = B.shape(K, N).transposed();
  auto lds = use_lds<plan>(kb);
  const Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);
  const auto acc = pipeline<2>(
      cast<i32>(ceil_div(K, Int64(32))), mma.make_accumulator(0.0f),
      [&](Int32 kt) {
        return std::pair{cp.load(local_tile<128, 32>(a, bm, kt)),
                         cp.load(local_tile<128, 32>(bt, bn, kt))};
      },
      [&](const auto& regs, Int32 stage) {
        cp.store(regs.first, lds.tile<"sA">(stage));
        cp.store(regs.second, lds.tile<"sB">(stage));
      },
      [&](Int32 stage, auto s) {
        gemm(mma, lds.tile<"sA">(stage), lds.tile<"sB">(stage), s);
        return s;
      });
  mma.store(acc, local_tile<128, 128>(C.shape(M, N), bm, bn));
  const ir::Kernel k = kb.finish();

  CHECK(k.lds_bytes == 40960); // 2 buffers x 2 stages x 128 rows x 80 B
  CHECK(k.workgroup_size[0] == 128);
  // One loop at the top level carrying the 4 x 4 accumulator tiles.
  const ir::Op* loop = nullptr;
  for (const ir::Op& op : k.body.ops)
    if (op.opcode == ir::Opcode::for_)
      loop = &op;
  REQUIRE(loop);
  CHECK(loop->results.size() == 16);
  // 2 k steps x 4 x 4 atoms per tile, all inside the loop.
  int wmma_in_loop = 0;
  walk(loop->regions[0], [&](const ir::Op& op) { wmma_in_loop += op.opcode == ir::Opcode::wmma; });
  CHECK(wmma_in_loop == 32);
  CHECK(count_ops(k, [](const ir::Op& op) { return op.opcode == ir::Opcode::wmma; }) == 32);
  // Barriers: after the prologue and once per iteration.
  CHECK(count_ops(k, [](const ir::Op& op) { return op.opcode == ir::Opcode::barrier; }) == 2);
  // 128-bit global loads: 4 (A) + 4 (B) per thread per fetch, prologue + loop, each traced
  // twice: once on the whole-tile path (no masks) and once on the edge path (masked runs).
  const ir::Type v8h = ir::Type::vec(ir::Type::f16(), 8);
  CHECK(count_ops(k, [&](const ir::Op& op) {
          return is_load_of(k, op, v8h, ir::AddrSpace::global) && op.attrs.align == 16;
        }) == 32);
  // The whole-tile path: one if_ per fetched tile (A and B, prologue and loop) whose then
  // region loads its 4 runs with no further branch.
  int whole_paths = 0;
  walk(k.body, [&](const ir::Op& op) {
    if (op.opcode != ir::Opcode::if_ || op.results.size() != 4)
      return;
    int loads = 0, branches = 0;
    walk(op.regions[0], [&](const ir::Op& inner) {
      loads += is_load_of(k, inner, v8h, ir::AddrSpace::global);
      branches += inner.opcode == ir::Opcode::if_;
    });
    whole_paths += loads == 4 && branches == 0;
  });
  CHECK(whole_paths == 4);
  // 128-bit LDS stores (16-byte aligned: the 80-byte pitch keeps rows aligned).
  CHECK(count_ops(k, [&](const ir::Op& op) {
          return op.opcode == ir::Opcode::store && op.attrs.align == 16 &&
                 k.type_of(op.operands[0]).is_ptr(ir::AddrSpace::lds);
        }) == 16);
  // Operand reads from LDS: per k step RM + RN = 8 atom tiles x 1 run of <8 x f16> (the
  // k-contiguous operand map).
  int lds_operand_loads = 0;
  walk(loop->regions[0], [&](const ir::Op& op) {
    lds_operand_loads += is_load_of(k, op, v8h, ir::AddrSpace::lds) ? 1 : 0;
  });
  CHECK(lds_operand_loads == 2 * 8);
}

TEST_CASE("tiled layers reject a kernel with the wrong number of threads") {
  constexpr auto mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<2, 2>);
  KernelBuilder kb("wrong_threads", {64, 1, 1});
  CHECK_THROWS_WITH(mma.wave_coord(), doctest::Contains("has 64 threads but this TiledMMA"));
  constexpr auto cp = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<32, 4>);
  CHECK_THROWS_WITH(cp.thread_coord(), doctest::Contains("thread layout has 128"));
}

TEST_CASE("LDS tiles address padded and swizzled rows") {
  constexpr auto plan = lds_plan(lds_buffer<f16>("s", 16, 64, stages(2), swizzle(2, 3, 3)));
  KernelBuilder kb("lds_tile", {32, 1, 1});
  auto lds = use_lds<plan>(kb);
  const auto t = lds.tile<"s">(1);
  static_assert(decltype(t)::rows == 16 && decltype(t)::cols == 64);
  // Element (2, 9): offset 2*64 + 9 = 137 = 0b10'001'001; bits [6,8) = 2 XOR into [3,5):
  // 137 ^ (2 << 3) = 153. Host folding computes this without any op.
  CHECK(t.element_offset(Int32(2), Int32(9)).constant_value() == 153);
  CHECK(t.element_offset(Int32(0), Int32(9)).constant_value() == 9);
  CHECK(kb.lds_bytes() == 2 * 16 * 64 * 2);
  // A run of 16 elements would be split by a swizzle with base 3 (8-element groups).
  CHECK_THROWS_WITH((void)t.load_run<16>(Int32(0), Int32(0)),
                    doctest::Contains("split by the swizzle"));
}

TEST_CASE(
    "gemm_block_scaled: each atom tile chains its k steps from zero, then one fma per value") {
  using Fp8 = tw::atoms::wmma_f32_16x16x16_fp8_fp8;
  constexpr auto mma = make_tiled_mma(Fp8{}, wave_layout<2, 2>, repeat<4, 4>);
  constexpr auto plan = lds_plan(lds_buffer<e4m3>("sA", 128, 64), lds_buffer<e4m3>("sB", 128, 64),
                                 lds_buffer<f32>("sS", 1, 128));
  KernelBuilder kb("block_scaled", {128, 1, 1});
  auto lds = use_lds<plan>(kb);
  auto acc = mma.make_accumulator(0);
  const auto scales = lds.tile<"sS">();
  // The second 32-wide K block of the 64-wide tiles: k steps 2 and 3.
  gemm_block_scaled(mma, lds.tile<"sA">(), lds.tile<"sB">(), acc, ir::MmaMods{}, 2, 2,
                    [&](const Int32& r, const Int32& c) {
                      return scales.load(Int32(0), r) * scales.load(Int32(0), c);
                    });
  CHECK_THROWS_WITH_AS(
      gemm_block_scaled(mma, lds.tile<"sA">(), lds.tile<"sB">(), acc, ir::MmaMods{}, 3, 2,
                        [](const Int32&, const Int32&) { return Float32(1.0); }),
      "gemm_block_scaled: k steps [3, 5) are outside the tiles' 4 steps", std::invalid_argument);
  const ir::Kernel k = kb.finish();
  // 4 x 4 atom tiles x 2 k steps; each chain starts from a zero accumulator (a splat of 0).
  CHECK(count_ops(k, [](const ir::Op& op) { return op.opcode == ir::Opcode::wmma; }) == 32);
  CHECK(count_ops(k, [](const ir::Op& op) { return op.opcode == ir::Opcode::fma; }) == 128);
  int first_chain_from_zero = 0;
  walk(k.body, [&](const ir::Op& op) {
    if (op.opcode != ir::Opcode::wmma)
      return;
    const ir::Value c = op.operands[2];
    walk(k.body, [&](const ir::Op& def) {
      if (def.opcode == ir::Opcode::splat && !def.results.empty() && def.results[0] == c)
        ++first_chain_from_zero;
    });
  });
  CHECK(first_chain_from_zero == 16);
}

TEST_CASE("the tiled layer's 16-bit operand maps relabel k by one bijection shared by A and B") {
  // Hardware A: lane 17 (half 1), value 5 is k = 8*(2/2) + 4*1 + 2*(2%2) + 1 = 13; the tiled
  // map gives half 1 the k 8..15 in value order: value 5 is k 13 there too, value 2 is k 10
  // (hardware: 8*(1/2) + 4 + 2*(1%2) + 0 = 6).
  constexpr const LaneMap& hw = F32Atom::a_map;
  constexpr const LaneMap& tiled = F32Atom::a_tile_map;
  CHECK(hw.lane_col(17) + hw.value_col[2] == 6);
  CHECK(tiled.lane_col(17) + tiled.value_col[2] == 10);
  CHECK(tiled.lane_row(17) + tiled.value_row[2] == 1);
  constexpr KRelabelling a = k_relabelling(F32Atom::a_map, F32Atom::a_tile_map, true);
  constexpr KRelabelling b = k_relabelling(F32Atom::b_map, F32Atom::b_tile_map, false);
  CHECK(a.valid);
  CHECK(a == b);
  CHECK(a.pi[6] == 10);
  // A map that gives both lane halves the same k (no bijection) is rejected.
  LaneMap broken = F32Atom::a_tile_map;
  broken.value_col[0] = 1;
  broken.value_col[1] = 0;
  broken.thread[1].col_step = 0;
  CHECK_FALSE(k_relabelling(F32Atom::a_map, broken, true).valid);
  // 8-bit operands are already k-contiguous per lane: their tiled map is the hardware one.
  using Fp8 = MmaAtomLanes<tw::atoms::wmma_f32_16x16x16_fp8_fp8>;
  CHECK(k_relabelling(Fp8::a_map, Fp8::a_tile_map, true).pi[5] == 5);
}
