// Must NOT compile: an accumulator of the f16-accumulating atom used with an f32 TiledMMA.
#include <dsl/dsl.hpp>

using namespace tw::dsl;

void trace() {
  constexpr auto mma32 = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
  constexpr auto mma16 = make_tiled_mma(tw::atoms::wmma_f16_16x16x16_f16{}, wave_layout<1, 1>);
  decltype(mma32)::AFrag a;
  decltype(mma32)::BFrag b;
  auto acc16 = mma16.make_accumulator(0.0);
  gemm(mma32, a, b, acc16);
}
