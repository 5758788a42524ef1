// VOP3P: packed 16-bit math (op_sel / op_sel_hi pick each half's source half, neg_lo / neg_hi
// negate float halves), the mixed-precision FMAs and the dot products.
#include <runtime/emu/valu/float_math.hpp>

#include <atoms/formats/bf16.hpp>
#include <atoms/formats/fp8.hpp>

#include <algorithm>
#include <cmath>

namespace tw::emu::valu {
namespace {

using ElemFn = uint16_t (*)(uint16_t a, uint16_t b, uint16_t c, bool clamp);

double h(uint16_t v) {
  return f16_to_float(v);
}
uint16_t H(double d, bool clamp) {
  if (clamp)
    d = std::isnan(d) ? 0.0 : std::fmin(std::fmax(d, 0.0), 1.0);
  return double_to_f16(d);
}
int16_t sx(uint16_t v) {
  return int16_t(v);
}
uint16_t usat(int64_t v, bool clamp) {
  return clamp ? uint16_t(std::clamp<int64_t>(v, 0, 0xffff)) : uint16_t(v);
}
uint16_t ssat(int64_t v, bool clamp) {
  return clamp ? uint16_t(int16_t(std::clamp<int64_t>(v, -32768, 32767))) : uint16_t(v);
}

// The two 16-bit elements of packed source `i` of lane `lane`.
struct Halves {
  uint16_t lo, hi;
};
Halves packed_source(const WaveState& w, const DecodedInstr& in, int i, int lane, bool is_float) {
  const Operand& op = in.op(size_t(1 + i));
  const uint32_t raw = w.read32(op, lane, ImmType::F16);
  Halves r{uint16_t(in.mods.op_sel[i] ? raw >> 16 : raw),
           uint16_t(in.mods.op_sel_hi[i] ? raw >> 16 : raw)};
  if (is_float) {
    if (in.mods.neg_lo[i])
      r.lo ^= 0x8000;
    if (in.mods.neg_hi[i])
      r.hi ^= 0x8000;
  }
  return r;
}

template <ElemFn F, int N, bool Float, bool Accumulate = false>
void packed(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    Halves s[3] = {};
    for (int i = 0; i < N; ++i)
      s[i] = packed_source(w, in, i, lane, Float);
    if (Accumulate) {
      const uint32_t d = w.read32(in.op(0), lane);
      s[N] = {uint16_t(d), uint16_t(d >> 16)};
    }
    const uint16_t lo = F(s[0].lo, s[1].lo, s[2].lo, in.mods.clamp);
    const uint16_t hi = F(s[0].hi, s[1].hi, s[2].hi, in.mods.clamp);
    r[lane] = uint32_t(lo) | (uint32_t(hi) << 16);
  });
  w.for_each_active([&](int lane) { w.write32(in.op(0), lane, r[lane]); });
}

