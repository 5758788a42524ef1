// tw::dsl::ops is not brought in by `using namespace tw::dsl;`, yet calls on DSL values read
// unqualified: copy, gemm, store, map, max, select and the math functions are found by
// argument-dependent lookup from their arguments (dsl/support/ops_namespace.hpp).
#include <tilewave.hpp>

#include <doctest/doctest.h>

using namespace tw::dsl;

namespace {

int count(const tw::ir::Region& r, tw::ir::Opcode op) {
  int n = 0;
  for (const tw::ir::Op& o : r.ops) {
    n += o.opcode == op;
    for (const tw::ir::Region& inner : o.regions)
      n += count(inner, op);
  }
  return n;
}

} // namespace

TEST_CASE("copy, gemm, map, store, max, select and exp2 are found from their arguments") {
  KernelBuilder kb("ops_by_adl", {32, 1, 1});
  auto [A, C] = kb.args(gtensor<f16>(row_major, "a", 16), gtensor<f32>(row_major, "c", 16));
  constexpr auto plan = lds_plan(lds_buffer<f16>("s", 16, 16));
  auto lds = use_lds<plan>(kb);
  constexpr auto cp = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<16, 2>);
  const auto sa = lds.tile<"s">();
  copy(cp, local_tile<16, 16>(A.shape(16, 16), 0, 0), sa);
  barrier();
  constexpr auto mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
  auto acc = mma.make_accumulator(0.0f);
  gemm(mma, sa, sa, acc);
  const auto relu =
      map(acc, [](const Float32& v) { return select(v > 0.0f, exp2(v), max(v, -1.0f)); });
  store(mma, relu, local_tile<16, 16>(C.shape(16, 16), 0, 0));
  const tw::ir::Kernel k = kb.finish();
  CHECK(count(k.body, tw::ir::Opcode::wmma) == 1);
  CHECK(count(k.body, tw::ir::Opcode::exp2) == 8); // one per accumulator value of the lane
  CHECK(count(k.body, tw::ir::Opcode::max) == 8);
  CHECK(count(k.body, tw::ir::Opcode::select) == 8);
}
