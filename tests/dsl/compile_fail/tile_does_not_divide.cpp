// Must NOT compile: a 100-row tile cannot be split over a 32-row thread layout.
#include <dsl/dsl.hpp>

using namespace tw::dsl;

void trace(const GlobalTensor<f16>& t) {
  constexpr auto cp = make_tiled_copy<f16>(tw::atoms::global_load_b128{}, thread_layout<32, 4>);
  (void)cp.load(local_tile<100, 32>(t, 0, 0));
}
