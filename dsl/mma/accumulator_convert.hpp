#pragma once
// convert_accumulator(mma1, acc1, mma2, fn): the accumulator of another TiledMMA that places C
// exactly like mma1 (same wave layout, repeat and atom C layout; e.g. an int8 product and a bf16
// product over the same output tile), every value fn(v, row, col) of acc1's value at that tile
// position. The new fragment takes acc1's registers once acc1 is dead, so a second product can
// accumulate onto the first one's partial result without both being live:
//   auto f = convert_accumulator(mma_i8, acc, mma_bf16, [&](Int32 v, Int32 r, Int32 c) {
//     return cast<f32>(v) * scale.load(r, c); });
//   gemm(mma_bf16, ta, tb, f);
#include <dsl/mma/accumulator_visit.hpp>

namespace tw::dsl {

template <TiledMmaType TM1, MmaFragmentType FC1, TiledMmaType TM2, class F>
typename std::remove_cvref_t<TM2>::CFrag convert_accumulator(const TM1&, const FC1& acc, const TM2&,
                                                             F&& fn) {
  using T1 = std::remove_cvref_t<TM1>;
  using T2 = std::remove_cvref_t<TM2>;
  using FC2 = typename T2::CFrag;
  using E1 = typename FC1::elem_type;
  using E2 = typename FC2::elem_type;
  static_assert(std::same_as<FC1, typename T1::CFrag>,
                "convert_accumulator: the accumulator does not fit its TiledMMA (another atom "
                "or repeat)");
  static_assert(detail::same_c_placement<T1, T2>(),
                "convert_accumulator: the two TiledMMAs place their C values differently "
                "(another wave layout, repeat or atom C layout)");
  static_assert(std::same_as<std::invoke_result_t<F&, Scalar<E1>, Int32, Int32>, Scalar<E2>>,
                "convert_accumulator: the function must take (value, row, col) and return a "
                "scalar of the target accumulator's element type");
  std::array<std::array<Scalar<E2>, FC2::values_per_tile>, T2::repeat_m * T2::repeat_n> e;
  detail::visit_c_positions<T1>([&](int i, int j, int v, const Int32& r, const Int32& c) {
    e[static_cast<std::size_t>(i * T1::repeat_n + j)][static_cast<std::size_t>(v)] =
        fn(acc.at(i, j)[v], r, c);
  });
  FC2 out;
  for (int i = 0; i < T2::repeat_m; ++i)
    for (int j = 0; j < T2::repeat_n; ++j)
      out.at(i, j) = FC2::vec_type::from(e[static_cast<std::size_t>(i * T2::repeat_n + j)]);
  return out;
}

} // namespace tw::dsl
