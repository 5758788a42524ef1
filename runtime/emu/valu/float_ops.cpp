// Float arithmetic of VOP1 / VOP2 / VOP3 on f16, f32 and f64 (one definition per op on
// double, instantiated per element type), plus the division helpers.
#include <runtime/emu/valu/float_math.hpp>

#include <cmath>
#include <numbers>

namespace tw::emu::valu {
namespace {

template <VT T, double (*Op)(double)>
uint64_t unary(Lane& l) {
  return put<T>(Op(get<T>(l.s[0])));
}
template <VT T, double (*Op)(double, double)>
uint64_t binary(Lane& l) {
  return put<T>(Op(get<T>(l.s[0]), get<T>(l.s[1])));
}
template <VT T, double (*Op)(double, double, double)>
uint64_t ternary(Lane& l) {
  return put<T>(Op(get<T>(l.s[0]), get<T>(l.s[1]), get<T>(l.s[2])));
}

double add(double a, double b) {
  return a + b;
}
double sub(double a, double b) {
  return a - b;
}
double subrev(double a, double b) {
  return b - a;
}
double mul(double a, double b) {
  return a * b;
}
// DX9 rules: 0 * anything (also inf, NaN) is 0.
double mul_dx9(double a, double b) {
  return a == 0 || b == 0 ? 0.0 : a * b;
}
double fma_dx9(double a, double b, double c) {
  return a == 0 || b == 0 ? c : exact_fma(a, b, c);
}
double fma3(double a, double b, double c) {
  return exact_fma(a, b, c);
}
double max3(double a, double b, double c) {
  return max_num(max_num(a, b), c);
}
double min3(double a, double b, double c) {
  return min_num(min_num(a, b), c);
}
double maximum3(double a, double b, double c) {
  return maximum(maximum(a, b), c);
}
double minimum3(double a, double b, double c) {
  return minimum(minimum(a, b), c);
}
double maxmin(double a, double b, double c) {
  return min_num(max_num(a, b), c);
}
double minmax(double a, double b, double c) {
  return max_num(min_num(a, b), c);
}
double maximumminimum(double a, double b, double c) {
  return minimum(maximum(a, b), c);
}
double minimummaximum(double a, double b, double c) {
  return maximum(minimum(a, b), c);
}

// Transcendentals: the hardware is accurate to about 1 ulp; the emulator rounds the exact
// value. v_sin / v_cos take the angle in revolutions.
double rcp(double a) {
  return 1.0 / a;
}
double rsq(double a) {
  return 1.0 / std::sqrt(a);
}
double sqrt_(double a) {
  return std::sqrt(a);
}
double exp2_(double a) {
  return std::exp2(a);
}
double log2_(double a) {
  return a == 0 ? -INFINITY : std::log2(a);
}
double sin_rev(double a) {
  return std::isinf(a) ? std::nan("") : std::sin(2 * std::numbers::pi * std::fmod(a, 1.0));
}
double cos_rev(double a) {
  return std::isinf(a) ? std::nan("") : std::cos(2 * std::numbers::pi * std::fmod(a, 1.0));
}
double floor_(double a) {
  return exact_floor(a);
}
double ceil_(double a) {
  return exact_ceil(a);
}
double trunc_(double a) {
  return exact_trunc(a);
}
double rndne(double a) {
  return exact_nearbyint(a);
}
double fract(double a) {
  if (std::isinf(a))
    return std::nan("");
  return std::isnan(a) ? a : std::fmin(a - std::floor(a), std::nextafter(1.0, 0.0));
}
double frexp_mant(double a) {
  if (std::isnan(a) || std::isinf(a))
    return a;
  int e;
  return std::frexp(a, &e);
}

template <VT T>
uint64_t ldexp_op(Lane& l) {
  const int32_t e = T == VT::f16 ? int32_t(int16_t(uint16_t(l.s[1]))) : int32_t(uint32_t(l.s[1]));
  return put<T>(std::ldexp(get<T>(l.s[0]), std::clamp(e, -2000, 2000)));
}
template <VT T>
uint64_t frexp_exp(Lane& l) {
  const double a = get<T>(l.s[0]);
  if (std::isnan(a) || std::isinf(a) || a == 0)
    return 0;
  int e;
  std::frexp(a, &e);
  return uint32_t(e) & (T == VT::f16 ? 0xffffu : 0xffffffffu);
}

template <VT T>
int exponent_of(uint64_t bits) {
  if constexpr (T == VT::f32)
    return int((bits >> 23) & 0xff);
  else
    return int((bits >> 52) & 0x7ff);
}

// v_div_scale: scales numerator and denominator of a division away from the ranges where
// the reciprocal iteration loses accuracy; VCC tells v_div_fmas to undo a quotient scale.
template <VT T>
uint64_t div_scale(Lane& l) {
  constexpr bool f32 = T == VT::f32;
  constexpr int kScale = f32 ? 64 : 128;
  constexpr int kBias = f32 ? 127 : 1023;
  constexpr int kMant = mantissa_bits<T>();
  const double s0 = get<T>(l.s[0]), den = get<T>(l.s[1]), num = get<T>(l.s[2]);
  const int eden = exponent_of<T>(l.s[1]), enum_ = exponent_of<T>(l.s[2]);
  const double min_normal = f32 ? 0x1p-126 : 0x1p-1022;
  auto is_denorm = [&](double x) { return x != 0 && std::fabs(x) < min_normal; };
  l.mask_out = false;
  if (num == 0 || den == 0 || std::isnan(num) || std::isnan(den) || std::isinf(num) ||
      std::isinf(den))
    return put<T>(s0);                    // special cases are settled by v_div_fixup
  if (enum_ - eden >= (f32 ? 96 : 768)) { // quotient near overflow: shrink it, fmas grows it
    l.mask_out = true;
    return put<T>(s0 == den ? std::ldexp(s0, kScale) : s0);
  }
  if (is_denorm(den))
    return put<T>(std::ldexp(s0, kScale));
  const double q = num / den;
  const bool rcp_denorm = std::fabs(1.0 / den) < min_normal;
  const bool q_denorm = std::fabs(q) < min_normal;
  if (rcp_denorm && q_denorm) { // quotient near underflow: grow it, fmas shrinks it
    l.mask_out = true;
    return put<T>(s0 == den ? std::ldexp(s0, -kScale) : s0);
  }
  if (rcp_denorm)
    return put<T>(std::ldexp(s0, -kScale));
  if (q_denorm) {
    l.mask_out = true;
    return put<T>(s0 == num ? std::ldexp(s0, kScale) : s0);
  }
  if (enum_ <= kMant) // tiny numerator: scale both
    return put<T>(std::ldexp(s0, kScale));
  (void)kBias;
  return put<T>(s0);
}

template <VT T>
uint64_t div_fmas(Lane& l) {
  constexpr bool f32 = T == VT::f32;
  const double r = exact_fma(get<T>(l.s[0]), get<T>(l.s[1]), get<T>(l.s[2]));
  if (!l.mask_in)
    return f32 ? put<T>(double(exact_fma(float(get<T>(l.s[0])), float(get<T>(l.s[1])),
                                         float(get<T>(l.s[2])))))
               : put<T>(r);
  // Undo the quotient scale of v_div_scale: a large quotient was shrunk, a small one grown.
  const bool large = exponent_of<T>(l.s[2]) >= (f32 ? 127 : 1023);
  return put<T>(std::ldexp(r, (large ? 1 : -1) * (f32 ? 64 : 128)));
}

// v_div_fixup(q, den, num): IEEE special cases of num / den, else q with the right sign.
template <VT T>
uint64_t div_fixup(Lane& l) {
  const double q = get<T>(l.s[0]), den = get<T>(l.s[1]), num = get<T>(l.s[2]);
  const bool neg = std::signbit(den) != std::signbit(num);
  if (std::isnan(num))
    return put<T>(num);
  if (std::isnan(den))
    return put<T>(den);
  if ((den == 0 && num == 0) || (std::isinf(den) && std::isinf(num)))
    return put<T>(std::nan(""));
  if (den == 0 || std::isinf(num))
    return put<T>(neg ? -INFINITY : INFINITY);
  if (std::isinf(den) || num == 0)
    return put<T>(neg ? -0.0 : 0.0);
  if (std::isnan(q))
    return put<T>(neg ? -INFINITY : INFINITY);
  return put<T>(neg ? -std::fabs(q) : std::fabs(q));
}

// Cube map coordinates of the direction (x, y, z): face id, s, t and twice the major axis.
enum class CubeMajor { x, y, z };
CubeMajor cube_major(double x, double y, double z) {
  if (std::fabs(z) >= std::fabs(x) && std::fabs(z) >= std::fabs(y))
    return CubeMajor::z;
  return std::fabs(y) >= std::fabs(x) ? CubeMajor::y : CubeMajor::x;
}
double cubeid(double x, double y, double z) {
  switch (cube_major(x, y, z)) {
  case CubeMajor::z:
    return z < 0 ? 5.0 : 4.0;
  case CubeMajor::y:
    return y < 0 ? 3.0 : 2.0;
  default:
    return x < 0 ? 1.0 : 0.0;
  }
}
double cubesc(double x, double y, double z) {
  switch (cube_major(x, y, z)) {
  case CubeMajor::z:
    return z < 0 ? -x : x;
  case CubeMajor::y:
    return x;
  default:
    return x < 0 ? z : -z;
  }
}
double cubetc(double x, double y, double z) {
  switch (cube_major(x, y, z)) {
  case CubeMajor::y:
    return y < 0 ? -z : z;
  default:
    return -y;
  }
}
double cubema(double x, double y, double z) {
  switch (cube_major(x, y, z)) {
  case CubeMajor::z:
    return 2 * z;
  case CubeMajor::y:
    return 2 * y;
  default:
    return 2 * x;
  }
}

uint64_t fma_f32(Lane& l) {
  return f32_bits(
      exact_fma(as_f32(uint32_t(l.s[0])), as_f32(uint32_t(l.s[1])), as_f32(uint32_t(l.s[2]))));
}

// fma_f32 as a lane type with a call-free form for the all-lanes loops (vop.hpp, Exceptional):
// std::fma without the NaN test, which exact_fma needs only for a NaN operand.
struct FmaF32 {
  uint64_t operator()(Lane& l) const { return fma_f32(l); }
  static uint64_t fast(const Lane& l) {
    return f32_bits(
        std::fma(as_f32(uint32_t(l.s[0])), as_f32(uint32_t(l.s[1])), as_f32(uint32_t(l.s[2]))));
  }
  static bool exceptional(const Lane& l) {
    return std::isnan(as_f32(uint32_t(l.s[0]))) || std::isnan(as_f32(uint32_t(l.s[1]))) ||
           std::isnan(as_f32(uint32_t(l.s[2])));
  }
};

#define TW_UN(T, name, op) vop(name, T, {T}, 1, Form::plain, lane<&unary<T, op>>)
#define TW_BIN(T, name, op) vop(name, T, {T, T}, 2, Form::plain, lane<&binary<T, op>>)
#define TW_TER(T, name, op) vop(name, T, {T, T, T}, 3, Form::plain, lane<&ternary<T, op>>)
#define TW_UN_ALL(base, op)                                                                        \
  TW_UN(VT::f32, "v_" base "_f32", op), TW_UN(VT::f16, "v_" base "_f16", op),                      \
      TW_UN(VT::f64, "v_" base "_f64", op)
#define TW_UN_32_16(base, op)                                                                      \
  TW_UN(VT::f32, "v_" base "_f32", op), TW_UN(VT::f16, "v_" base "_f16", op)
#define TW_BIN_ALL(base, op)                                                                       \
  TW_BIN(VT::f32, "v_" base "_f32", op), TW_BIN(VT::f16, "v_" base "_f16", op),                    \
      TW_BIN(VT::f64, "v_" base "_f64", op)
#define TW_BIN_32_16(base, op)                                                                     \
  TW_BIN(VT::f32, "v_" base "_f32", op), TW_BIN(VT::f16, "v_" base "_f16", op)
#define TW_TER_32_16(base, op)                                                                     \
  TW_TER(VT::f32, "v_" base "_f32", op), TW_TER(VT::f16, "v_" base "_f16", op)

const VopSpec kFloatSpecs[] = {
    TW_BIN_ALL("add", add),
    TW_BIN_ALL("mul", mul),
    TW_BIN_32_16("sub", sub),
    TW_BIN_32_16("subrev", subrev),
    TW_BIN_ALL("max_num", max_num),
    TW_BIN_ALL("min_num", min_num),
    TW_BIN_ALL("maximum", maximum),
    TW_BIN_ALL("minimum", minimum),
    TW_BIN(VT::f32, "v_mul_dx9_zero_f32", mul_dx9),
    TW_TER(VT::f32, "v_fma_dx9_zero_f32", fma_dx9),
    vop("v_fma_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::plain, FmaF32{}),
    TW_TER(VT::f16, "v_fma_f16", fma3),
    TW_TER(VT::f64, "v_fma_f64", fma3),
    // fmaak / fmamk: the printed order is already src0 * src1 + src2 (K in its place).
    vop("v_fmaak_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::plain, FmaF32{}),
    vop("v_fmamk_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::plain, FmaF32{}),
    TW_TER(VT::f16, "v_fmaak_f16", fma3),
    TW_TER(VT::f16, "v_fmamk_f16", fma3),
    vop("v_fmac_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::accumulate, FmaF32{}),
    vop("v_fmac_f16", VT::f16, {VT::f16, VT::f16, VT::f16}, 3, Form::accumulate,
        lane<&ternary<VT::f16, fma3>>),
    vop("v_fmac_f64", VT::f64, {VT::f64, VT::f64, VT::f64}, 3, Form::accumulate,
        lane<&ternary<VT::f64, fma3>>),
    TW_TER_32_16("med3_num", med3_num),
    TW_TER(VT::f32, "v_cubeid_f32", cubeid),
    TW_TER(VT::f32, "v_cubesc_f32", cubesc),
    TW_TER(VT::f32, "v_cubetc_f32", cubetc),
    TW_TER(VT::f32, "v_cubema_f32", cubema),
    TW_TER_32_16("max3_num", max3),
    TW_TER_32_16("min3_num", min3),
    TW_TER_32_16("maximum3", maximum3),
    TW_TER_32_16("minimum3", minimum3),
    TW_TER_32_16("maxmin_num", maxmin),
    TW_TER_32_16("minmax_num", minmax),
    TW_TER_32_16("maximumminimum", maximumminimum),
    TW_TER_32_16("minimummaximum", minimummaximum),
    TW_UN_ALL("rcp", rcp),
    TW_UN(VT::f32, "v_rcp_iflag_f32", rcp),
    TW_UN_ALL("rsq", rsq),
    TW_UN_ALL("sqrt", sqrt_),
    TW_UN_32_16("exp", exp2_),
    TW_UN_32_16("log", log2_),
    TW_UN_32_16("sin", sin_rev),
    TW_UN_32_16("cos", cos_rev),
    // gfx12 pseudo-scalar transcendentals: VALU ops with an SGPR destination and scalar
    // sources (the compiler's form of a uniform exp / log / rcp / rsq / sqrt); same math.
    TW_UN(VT::f32, "v_s_exp_f32", exp2_),
    TW_UN(VT::f16, "v_s_exp_f16", exp2_),
    TW_UN(VT::f32, "v_s_log_f32", log2_),
    TW_UN(VT::f16, "v_s_log_f16", log2_),
    TW_UN(VT::f32, "v_s_rcp_f32", rcp),
    TW_UN(VT::f16, "v_s_rcp_f16", rcp),
    TW_UN(VT::f32, "v_s_rsq_f32", rsq),
    TW_UN(VT::f16, "v_s_rsq_f16", rsq),
    TW_UN(VT::f32, "v_s_sqrt_f32", sqrt_),
    TW_UN(VT::f16, "v_s_sqrt_f16", sqrt_),
    TW_UN_ALL("floor", floor_),
    TW_UN_ALL("ceil", ceil_),
    TW_UN_ALL("trunc", trunc_),
    TW_UN_ALL("rndne", rndne),
    TW_UN_ALL("fract", fract),
    TW_UN_ALL("frexp_mant", frexp_mant),
    vop("v_frexp_exp_i32_f32", VT::b32, {VT::f32}, 1, Form::plain, lane<&frexp_exp<VT::f32>>),
    vop("v_frexp_exp_i32_f64", VT::b32, {VT::f64}, 1, Form::plain, lane<&frexp_exp<VT::f64>>),
    vop("v_frexp_exp_i16_f16", VT::b16, {VT::f16}, 1, Form::plain, lane<&frexp_exp<VT::f16>>),
    vop("v_ldexp_f32", VT::f32, {VT::f32, VT::b32}, 2, Form::plain, lane<&ldexp_op<VT::f32>>),
    vop("v_ldexp_f64", VT::f64, {VT::f64, VT::b32}, 2, Form::plain, lane<&ldexp_op<VT::f64>>),
    vop("v_ldexp_f16", VT::f16, {VT::f16, VT::b16}, 2, Form::plain, lane<&ldexp_op<VT::f16>>),
    vop("v_div_scale_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::carry_out,
        lane<&div_scale<VT::f32>>),
    vop("v_div_scale_f64", VT::f64, {VT::f64, VT::f64, VT::f64}, 3, Form::carry_out,
        lane<&div_scale<VT::f64>>),
    vop("v_div_fmas_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::mask_in,
        lane<&div_fmas<VT::f32>>),
    vop("v_div_fmas_f64", VT::f64, {VT::f64, VT::f64, VT::f64}, 3, Form::mask_in,
        lane<&div_fmas<VT::f64>>),
    vop("v_div_fixup_f32", VT::f32, {VT::f32, VT::f32, VT::f32}, 3, Form::plain,
        lane<&div_fixup<VT::f32>>),
    vop("v_div_fixup_f64", VT::f64, {VT::f64, VT::f64, VT::f64}, 3, Form::plain,
        lane<&div_fixup<VT::f64>>),
    vop("v_div_fixup_f16", VT::f16, {VT::f16, VT::f16, VT::f16}, 3, Form::plain,
        lane<&div_fixup<VT::f16>>),
};

#undef TW_UN
#undef TW_BIN
#undef TW_TER
#undef TW_UN_ALL
#undef TW_UN_32_16
#undef TW_BIN_ALL
#undef TW_BIN_32_16
#undef TW_TER_32_16

} // namespace

void register_float_ops(HandlerTable& t) {
  register_specs(t, kFloatSpecs);
}

} // namespace tw::emu::valu