uint16_t pk_add_f16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return H(h(a) + h(b), cl);
}
uint16_t pk_mul_f16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return H(h(a) * h(b), cl);
}
uint16_t pk_fma_f16(uint16_t a, uint16_t b, uint16_t c, bool cl) {
  return H(exact_fma(h(a), h(b), h(c)), cl);
}
uint16_t pk_max_num_f16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return H(max_num(h(a), h(b)), cl);
}
uint16_t pk_min_num_f16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return H(min_num(h(a), h(b)), cl);
}
uint16_t pk_maximum_f16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return H(maximum(h(a), h(b)), cl);
}
uint16_t pk_minimum_f16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return H(minimum(h(a), h(b)), cl);
}
uint16_t pk_add_u16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return usat(int64_t(a) + b, cl);
}
uint16_t pk_sub_u16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return usat(int64_t(a) - b, cl);
}
uint16_t pk_add_i16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return ssat(int64_t(sx(a)) + sx(b), cl);
}
uint16_t pk_sub_i16(uint16_t a, uint16_t b, uint16_t, bool cl) {
  return ssat(int64_t(sx(a)) - sx(b), cl);
}
uint16_t pk_mul_lo_u16(uint16_t a, uint16_t b, uint16_t, bool) {
  return uint16_t(uint32_t(a) * b);
}
uint16_t pk_mad_u16(uint16_t a, uint16_t b, uint16_t c, bool cl) {
  return usat(int64_t(a) * b + c, cl);
}
uint16_t pk_mad_i16(uint16_t a, uint16_t b, uint16_t c, bool cl) {
  return ssat(int64_t(sx(a)) * sx(b) + sx(c), cl);
}
uint16_t pk_lshlrev_b16(uint16_t a, uint16_t b, uint16_t, bool) {
  return uint16_t(b << (a & 15));
}
uint16_t pk_lshrrev_b16(uint16_t a, uint16_t b, uint16_t, bool) {
  return uint16_t(b >> (a & 15));
}
uint16_t pk_ashrrev_i16(uint16_t a, uint16_t b, uint16_t, bool) {
  return uint16_t(sx(b) >> (a & 15));
}
uint16_t pk_max_u16(uint16_t a, uint16_t b, uint16_t, bool) {
  return std::max(a, b);
}
uint16_t pk_min_u16(uint16_t a, uint16_t b, uint16_t, bool) {
  return std::min(a, b);
}
uint16_t pk_max_i16(uint16_t a, uint16_t b, uint16_t, bool) {
  return uint16_t(std::max(sx(a), sx(b)));
}
uint16_t pk_min_i16(uint16_t a, uint16_t b, uint16_t, bool) {
  return uint16_t(std::min(sx(a), sx(b)));
}

// v_fma_mix*: op_sel_hi[i] = 1 makes source i an f16 (half op_sel[i]), else an f32;
// neg_lo negates and neg_hi takes the absolute value.
// Unlike the packed ops, a mix instruction without op_sel_hi in its text has op_sel_hi:[0,0,0]
// (every source an f32): LLVM prints `v_fma_mixlo_f16 v1, v1, s14, 0` for fptrunc(v1 * s14).
double mix_source(const WaveState& w, const DecodedInstr& in, int i, int lane) {
  const bool f16_source = in.mods.has_op_sel_hi && in.mods.op_sel_hi[i];
  const uint32_t raw =
      w.read32(in.op(size_t(1 + i)), lane, f16_source ? ImmType::F16 : ImmType::F32);
  double v = f16_source ? h(uint16_t(in.mods.op_sel[i] ? raw >> 16 : raw)) : double(as_f32(raw));
  if (in.mods.neg_hi[i])
    v = std::fabs(v);
  if (in.mods.neg_lo[i])
    v = -v;
  return v;
}

// 0: f32 result, 1: f16 into the low half, 2: f16 into the high half (other half kept).
template <int Kind>
void fma_mix(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    const double a = mix_source(w, in, 0, lane), b = mix_source(w, in, 1, lane),
                 s = mix_source(w, in, 2, lane);
    // Every source is exactly an f32, so fmaf rounds once for the f32 result.
    double v = Kind == 0 ? double(std::fma(float(a), float(b), float(s))) : std::fma(a, b, s);
    if (in.mods.clamp)
      v = std::isnan(v) ? 0.0 : std::fmin(std::fmax(v, 0.0), 1.0);
    if (Kind == 0) {
      r[lane] = f32_bits(float(v));
    } else {
      const uint32_t old = w.read32(in.op(0), lane);
      const uint32_t hv = double_to_f16(v);
      r[lane] = Kind == 1 ? (old & 0xffff0000u) | hv : (old & 0xffffu) | (hv << 16);
    }
  });
  w.for_each_active([&](int lane) { w.write32(in.op(0), lane, r[lane]); });
}

double bf(uint16_t v) {
  return tw::num::bf16_to_f32(v);
}

