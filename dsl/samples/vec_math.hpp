#pragma once
// Sample DSL kernel (`tilewave emit vec_math_f16` / `vec_math_bf16`): the element-wise ops of
// Vec on 8-element f16 or bf16 vectors, one vector per thread: out section k (k = 0..7) holds
// a + b, a - b, a * b, fma(a, b, c), max(a, b), min(a, b), exp2(a), rcp(a). On f16 they compile
// to the packed v_pk_* forms (and v_exp_f16 / v_rcp_f16); bf16 goes through f32.
// Arguments: a, b, c, out (T pointers, 16-byte aligned; out holds 8 sections of n), n (i64,
// a multiple of 8). Launch n / 256 workgroups of 32 threads.
#include <dsl/dsl.hpp>

#include <string>

namespace tw::samples {

inline constexpr int vec_math_block = 32;
inline constexpr int vec_math_width = 8;
inline constexpr int vec_math_results = 8;

template <class T>
ir::Kernel build_vec_math() {
  using namespace tw::dsl;
  static_assert(std::same_as<T, f16> || std::same_as<T, bf16>, "vec_math: f16 or bf16");
  constexpr int W = vec_math_width;
  KernelBuilder kb("vec_math_" + std::string(T::name), {vec_math_block, 1, 1});
  auto [a, b, c, out, n] = kb.args(gptr<T>("a", 16), gptr<T>("b", 16), gptr<T>("c", 16),
                                   gptr<T>("out", 16), scalar<i64>("n"));
  const Int64 e =
      (cast<i64>(block_id()) * Int64(vec_math_block) + cast<i64>(thread_id())) * Int64(W);
  const Vec<T, W> va = a.template load_vec<W>(e, 16), vb = b.template load_vec<W>(e, 16),
                  vc = c.template load_vec<W>(e, 16);
  const Vec<T, W> results[vec_math_results] = {va + vb,     va - vb,     va * vb,  fma(va, vb, vc),
                                               max(va, vb), min(va, vb), exp2(va), rcp(va)};
  for (int k = 0; k < vec_math_results; ++k)
    out.store_vec(Int64(k) * n + e, results[k], 16);
  return kb.finish();
}

} // namespace tw::samples
