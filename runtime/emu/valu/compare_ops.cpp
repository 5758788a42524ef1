// VOPC: v_cmp_* write a lane mask to VCC or an SGPR (0 for inactive lanes), v_cmpx_* write
// it to EXEC; v_cmp_class tests a value against a mask of float classes.
#include <runtime/emu/valu/float_math.hpp>

#include <cmath>
#include <deque>
#include <string>
#include <vector>

namespace tw::emu::valu {
namespace {

enum Cond { F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, T, NE };

template <Cond C, class V>
bool holds(V a, V b) {
  if constexpr (C == F)
    return false;
  else if constexpr (C == LT)
    return a < b;
  else if constexpr (C == EQ)
    return a == b;
  else if constexpr (C == LE)
    return a <= b;
  else if constexpr (C == GT)
    return a > b;
  else if constexpr (C == LG)
    return a < b || a > b;
  else if constexpr (C == GE)
    return a >= b;
  else if constexpr (C == O)
    return !std::isnan(double(a)) && !std::isnan(double(b));
  else if constexpr (C == U)
    return std::isnan(double(a)) || std::isnan(double(b));
  else if constexpr (C == NGE)
    return !(a >= b);
  else if constexpr (C == NLG)
    return !(a < b || a > b);
  else if constexpr (C == NGT)
    return !(a > b);
  else if constexpr (C == NLE)
    return !(a <= b);
  else if constexpr (C == NEQ)
    return !(a == b);
  else if constexpr (C == NLT)
    return !(a < b);
  else if constexpr (C == NE)
    return a != b;
  else
    return true;
}

// Integer element of width / signedness Ty from the raw source bits.
enum class IntTy { i16, u16, i32, u32, i64, u64 };
template <IntTy Ty>
int64_t int_value(uint64_t v) {
  if constexpr (Ty == IntTy::i16)
    return int16_t(uint16_t(v));
  else if constexpr (Ty == IntTy::u16)
    return uint16_t(v);
  else if constexpr (Ty == IntTy::i32)
    return int32_t(uint32_t(v));
  else if constexpr (Ty == IntTy::u32)
    return uint32_t(v);
  else
    return int64_t(v);
}

template <Cond C, VT Ty>
uint64_t float_cmp(Lane& l) {
  l.mask_out = holds<C>(get<Ty>(l.s[0]), get<Ty>(l.s[1]));
  return 0;
}
template <Cond C, IntTy Ty>
uint64_t int_cmp(Lane& l) {
  if constexpr (Ty == IntTy::u64)
    l.mask_out = holds<C>(l.s[0], l.s[1]);
  else
    l.mask_out = holds<C>(int_value<Ty>(l.s[0]), int_value<Ty>(l.s[1]));
  return 0;
}

// Class bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
// 8 +normal, 9 +inf.
template <VT Ty>
uint64_t class_cmp(Lane& l) {
  constexpr int mant = mantissa_bits<Ty>();
  constexpr int exp_bits = Ty == VT::f16 ? 5 : Ty == VT::f32 ? 8 : 11;
  const uint64_t v = l.s[0];
  const bool neg = (v >> (mant + exp_bits)) & 1;
  const uint64_t e = (v >> mant) & ((1ull << exp_bits) - 1);
  const uint64_t m = v & ((1ull << mant) - 1);
  int cls;
  if (e == (1ull << exp_bits) - 1)
    cls = m == 0 ? (neg ? 2 : 9) : ((m >> (mant - 1)) & 1) ? 1 : 0;
  else if (e == 0)
    cls = m == 0 ? (neg ? 5 : 6) : (neg ? 4 : 7);
  else
    cls = neg ? 3 : 8;
  l.mask_out = (l.s[1] >> cls) & 1;
  return 0;
}

struct Registry {
  std::deque<std::string> names;
  std::vector<VopSpec> specs;
  template <LaneFn Fn>
  void add(std::string name, VT src) {
    for (bool x : {false, true}) {
      names.push_back((x ? "v_cmpx_" : "v_cmp_") + name);
      specs.push_back(vop(names.back(), VT::none, {src, src}, 2,
                          x ? Form::compare_x : Form::compare, lane<Fn>));
    }
  }
};

template <Cond C>
void add_float(Registry& r, const char* cond) {
  r.template add<&float_cmp<C, VT::f16>>(std::string(cond) + "_f16", VT::f16);
  r.template add<&float_cmp<C, VT::f32>>(std::string(cond) + "_f32", VT::f32);
  r.template add<&float_cmp<C, VT::f64>>(std::string(cond) + "_f64", VT::f64);
}
template <Cond C>
void add_int(Registry& r, const char* cond) {
  r.template add<&int_cmp<C, IntTy::i16>>(std::string(cond) + "_i16", VT::b16);
  r.template add<&int_cmp<C, IntTy::u16>>(std::string(cond) + "_u16", VT::b16);
  r.template add<&int_cmp<C, IntTy::i32>>(std::string(cond) + "_i32", VT::b32);
  r.template add<&int_cmp<C, IntTy::u32>>(std::string(cond) + "_u32", VT::b32);
  r.template add<&int_cmp<C, IntTy::i64>>(std::string(cond) + "_i64", VT::b64);
  r.template add<&int_cmp<C, IntTy::u64>>(std::string(cond) + "_u64", VT::b64);
}

const Registry& registry() {
  static const Registry r = [] {
    Registry g;
    add_float<F>(g, "f"), add_float<LT>(g, "lt"), add_float<EQ>(g, "eq"), add_float<LE>(g, "le");
    add_float<GT>(g, "gt"), add_float<LG>(g, "lg"), add_float<GE>(g, "ge"), add_float<O>(g, "o");
    add_float<U>(g, "u"), add_float<NGE>(g, "nge"), add_float<NLG>(g, "nlg");
    add_float<NGT>(g, "ngt"), add_float<NLE>(g, "nle"), add_float<NEQ>(g, "neq");
    add_float<NLT>(g, "nlt"), add_float<T>(g, "t");
    add_int<F>(g, "f"), add_int<LT>(g, "lt"), add_int<EQ>(g, "eq"), add_int<LE>(g, "le");
    add_int<GT>(g, "gt"), add_int<NE>(g, "ne"), add_int<GE>(g, "ge"), add_int<T>(g, "t");
    for (bool x : {false, true}) {
      const std::string p = x ? "v_cmpx_class_" : "v_cmp_class_";
      const Form f = x ? Form::compare_x : Form::compare;
      g.names.push_back(p + "f16");
      g.specs.push_back(
          vop(g.names.back(), VT::none, {VT::f16, VT::b16}, 2, f, lane<&class_cmp<VT::f16>>));
      g.names.push_back(p + "f32");
      g.specs.push_back(
          vop(g.names.back(), VT::none, {VT::f32, VT::b32}, 2, f, lane<&class_cmp<VT::f32>>));
      g.names.push_back(p + "f64");
      g.specs.push_back(
          vop(g.names.back(), VT::none, {VT::f64, VT::b32}, 2, f, lane<&class_cmp<VT::f64>>));
    }
    return g;
  }();
  return r;
}

} // namespace

void register_compare_ops(HandlerTable& t) {
  register_specs(t, registry().specs);
}

} // namespace tw::emu::valu
