// Conversions: float <-> float / int, packing, normalized ints, and the fp8 / bf8 (OCP E4M3FN /
// E5M2) pack, unpack and stochastic-rounding forms (through tw::num).
#include <runtime/emu/valu/float_math.hpp>

#include <atoms/formats/f16.hpp>
#include <atoms/formats/fp8.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tw::emu::valu {
namespace {

using u64 = uint64_t;

// Float -> int: truncation toward zero, saturating, NaN -> 0 (the ISA's rule).
template <class I>
u64 to_int(double x) {
  if (std::isnan(x))
    return 0;
  const double t = std::trunc(x);
  if (t <= double(std::numeric_limits<I>::min()))
    return u64(std::make_unsigned_t<I>(std::numeric_limits<I>::min()));
  if (t >= double(std::numeric_limits<I>::max()))
    return u64(std::make_unsigned_t<I>(std::numeric_limits<I>::max()));
  return u64(std::make_unsigned_t<I>(I(t)));
}

float f32(u64 v) {
  return as_f32(uint32_t(v));
}

// Normalized 16-bit ints: round(x * 32767) / round(x * 65535) after clamping to the range.
u64 norm_i16(double x) {
  if (std::isnan(x))
    return 0;
  return uint16_t(int16_t(std::nearbyint(std::fmin(std::fmax(x, -1.0), 1.0) * 32767.0)));
}
u64 norm_u16(double x) {
  if (std::isnan(x))
    return 0;
  return uint16_t(std::nearbyint(std::fmin(std::fmax(x, 0.0), 1.0) * 65535.0));
}
u64 sat_pk(int64_t lo, int64_t hi, int64_t min, int64_t max) {
  return (u64(uint16_t(std::clamp(lo, min, max)))) |
         (u64(uint16_t(std::clamp(hi, min, max))) << 16);
}

#define TW_CVT(name, dst, src, expr)                                                               \
  vop(name, dst, {src}, 1, Form::plain, [](Lane& l) -> u64 { return expr; })
#define TW_CVT2(name, dst, s0, s1, expr)                                                           \
  vop(name, dst, {s0, s1}, 2, Form::plain, [](Lane& l) -> u64 { return expr; })

const VopSpec
    kConvertSpecs[] =
        {
            TW_CVT("v_cvt_f32_f16", VT::f32, VT::f16, put<VT::f32>(get<VT::f16>(l.s[0]))),
            TW_CVT("v_cvt_f16_f32", VT::f16, VT::f32, put<VT::f16>(get<VT::f32>(l.s[0]))),
            TW_CVT("v_cvt_f32_f64", VT::f32, VT::f64, put<VT::f32>(get<VT::f64>(l.s[0]))),
            TW_CVT("v_cvt_f64_f32", VT::f64, VT::f32, put<VT::f64>(get<VT::f32>(l.s[0]))),
            TW_CVT("v_cvt_f32_i32", VT::f32, VT::b32, f32_bits(float(int32_t(uint32_t(l.s[0]))))),
            TW_CVT("v_cvt_f32_u32", VT::f32, VT::b32, f32_bits(float(uint32_t(l.s[0])))),
            TW_CVT("v_cvt_f64_i32", VT::f64, VT::b32, f64_bits(double(int32_t(uint32_t(l.s[0]))))),
            TW_CVT("v_cvt_f64_u32", VT::f64, VT::b32, f64_bits(double(uint32_t(l.s[0])))),
            TW_CVT("v_cvt_f16_i16", VT::f16, VT::b16,
                   float_to_f16(float(int16_t(uint16_t(l.s[0]))))),
            TW_CVT("v_cvt_f16_u16", VT::f16, VT::b16, float_to_f16(float(uint16_t(l.s[0])))),
            TW_CVT("v_cvt_i32_f32", VT::b32, VT::f32, to_int<int32_t>(get<VT::f32>(l.s[0]))),
            TW_CVT("v_cvt_u32_f32", VT::b32, VT::f32, to_int<uint32_t>(get<VT::f32>(l.s[0]))),
            TW_CVT("v_cvt_i32_f64", VT::b32, VT::f64, to_int<int32_t>(get<VT::f64>(l.s[0]))),
            TW_CVT("v_cvt_u32_f64", VT::b32, VT::f64, to_int<uint32_t>(get<VT::f64>(l.s[0]))),
            TW_CVT("v_cvt_i16_f16", VT::b16, VT::f16, to_int<int16_t>(get<VT::f16>(l.s[0]))),
            TW_CVT("v_cvt_u16_f16", VT::b16, VT::f16, to_int<uint16_t>(get<VT::f16>(l.s[0]))),
            TW_CVT("v_cvt_floor_i32_f32", VT::b32, VT::f32,
                   to_int<int32_t>(std::floor(get<VT::f32>(l.s[0])))),
            TW_CVT("v_cvt_nearest_i32_f32", VT::b32, VT::f32,
                   to_int<int32_t>(std::floor(get<VT::f32>(l.s[0]) + 0.5))),
            TW_CVT("v_cvt_i32_i16", VT::b32, VT::b16, uint32_t(int32_t(int16_t(uint16_t(l.s[0]))))),
            TW_CVT("v_cvt_u32_u16", VT::b32, VT::b16, uint32_t(uint16_t(l.s[0]))),
            TW_CVT("v_cvt_f32_ubyte0", VT::f32, VT::b32, f32_bits(float(l.s[0] & 0xff))),
            TW_CVT("v_cvt_f32_ubyte1", VT::f32, VT::b32, f32_bits(float((l.s[0] >> 8) & 0xff))),
            TW_CVT("v_cvt_f32_ubyte2", VT::f32, VT::b32, f32_bits(float((l.s[0] >> 16) & 0xff))),
            TW_CVT("v_cvt_f32_ubyte3", VT::f32, VT::b32, f32_bits(float((l.s[0] >> 24) & 0xff))),
            TW_CVT("v_cvt_off_f32_i4", VT::f32, VT::b32,
                   f32_bits(float(int32_t(uint32_t(l.s[0]) << 28) >> 28) / 16.0f)),
            TW_CVT("v_cvt_norm_i16_f16", VT::b16, VT::f16, norm_i16(get<VT::f16>(l.s[0]))),
            TW_CVT("v_cvt_norm_u16_f16", VT::b16, VT::f16, norm_u16(get<VT::f16>(l.s[0]))),
            // Packing two values into one dword (low = src0, high = src1).
            TW_CVT2("v_cvt_pk_rtz_f16_f32", VT::b32, VT::f32, VT::f32,
                    u64(tw::num::f32_to_f16_rtz(f32(l.s[0]))) |
                        (u64(tw::num::f32_to_f16_rtz(f32(l.s[1]))) << 16)),
            TW_CVT2("v_pack_b32_f16", VT::b32, VT::f16, VT::f16,
                    (l.s[0] & 0xffff) | ((l.s[1] & 0xffff) << 16)),
            TW_CVT2("v_cvt_pk_norm_i16_f32", VT::b32, VT::f32, VT::f32,
                    norm_i16(f32(l.s[0])) | (norm_i16(f32(l.s[1])) << 16)),
            TW_CVT2("v_cvt_pk_norm_u16_f32", VT::b32, VT::f32, VT::f32,
                    norm_u16(f32(l.s[0])) | (norm_u16(f32(l.s[1])) << 16)),
            TW_CVT2("v_cvt_pk_norm_i16_f16", VT::b32, VT::f16, VT::f16,
                    norm_i16(get<VT::f16>(l.s[0])) | (norm_i16(get<VT::f16>(l.s[1])) << 16)),
            TW_CVT2("v_cvt_pk_norm_u16_f16", VT::b32, VT::f16, VT::f16,
                    norm_u16(get<VT::f16>(l.s[0])) | (norm_u16(get<VT::f16>(l.s[1])) << 16)),
            TW_CVT2("v_cvt_pk_i16_f32", VT::b32, VT::f32, VT::f32,
                    (to_int<int16_t>(f32(l.s[0])) & 0xffff) |
                        ((to_int<int16_t>(f32(l.s[1])) & 0xffff) << 16)),
            TW_CVT2("v_cvt_pk_u16_f32", VT::b32, VT::f32, VT::f32,
                    (to_int<uint16_t>(f32(l.s[0])) & 0xffff) |
                        ((to_int<uint16_t>(f32(l.s[1])) & 0xffff) << 16)),
            TW_CVT2("v_cvt_pk_i16_i32", VT::b32, VT::b32, VT::b32,
                    sat_pk(int32_t(uint32_t(l.s[0])), int32_t(uint32_t(l.s[1])), -32768, 32767)),
            TW_CVT2("v_cvt_pk_u16_u32", VT::b32, VT::b32, VT::b32,
                    sat_pk(uint32_t(l.s[0]), uint32_t(l.s[1]), 0, 65535)),
            TW_CVT("v_sat_pk_u8_i16", VT::b16, VT::b32,
                   u64(std::clamp<int>(int16_t(uint16_t(l.s[0])), 0, 255)) |
                       (u64(std::clamp<int>(int16_t(uint16_t(l.s[0] >> 16)), 0, 255)) << 8)),
            // v_cvt_pk_u8_f32 src0 -> byte src1[1:0] of src2.
            vop("v_cvt_pk_u8_f32", VT::b32, {VT::f32, VT::b32, VT::b32}, 3, Form::plain,
                [](Lane& l) -> u64 {
                  const unsigned sh = 8 * (l.s[1] & 3);
                  const u64 byte = to_int<uint8_t>(std::nearbyint(f32(l.s[0])));
                  return (uint32_t(l.s[2]) & ~(0xffu << sh)) | uint32_t(byte << sh);
                }),
            // fp8 / bf8 packing: dst word op_sel[2] gets {cvt(src0), cvt(src1) << 8}, the other
            // word is kept (the dst is typed b16 so the engine writes the selected half). Round to
            // nearest even; saturation follows the clamp bit.
            vop(
                "v_cvt_pk_fp8_f32", VT::b16, {VT::f32, VT::f32}, 2, Form::plain,
                [](Lane& l) -> u64 {
                  const auto sat = l.clamp ? tw::num::Saturate::yes : tw::num::Saturate::no;
                  return u64(tw::num::f32_to_e4m3(f32(l.s[0]), sat)) |
                         (u64(tw::num::f32_to_e4m3(f32(l.s[1]), sat)) << 8);
                },
                true),
            vop(
                "v_cvt_pk_bf8_f32", VT::b16, {VT::f32, VT::f32}, 2, Form::plain,
                [](Lane& l) -> u64 {
                  const auto sat = l.clamp ? tw::num::Saturate::yes : tw::num::Saturate::no;
                  return u64(tw::num::f32_to_e5m2(f32(l.s[0]), sat)) |
                         (u64(tw::num::f32_to_e5m2(f32(l.s[1]), sat)) << 8);
                },
                true),
};

#undef TW_CVT
#undef TW_CVT2

int byte_sel(const DecodedInstr& in) {
  for (const auto& [k, v] : in.mods.other)
    if (k == "byte_sel")
      return std::stoi(v) & 3;
  return 0;
}

// v_cvt_f32_fp8 / v_cvt_f32_bf8: byte byte_sel of src0 (op_sel in the e64 encoding).
template <bool Bf8>
void cvt_f32_from_8(WaveContext& c, const DecodedInstr& in) {
  WaveState& w = c.wave;
  const int sel = byte_sel(in);
  const bool dpp = in.encoding == Encoding::Dpp || in.encoding == Encoding::E64Dpp;
  std::array<int8_t, kWaveSize> dpp_src{};
  if (dpp) {
    try {
      dpp_src = dpp_source_lanes(in.mods, w.exec());
    } catch (const std::invalid_argument& e) {
      c.fail(in, e.what());
    }
  }
  std::array<uint32_t, kWaveSize> r{};
  uint32_t written = 0;
  w.for_each_active([&](int lane) {
    int src = lane;
    if (dpp) {
      if (!dpp_lane_enabled(in.mods, lane))
        return;
      src = dpp_src[lane];
      if (src < 0 && !in.mods.bound_ctrl)
        return;
    }
    const uint32_t word = src < 0 ? 0 : w.read32(in.op(1), src);
    const uint8_t b = uint8_t(word >> (8 * sel));
    r[lane] = f32_bits(Bf8 ? tw::num::e5m2_to_f32(b) : tw::num::e4m3_to_f32(b));
    written |= 1u << lane;
  });
  for (uint32_t m = written; m; m &= m - 1)
    w.write32(in.op(0), std::countr_zero(m), r[std::countr_zero(m)]);
}

// v_cvt_pk_f32_fp8 / bf8: the two bytes of word op_sel[0] of src0 -> a VGPR pair.
template <bool Bf8>
void cvt_pk_f32_from_8(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const unsigned sh = in.mods.op_sel[0] ? 16 : 0;
  std::array<uint64_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    const uint32_t word = w.read32(in.op(1), lane) >> sh;
    auto dec = [](uint8_t b) {
      return f32_bits(Bf8 ? tw::num::e5m2_to_f32(b) : tw::num::e4m3_to_f32(b));
    };
    r[lane] = uint64_t(dec(uint8_t(word))) | (uint64_t(dec(uint8_t(word >> 8))) << 32);
  });
  w.for_each_active([&](int lane) { w.write64(in.op(0), lane, r[lane]); });
}

