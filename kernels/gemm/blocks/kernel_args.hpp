#pragma once
// The GEMM composition's kernel arguments (one signature for every kernel of the family: the
// launch code fills what a configuration uses, gemm_launch.hpp) and the workgroup's output
// tile. In the grouped mode the operands, sizes, strides and tile are this workgroup's
// problem's (blocks/grouped_problem.hpp) instead of the arguments'.
#include <kernels/gemm/blocks/grouped_problem.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/dsl.hpp>

#include <stdexcept>
#include <tuple>

namespace tw::kernels::gemm_kernel {

// AS / BS: a's and b's element types in global memory.
template <class AS, class BS>
struct GemmArgs {
  int a_align = 0, b_align = 0; // what the a / b pointers promise (16 bytes or the element's)
  dsl::GlobalPtr<AS> a;
  dsl::GlobalPtr<BS> b;
  dsl::GlobalPtr<dsl::u8> out, c, bias;
  dsl::GlobalPtr<dsl::f32> scale_a, scale_b, scale_out;
  dsl::Int64 m, n, k, lda, ldb, ldo, ldc, ld_scale_a, ld_scale_b;
  dsl::Float32 alpha, beta;
  dsl::GlobalPtr<dsl::u8> lora_t, lora_up;
  dsl::Int64 lora_rank, ld_lora_t, ld_lora_up;
  dsl::Float32 lora_scale;
  dsl::GlobalPtr<dsl::i64> groups;
  dsl::Int64 group_count, group_search_steps;
  dsl::GlobalPtr<dsl::u8> workspace;
  dsl::Int64 split_count, k_tiles_per_split;
  dsl::Int32 tile_m, tile_n; // the workgroup's output tile (block tiles along m and n)
};

// Declares the arguments on `kb` and finds the workgroup's tile (and, grouped, its problem).
template <class AS, class BS>
GemmArgs<AS, BS> gemm_args(dsl::KernelBuilder& kb, const GemmKernelSpec& s, int block_n) {
  using namespace tw::dsl;
  GemmArgs<AS, BS> g;
  g.a_align = s.a_vec_aligned ? 16 : elem_bytes<AS>();
  g.b_align = s.b_vec_aligned ? 16 : elem_bytes<BS>();
  std::tie(g.a, g.b, g.out, g.c, g.bias, g.scale_a, g.scale_b, g.scale_out, g.m, g.n, g.k, g.lda,
           g.ldb, g.ldo, g.ldc, g.ld_scale_a, g.ld_scale_b, g.alpha, g.beta, g.lora_t, g.lora_up,
           g.lora_rank, g.ld_lora_t, g.ld_lora_up, g.lora_scale, g.groups, g.group_count,
           g.group_search_steps, g.workspace, g.split_count, g.k_tiles_per_split) =
      kb.args(gptr<AS>("a", g.a_align), gptr<BS>("b", g.b_align), gptr<u8>("out"), gptr<u8>("c"),
              gptr<u8>("bias"), gptr<f32>("scale_a"), gptr<f32>("scale_b"), gptr<f32>("scale_out"),
              scalar<i64>("m"), scalar<i64>("n"), scalar<i64>("k"), scalar<i64>("lda"),
              scalar<i64>("ldb"), scalar<i64>("ldo"), scalar<i64>("ldc"), scalar<i64>("ld_scale_a"),
              scalar<i64>("ld_scale_b"), scalar<f32>("alpha"), scalar<f32>("beta"),
              gptr<u8>("lora_t"), gptr<u8>("lora_up"), scalar<i64>("lora_rank"),
              scalar<i64>("ld_lora_t"), scalar<i64>("ld_lora_up"), scalar<f32>("lora_scale"),
              gptr<i64>("groups"), scalar<i64>("group_count"), scalar<i64>("group_search_steps"),
              gptr<u8>("workspace"), scalar<i64>("split_k"), scalar<i64>("k_tiles_per_split"));
  if (s.split_k != SplitKPass::none && s.grouped)
    throw std::invalid_argument("gemm kernel: split-K does not combine with the grouped mode");
  g.tile_m = block_id(ir::Dim::x);
  g.tile_n = block_id(ir::Dim::y);
  if (s.grouped) {
    const GroupedProblem p =
        grouped_problem(g.groups, g.group_count, g.group_search_steps, g.tile_m, block_n);
    g.a = GlobalPtr<AS>::from_address(p.a, g.a_align);
    g.b = GlobalPtr<BS>::from_address(p.b, g.b_align);
    g.out = GlobalPtr<u8>::from_address(p.out);
    g.bias = GlobalPtr<u8>::from_address(p.bias);
    g.scale_a = GlobalPtr<f32>::from_address(p.scale_a);
    g.scale_b = GlobalPtr<f32>::from_address(p.scale_b);
    std::tie(g.m, g.n, g.k, g.lda, g.ldb, g.ldo) = std::tie(p.m, p.n, p.k, p.lda, p.ldb, p.ldo);
    std::tie(g.tile_m, g.tile_n) = std::tie(p.tile_m, p.tile_n);
  }
  return g;
}

} // namespace tw::kernels::gemm_kernel