// Dot products of 16-bit pairs with an f32 (or 16-bit) addend.
template <bool Bf16, int Out> // Out: 0 f32, 1 f16, 2 bf16
void dot2(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    const Halves a = packed_source(w, in, 0, lane, true), b = packed_source(w, in, 1, lane, true);
    auto e = [](uint16_t v) { return Bf16 ? bf(v) : h(v); };
    const uint32_t craw = w.read32(in.op(3), lane,
                                   Out == 0   ? ImmType::F32
                                   : Out == 1 ? ImmType::F16
                                              : ImmType::BF16);
    double acc = Out == 0   ? double(as_f32(craw))
                 : Out == 1 ? h(uint16_t(craw))
                            : bf(uint16_t(craw));
    if (in.mods.neg_lo[2])
      acc = -acc;
    double v = e(a.lo) * e(b.lo) + e(a.hi) * e(b.hi) + acc;
    if (in.mods.clamp)
      v = std::isnan(v) ? 0.0 : std::fmin(std::fmax(v, 0.0), 1.0);
    r[lane] = Out == 0   ? f32_bits(float(v))
              : Out == 1 ? double_to_f16(v)
                         : tw::num::f32_to_bf16(float(v));
  });
  w.for_each_active([&](int lane) { w.write32(in.op(0), lane, r[lane]); });
}

// Integer dots: neg_lo[0] / neg_lo[1] say A / B are signed (iu forms); clamp saturates.
template <int Bits, bool MixedSign>
void dot_int(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const bool a_signed = MixedSign && in.mods.neg_lo[0], b_signed = MixedSign && in.mods.neg_lo[1];
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    const uint32_t a = w.read32(in.op(1), lane), b = w.read32(in.op(2), lane);
    int64_t acc =
        MixedSign ? int64_t(int32_t(w.read32(in.op(3), lane))) : int64_t(w.read32(in.op(3), lane));
    auto elem = [](uint32_t x, int i, bool sgn) {
      const uint32_t f = (x >> (Bits * i)) & ((1u << Bits) - 1);
      return sgn ? int64_t(int32_t(f << (32 - Bits)) >> (32 - Bits)) : int64_t(f);
    };
    for (int i = 0; i < 32 / Bits; ++i)
      acc += elem(a, i, a_signed) * elem(b, i, b_signed);
    if (in.mods.clamp)
      acc = MixedSign ? std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX)
                      : std::clamp<int64_t>(acc, 0, UINT32_MAX);
    r[lane] = uint32_t(acc);
  });
  w.for_each_active([&](int lane) { w.write32(in.op(0), lane, r[lane]); });
}

// v_dot4_f32_{fp8,bf8}_{fp8,bf8}: four 8-bit float products plus an f32 addend.
template <bool ABf8, bool BBf8>
void dot4_f8(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    const uint32_t a = w.read32(in.op(1), lane), b = w.read32(in.op(2), lane);
    double acc = as_f32(w.read32(in.op(3), lane, ImmType::F32));
    for (int i = 0; i < 4; ++i) {
      const uint8_t x = uint8_t(a >> (8 * i)), y = uint8_t(b >> (8 * i));
      acc += double(ABf8 ? tw::num::e5m2_to_f32(x) : tw::num::e4m3_to_f32(x)) *
             double(BBf8 ? tw::num::e5m2_to_f32(y) : tw::num::e4m3_to_f32(y));
    }
    r[lane] = f32_bits(float(acc));
  });
  w.for_each_active([&](int lane) { w.write32(in.op(0), lane, r[lane]); });
}