// v_cvt_sr_fp8_f32 / bf8 dst, src0 (f32), src1 (random bits) byte_sel:N: stochastic
// rounding into byte N of dst, the other bytes kept.
template <bool Bf8>
void cvt_sr_8(WaveContext& c, const DecodedInstr& in) {
  require_no_dpp(c, in);
  WaveState& w = c.wave;
  const unsigned sh = 8 * unsigned(byte_sel(in));
  const auto sat = in.mods.clamp ? tw::num::Saturate::yes : tw::num::Saturate::no;
  std::array<uint32_t, kWaveSize> r{};
  w.for_each_active([&](int lane) {
    const float x = as_f32(uint32_t(read_source(w, in.op(1), lane, VT::f32, false)));
    const uint32_t rnd = w.read32(in.op(2), lane);
    const uint8_t b = Bf8 ? tw::num::f32_to_e5m2_stochastic(x, rnd, sat)
                          : tw::num::f32_to_e4m3_stochastic(x, rnd, sat);
    const uint32_t old = in.op(0).is_vgpr() ? w.v(in.op(0).reg, lane) : 0;
    r[lane] = (old & ~(0xffu << sh)) | (uint32_t(b) << sh);
  });
  w.for_each_active([&](int lane) { w.write32(in.op(0), lane, r[lane]); });
}

} // namespace

void register_convert_ops(HandlerTable& t) {
  register_specs(t, kConvertSpecs);
  t.add("v_cvt_f32_fp8", &cvt_f32_from_8<false>);
  t.add("v_cvt_f32_bf8", &cvt_f32_from_8<true>);
  t.add("v_cvt_pk_f32_fp8", &cvt_pk_f32_from_8<false>);
  t.add("v_cvt_pk_f32_bf8", &cvt_pk_f32_from_8<true>);
  t.add("v_cvt_sr_fp8_f32", &cvt_sr_8<false>);
  t.add("v_cvt_sr_bf8_f32", &cvt_sr_8<true>);
}

} // namespace tw::emu::valu
