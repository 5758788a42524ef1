// Must NOT compile: an accumulator whose columns (the k of the exchanged A operand) are split
// over two waves (wave_layout<1, 2>) cannot be exchanged in registers (each wave lacks half of k).
#include <dsl/dsl.hpp>
#include <dsl/mma/accumulator_exchange.hpp>

using namespace tw::dsl;

void trace() {
  constexpr auto s_mma =
      make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 2>, repeat<1, 1>);
  constexpr auto o_mma = make_tiled_mma(tw::atoms::wmma_f32_16x16x16_f16{}, wave_layout<1, 1>);
  auto acc = s_mma.make_accumulator(0.0f);
  auto a = accumulator_as_operand_exchanged<MmaOperand::A>(s_mma, acc, o_mma, 0);
  (void)a;
}
