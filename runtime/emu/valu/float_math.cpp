// The libm_* functions of float_math.hpp: out of line, in a file built for the baseline target
// only, so they call the host's libm wherever the callers were built for.
#include <runtime/emu/valu/float_math.hpp>

#include <cmath>

namespace tw::emu::valu {

double libm_fma(double a, double b, double c) {
  return std::fma(a, b, c);
}
float libm_fma(float a, float b, float c) {
  return std::fma(a, b, c);
}
double libm_floor(double a) {
  return std::floor(a);
}
double libm_ceil(double a) {
  return std::ceil(a);
}
double libm_trunc(double a) {
  return std::trunc(a);
}
double libm_nearbyint(double a) {
  return std::nearbyint(a);
}

} // namespace tw::emu::valu
