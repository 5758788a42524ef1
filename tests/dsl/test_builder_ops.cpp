// Lane reductions, partitions and register tensors, element-wise maps, chunked LDS buffers.
#include <doctest/doctest.h>

#include <dsl/dsl.hpp>

#include <functional>

using namespace tw::dsl;
namespace ir = tw::ir;

namespace {
int count(const ir::Region& r, ir::Opcode code) {
  int n = 0;
  for (const ir::Op& op : r.ops) {
    n += op.opcode == code;
    for (const ir::Region& sub : op.regions)
      n += count(sub, code);
  }
  return n;
}
std::vector<const ir::Op*> find_all(const ir::Region& r, ir::Opcode code) {
  std::vector<const ir::Op*> out;
  for (const ir::Op& op : r.ops) {
    if (op.opcode == code)
      out.push_back(&op);
    for (const ir::Region& sub : op.regions)
      for (const ir::Op* o : find_all(sub, code))
        out.push_back(o);
  }
  return out;
}
} // namespace

TEST_CASE("lane_reduce over 32 lanes: 4 DPP row_xmask steps and one permlanex16") {
  KernelBuilder kb("reduce_dpp", {32, 1, 1});
  auto [x] = kb.args(gptr<f32>("x"));
  const Float32 v = x.load(lane_id());
  x.store(lane_id(), lane_reduce(v, Reduce::sum));
  const ir::Kernel k = kb.finish();
  const auto dpps = find_all(k.body, ir::Opcode::dpp);
  REQUIRE(dpps.size() == 4);
  // xmask 1, 2, 4, 8: a butterfly inside each row of 16 lanes.
  for (int i = 0; i < 4; ++i)
    CHECK(dpps[i]->attrs.dpp == ir::DppCtrl::row_xmask(1 << i));
  CHECK(count(k.body, ir::Opcode::permlanex16) == 1);
  CHECK(count(k.body, ir::Opcode::add) == 5);
  CHECK(count(k.body, ir::Opcode::bpermute) == 0);
}

TEST_CASE("lane_reduce over 16 lanes stops inside the row, shuffles use 5 bpermutes") {
  KernelBuilder kb("reduce_shuffle", {32, 1, 1});
  auto [x] = kb.args(gptr<f32>("x"));
  const Float32 v = x.load(lane_id());
  x.store(lane_id(), lane_reduce(v, Reduce::max, 16));
  x.store(lane_id() + 32, lane_reduce(v, Reduce::max, 32, Via::shuffle));
  const ir::Kernel k = kb.finish();
  CHECK(count(k.body, ir::Opcode::dpp) == 4);
  CHECK(count(k.body, ir::Opcode::permlanex16) == 0);
  CHECK(count(k.body, ir::Opcode::bpermute) == 5); // masks 1, 2, 4, 8, 16
  CHECK(count(k.body, ir::Opcode::max) == 9);
  CHECK_THROWS_WITH(
      [] {
        KernelBuilder kb2("bad", {32, 1, 1});
        (void)lane_reduce(cast<f32>(thread_id()), Reduce::sum, 12);
      }(),
      doctest::Contains("width 12 must be 2, 4, 8, 16 or 32"));
}

TEST_CASE("local_partition gives each thread a strided share, maps stay in registers") {
  KernelBuilder kb("partition", {256, 1, 1});
  auto [X, rows, cols] =
      kb.args(gtensor<f32>(row_major, "x"), scalar<i64>("rows"), scalar<i64>("cols"));
  const auto tile = local_tile<64, 32>(X.shape(rows, cols), block_id(), 0);
  const auto mine = local_partition(tile, thread_layout<16, 16>, thread_id());
  static_assert(decltype(mine)::rows == 4 && decltype(mine)::cols == 2);
  const auto regs = mine.load();
  mine.store(regs.map([](Float32 v) { return v * 2.0f + 1.0f; }));
  const ir::Kernel k = kb.finish();
  // 8 elements per thread: 8 masked loads and 8 masked stores, 8 fma-like mul + add pairs.
  CHECK(count(k.body, ir::Opcode::load) == 8);
  CHECK(count(k.body, ir::Opcode::store) == 8);
  CHECK(count(k.body, ir::Opcode::mul) >= 8);
  CHECK(count(k.body, ir::Opcode::if_) == 16);
}

