// Must NOT compile: an accumulator whose k rows are split over two waves (wave_layout<2, 1>)
// cannot become a register operand of the next product (each wave lacks half of k).
#include <dsl/dsl.hpp>

using namespace tw::dsl;

void trace() {
  constexpr auto s_mma =
      make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<2, 1>, repeat<1, 1>);
  constexpr auto o_mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
  auto acc = s_mma.make_accumulator(0.0f);
  auto b = accumulator_as_operand<MmaOperand::B>(s_mma, acc, o_mma, 0);
  (void)b;
}
