#include <kernels/gemm/blocks/grouped_problem.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <cstddef>

namespace tw::kernels::gemm_kernel {

using namespace tw::dsl;

GroupedProblem grouped_problem(const GlobalPtr<i64>& table, const Int64& rows,
                               const Int64& search_steps, const Int32& workgroup, int tile_cols) {
  const Int64 wg = cast<i64>(workgroup);
  const auto field = [&](const Int64& row, std::size_t offset) {
    return table.load(row * Int64(sizeof(GemmGroupRow) / 8) + Int64(int64_t(offset / 8)));
  };
  const auto [g, g_end] = for_range(
      Int64(0), search_steps, Int64(1), carry(Int64(0), rows), [&](Int64, Int64 lo, Int64 hi) {
        const Int64 mid = (lo + hi) / Int64(2);
        const Bool at_or_after = field(mid, offsetof(GemmGroupRow, tile_begin)) <= wg;
        return carry(select(at_or_after, mid, lo), select(at_or_after, hi, mid));
      });
  (void)g_end;
  GroupedProblem p;
  p.a = field(g, offsetof(GemmGroupRow, a));
  p.b = field(g, offsetof(GemmGroupRow, b));
  p.out = field(g, offsetof(GemmGroupRow, out));
  p.bias = field(g, offsetof(GemmGroupRow, bias));
  p.scale_a = field(g, offsetof(GemmGroupRow, scale_a));
  p.scale_b = field(g, offsetof(GemmGroupRow, scale_b));
  p.m = field(g, offsetof(GemmGroupRow, m));
  p.n = field(g, offsetof(GemmGroupRow, n));
  p.k = field(g, offsetof(GemmGroupRow, k));
  p.lda = field(g, offsetof(GemmGroupRow, lda));
  p.ldb = field(g, offsetof(GemmGroupRow, ldb));
  p.ldo = field(g, offsetof(GemmGroupRow, ldo));
  const Int64 local = wg - field(g, offsetof(GemmGroupRow, tile_begin));
  const Int64 tiles_n = ceil_div(p.n, Int64(tile_cols));
  const Int64 tile_m = local / tiles_n;
  p.tile_m = cast<i32>(tile_m);
  p.tile_n = cast<i32>(local - tile_m * tiles_n);
  return p;
}

} // namespace tw::kernels::gemm_kernel