// v_dot2acc_f32_f16 / bf16 (VOP2 and VOPD): D += a.lo*b.lo + a.hi*b.hi.
template <bool Bf16>
uint64_t dot2acc(Lane& l) {
  auto e = [](uint64_t v) { return Bf16 ? bf(uint16_t(v)) : h(uint16_t(v)); };
  const double v =
      e(l.s[0]) * e(l.s[1]) + e(l.s[0] >> 16) * e(l.s[1] >> 16) + double(as_f32(uint32_t(l.s[2])));
  return f32_bits(float(v));
}
const VopSpec kDotAccSpecs[] = {
    vop("v_dot2acc_f32_f16", VT::f32, {VT::b32, VT::b32, VT::f32}, 3, Form::accumulate,
        lane<&dot2acc<false>>),
    vop("v_dot2acc_f32_bf16", VT::f32, {VT::b32, VT::b32, VT::f32}, 3, Form::accumulate,
        lane<&dot2acc<true>>),
};

} // namespace

void register_packed_ops(HandlerTable& t) {
  t.add("v_pk_add_f16", &packed<pk_add_f16, 2, true>);
  t.add("v_pk_mul_f16", &packed<pk_mul_f16, 2, true>);
  t.add("v_pk_fma_f16", &packed<pk_fma_f16, 3, true>);
  t.add("v_pk_fmac_f16", &packed<pk_fma_f16, 2, true, true>);
  t.add("v_pk_max_num_f16", &packed<pk_max_num_f16, 2, true>);
  t.add("v_pk_min_num_f16", &packed<pk_min_num_f16, 2, true>);
  t.add("v_pk_maximum_f16", &packed<pk_maximum_f16, 2, true>);
  t.add("v_pk_minimum_f16", &packed<pk_minimum_f16, 2, true>);
  t.add("v_pk_add_u16", &packed<pk_add_u16, 2, false>);
  t.add("v_pk_sub_u16", &packed<pk_sub_u16, 2, false>);
  t.add("v_pk_add_i16", &packed<pk_add_i16, 2, false>);
  t.add("v_pk_sub_i16", &packed<pk_sub_i16, 2, false>);
  t.add("v_pk_mul_lo_u16", &packed<pk_mul_lo_u16, 2, false>);
  t.add("v_pk_mad_u16", &packed<pk_mad_u16, 3, false>);
  t.add("v_pk_mad_i16", &packed<pk_mad_i16, 3, false>);
  t.add("v_pk_lshlrev_b16", &packed<pk_lshlrev_b16, 2, false>);
  t.add("v_pk_lshrrev_b16", &packed<pk_lshrrev_b16, 2, false>);
  t.add("v_pk_ashrrev_i16", &packed<pk_ashrrev_i16, 2, false>);
  t.add("v_pk_max_u16", &packed<pk_max_u16, 2, false>);
  t.add("v_pk_min_u16", &packed<pk_min_u16, 2, false>);
  t.add("v_pk_max_i16", &packed<pk_max_i16, 2, false>);
  t.add("v_pk_min_i16", &packed<pk_min_i16, 2, false>);
  t.add("v_fma_mix_f32", &fma_mix<0>);
  t.add("v_fma_mixlo_f16", &fma_mix<1>);
  t.add("v_fma_mixhi_f16", &fma_mix<2>);
  t.add("v_dot2_f32_f16", &dot2<false, 0>);
  t.add("v_dot2_f32_bf16", &dot2<true, 0>);
  t.add("v_dot2_f16_f16", &dot2<false, 1>);
  t.add("v_dot2_bf16_bf16", &dot2<true, 2>);
  t.add("v_dot4_i32_iu8", &dot_int<8, true>);
  t.add("v_dot4_u32_u8", &dot_int<8, false>);
  t.add("v_dot8_i32_iu4", &dot_int<4, true>);
  t.add("v_dot8_u32_u4", &dot_int<4, false>);
  t.add("v_dot4_f32_fp8_fp8", &dot4_f8<false, false>);
  t.add("v_dot4_f32_fp8_bf8", &dot4_f8<false, true>);
  t.add("v_dot4_f32_bf8_fp8", &dot4_f8<true, false>);
  t.add("v_dot4_f32_bf8_bf8", &dot4_f8<true, true>);
  register_specs(t, kDotAccSpecs);
}

} // namespace tw::emu::valu