TEST_CASE("map over an MMA accumulator applies to all 8 values of each atom tile") {
  KernelBuilder kb("acc_map", {32, 1, 1});
  constexpr auto mma =
      make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<1, 2>);
  auto [D] = kb.args(gtensor<f32>(row_major, "d"));
  const auto acc = mma.make_accumulator(1.0f);
  const auto scaled = map(acc, [](Float32 v) { return v * 3.0f; });
  mma.store(scaled, local_tile<16, 32>(D.shape(16, 32), 0, 0));
  const ir::Kernel k = kb.finish();
  // 2 atom tiles x 8 values: extracted, scaled, rebuilt, stored.
  CHECK(count(k.body, ir::Opcode::extract) == 16 + 16); // map + store
  CHECK(count(k.body, ir::Opcode::build_vector) == 2);
  CHECK(count(k.body, ir::Opcode::mul) >= 16);
  CHECK(count(k.body, ir::Opcode::store) == 16);
}

TEST_CASE("a chunked LDS buffer is walked chunk by chunk") {
  // k: 256 x 64 f16 (32 KiB) with 40000 B of other buffers: two chunks of 128 rows.
  constexpr auto plan =
      lds_plan(lds_buffer<f32>("other", 1, 10000), lds_buffer<f16>("k", 256, 64, chunked(16)));
  using L = Lds<plan>;
  static_assert(L::buffer<"k">().num_chunks == 2 && L::buffer<"k">().chunk_rows == 128);
  KernelBuilder kb("chunks", {128, 1, 1});
  auto [K] = kb.args(gtensor<f16>(row_major, "k", 16));
  auto lds = use_lds<plan>(kb);
  constexpr auto cp = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<16, 8>);
  const auto tensor = K.shape(256, 64);
  const auto sk = lds.tile<"k">();
  static_assert(decltype(sk)::rows == 128);
  for_range(Int32(0), Int32(L::buffer<"k">().num_chunks), [&](Int32 c) {
    copy(cp, local_tile<128, 64>(tensor, c, 0), sk);
    barrier();
  });
  const ir::Kernel k = kb.finish();
  CHECK(k.lds_bytes == 40000 + 16384);
  CHECK(count(k.body, ir::Opcode::for_) == 1);
  // 128 x 64 / (16 rows x 64 cols per pass) = 8 passes of one 128-bit load and store.
  CHECK(count(k.body, ir::Opcode::barrier) == 1);
  CHECK(count(k.body, ir::Opcode::lds_ptr) == 1);
}

TEST_CASE("reduce_rows of an f32 accumulator reduces over the 16 lanes of each half-wave") {
  using Lanes = MmaAtomLanes<tw::atoms::wmma_f32_16x16x16_f16>;
  // C: lane bits 0-3 move the column (16 lanes), bit 4 moves the row by 8.
  static_assert(detail::row_sharing_lanes(Lanes::c_map) == 16);
  KernelBuilder kb("row_max", {32, 1, 1});
  constexpr auto mma =
      make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>, repeat<2, 2>);
  auto [X] = kb.args(gptr<f32>("x"));
  const auto acc = mma.make_accumulator(0.0f);
  const auto m = reduce_rows(acc, Reduce::max);
  static_assert(decltype(m)::rows == 2 && decltype(m)::cols == 8);
  X.store(lane_id(), m(1, 7));
  const ir::Kernel k = kb.finish();
  // All 2 x 8 rows are reduced (tracing is eager), each with one max combining the 2 column
  // tiles, then 4 DPP row_xmask steps (4 more max) and no cross-row permlanex16.
  CHECK(count(k.body, ir::Opcode::dpp) == 16 * 4);
  CHECK(count(k.body, ir::Opcode::permlanex16) == 0);
  CHECK(count(k.body, ir::Opcode::max) == 16 * (1 + 4));
}
