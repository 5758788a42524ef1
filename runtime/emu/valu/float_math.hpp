#pragma once
// Float element access shared by the VALU tables: every float op is written once on double
// and instantiated per element type (f16, f32, f64). Computing in double and rounding once to
// the element type gives the correctly rounded result for +, -, *, sqrt of f16 / f32 inputs
// (double has more than 2p+2 bits for both); fma of f32 uses fmaf directly.
#include <runtime/emu/valu/vop.hpp>

#include <bit>
#include <cmath>
#include <cstdint>

namespace tw::emu::valu {

template <VT T>
inline double get(uint64_t v) {
  if constexpr (T == VT::f32)
    return double(std::bit_cast<float>(uint32_t(v)));
  else if constexpr (T == VT::f16)
    return double(f16_to_float(uint16_t(v)));
  else
    return std::bit_cast<double>(v);
}

template <VT T>
inline uint64_t put(double d) {
  if constexpr (T == VT::f32)
    return std::bit_cast<uint32_t>(static_cast<float>(d));
  else if constexpr (T == VT::f16)
    return double_to_f16(d);
  else
    return std::bit_cast<uint64_t>(d);
}

template <VT T>
constexpr int mantissa_bits() {
  return T == VT::f16 ? 10 : T == VT::f32 ? 23 : 52;
}

// fma / floor / ceil / trunc / nearbyint with the results of the host's libm, bit for bit.
// The lane functions are also built for AVX2 / FMA hosts (vop.hpp, all_lanes_avx2_fma), where
// the compiler makes these single instructions: those round exactly as libm does, but a NaN
// operand can come out with another payload (fma picks another operand's NaN, roundss quiets a
// signalling NaN libm returns as it is). A NaN operand therefore takes libm's own function
// (the libm_* functions are built for the baseline target in float_math.cpp), so every path
// gives the same bits.
double libm_fma(double a, double b, double c);
float libm_fma(float a, float b, float c);
double libm_floor(double a);
double libm_ceil(double a);
double libm_trunc(double a);
double libm_nearbyint(double a);

template <class T>
inline T exact_fma(T a, T b, T c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) [[unlikely]]
    return libm_fma(a, b, c);
  return std::fma(a, b, c);
}
inline double exact_floor(double a) {
  return std::isnan(a) ? libm_floor(a) : std::floor(a);
}
inline double exact_ceil(double a) {
  return std::isnan(a) ? libm_ceil(a) : std::ceil(a);
}
inline double exact_trunc(double a) {
  return std::isnan(a) ? libm_trunc(a) : std::trunc(a);
}
inline double exact_nearbyint(double a) {
  return std::isnan(a) ? libm_nearbyint(a) : std::nearbyint(a);
}

// IEEE-754 2019 maximumNumber / minimumNumber (gfx12 v_max_num / v_min_num): a NaN operand
// yields the other operand; -0 < +0.
inline double max_num(double a, double b) {
  if (std::isnan(a))
    return std::isnan(b) ? std::nan("") : b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double min_num(double a, double b) {
  if (std::isnan(a))
    return std::isnan(b) ? std::nan("") : b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
// maximum / minimum (v_maximum_f32...): NaN propagates.
inline double maximum(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : max_num(a, b);
}
inline double minimum(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : min_num(a, b);
}
// v_med3_num: the median; with a NaN operand, the min_num/max_num of the others.
inline double med3_num(double a, double b, double c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c))
    return min_num(min_num(a, b), c);
  return max_num(min_num(a, b), min_num(max_num(a, b), c));
}

} // namespace tw::emu::valu
