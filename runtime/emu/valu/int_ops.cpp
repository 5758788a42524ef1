// Integer and bit operations of VOP1 / VOP2 / VOP3 (32-, 16- and 64-bit), carries, selects.
#include <runtime/emu/valu/vop.hpp>

#include <algorithm>
#include <bit>
#include <limits>

namespace tw::emu::valu {
namespace {

using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;

u32 a(const Lane& l) {
  return u32(l.s[0]);
}
u32 b(const Lane& l) {
  return u32(l.s[1]);
}
u32 c(const Lane& l) {
  return u32(l.s[2]);
}

// Saturating results for the clamp bit of integer adds.
u64 sat_u32(const Lane& l, u64 wide) {
  return l.clamp && wide > 0xffffffffull ? 0xffffffffu : u32(wide);
}
u64 sat_i32(const Lane& l, i64 wide) {
  if (!l.clamp)
    return u32(wide);
  return u32(
      i32(std::clamp<i64>(wide, std::numeric_limits<i32>::min(), std::numeric_limits<i32>::max())));
}
u64 sat_u16(const Lane& l, i64 wide) {
  return l.clamp ? u64(std::clamp<i64>(wide, 0, 0xffff)) : u64(wide) & 0xffff;
}
u64 sat_i16(const Lane& l, i64 wide) {
  return l.clamp ? u64(uint16_t(int16_t(std::clamp<i64>(wide, -32768, 32767))))
                 : u64(wide) & 0xffff;
}

i32 s24(u32 x) {
  return i32(x << 8) >> 8;
}
i64 sx16(u64 x) {
  return int16_t(uint16_t(x));
}

// Bit field extract: offset s1[4:0], width s2[4:0].
u64 bfe_u(const Lane& l) {
  const u32 off = b(l) & 31, w = c(l) & 31;
  return w == 0 ? 0 : (a(l) >> off) & (w == 32 ? ~0u : (1u << w) - 1);
}
u64 bfe_i(const Lane& l) {
  const u32 off = b(l) & 31, w = c(l) & 31;
  if (w == 0)
    return 0;
  return u32(i32((a(l) >> off) << (32 - w)) >> (32 - w)); // sign-extend the w-bit field
}

// v_perm_b32: each selector byte picks a byte of {s0, s1} (s1 is bytes 0-3) or a constant.
u64 perm(const Lane& l) {
  const u64 bytes = (u64(a(l)) << 32) | b(l);
  u32 r = 0;
  for (int i = 0; i < 4; ++i) {
    const u32 sel = (c(l) >> (8 * i)) & 0xff;
    u32 v;
    if (sel <= 7)
      v = u32(bytes >> (8 * sel)) & 0xff;
    else if (sel <= 11) // sign of a 16-bit half, replicated
      v = ((bytes >> (16 * (sel - 8) + 15)) & 1) ? 0xff : 0;
    else if (sel == 12)
      v = 0;
    else
      v = 0xff;
    r |= v << (8 * i);
  }
  return r;
}

u64 mbcnt_lo(Lane& l) {
  return u32(std::popcount(a(l) & ((1u << l.lane) - 1u)) + b(l));
}
// wave32: lanes 32..63 do not exist, so the high half counts nothing below any lane.
u64 mbcnt_hi(Lane& l) {
  return b(l);
}

// Sums of absolute byte / half differences (v_sad_*, v_msad_u8 skips reference bytes of 0).
u32 sad_bytes(u32 x, u32 y, bool masked) {
  u32 s = 0;
  for (int i = 0; i < 4; ++i) {
    const u32 p = (x >> (8 * i)) & 0xff, q = (y >> (8 * i)) & 0xff;
    if (!(masked && q == 0))
      s += p > q ? p - q : q - p;
  }
  return s;
}
u32 sad_halves(u32 x, u32 y) {
  u32 s = 0;
  for (int i = 0; i < 2; ++i) {
    const u32 p = (x >> (16 * i)) & 0xffff, q = (y >> (16 * i)) & 0xffff;
    s += p > q ? p - q : q - p;
  }
  return s;
}
// Per-byte rounded average, the rounding bit taken from bit 0 of each byte of src2.
u32 lerp_u8(u32 x, u32 y, u32 z) {
  u32 r = 0;
  for (int i = 0; i < 4; ++i)
    r |= ((((x >> (8 * i)) & 0xff) + ((y >> (8 * i)) & 0xff) + ((z >> (8 * i)) & 1)) >> 1)
         << (8 * i);
  return r;
}

template <class T>
T med3(T x, T y, T z) {
  return std::max(std::min(x, y), std::min(std::max(x, y), z));
}

#define TW_OP(name, dst, srcs, n, expr)                                                            \
  vop(name, dst, srcs, n, Form::plain, [](Lane& l) -> u64 { return expr; })
#define TW_OPC(name, dst, srcs, n, expr)                                                           \
  vop(                                                                                             \
      name, dst, srcs, n, Form::plain, [](Lane& l) -> u64 { return expr; }, true)
#define B1                                                                                         \
  { VT::b32 }
#define B2                                                                                         \
  { VT::b32, VT::b32 }
#define B3                                                                                         \
  { VT::b32, VT::b32, VT::b32 }
#define H1                                                                                         \
  { VT::b16 }
#define H2                                                                                         \
  { VT::b16, VT::b16 }
#define H3                                                                                         \
  { VT::b16, VT::b16, VT::b16 }

const VopSpec kIntSpecs[] = {
    TW_OP("v_mov_b32", VT::b32, B1, 1, a(l)),
    TW_OP("v_mov_b16", VT::b16, H1, 1, l.s[0]),
    TW_OP("v_not_b32", VT::b32, B1, 1, ~a(l)),
    TW_OP("v_not_b16", VT::b16, H1, 1, ~l.s[0] & 0xffff),
    TW_OP("v_bfrev_b32", VT::b32, B1, 1, [](u32 x) { u32 r = 0; for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i); return r; }(a(l))),
    TW_OP("v_clz_i32_u32", VT::b32, B1, 1, a(l) == 0 ? ~0u : u32(std::countl_zero(a(l)))),
    TW_OP("v_ctz_i32_b32", VT::b32, B1, 1, a(l) == 0 ? ~0u : u32(std::countr_zero(a(l)))),
    TW_OP("v_cls_i32", VT::b32, B1, 1, (a(l) == 0 || a(l) == ~0u) ? ~0u : u32(std::countl_zero(i32(a(l)) < 0 ? ~a(l) : a(l)))),
    TW_OPC("v_add_nc_u32", VT::b32, B2, 2, sat_u32(l, u64(a(l)) + b(l))),
    TW_OPC("v_sub_nc_u32", VT::b32, B2, 2, l.clamp && b(l) > a(l) ? 0 : u32(a(l) - b(l))),
    TW_OPC("v_subrev_nc_u32", VT::b32, B2, 2, l.clamp && a(l) > b(l) ? 0 : u32(b(l) - a(l))),
    TW_OPC("v_add_nc_i32", VT::b32, B2, 2, sat_i32(l, i64(i32(a(l))) + i32(b(l)))),
    TW_OPC("v_sub_nc_i32", VT::b32, B2, 2, sat_i32(l, i64(i32(a(l))) - i32(b(l)))),
    TW_OP("v_mul_lo_u32", VT::b32, B2, 2, u32(a(l) * b(l))),
    TW_OP("v_mul_hi_u32", VT::b32, B2, 2, u32((u64(a(l)) * b(l)) >> 32)),
    TW_OP("v_mul_hi_i32", VT::b32, B2, 2, u32(u64(i64(i32(a(l))) * i32(b(l))) >> 32)),
    TW_OP("v_mul_u32_u24", VT::b32, B2, 2, u32((a(l) & 0xffffff) * (b(l) & 0xffffff))),
    TW_OP("v_mul_hi_u32_u24", VT::b32, B2, 2, u32((u64(a(l) & 0xffffff) * (b(l) & 0xffffff)) >> 32)),
    TW_OP("v_mul_i32_i24", VT::b32, B2, 2, u32(i64(s24(a(l))) * s24(b(l)))),
    TW_OP("v_mul_hi_i32_i24", VT::b32, B2, 2, u32(u64(i64(s24(a(l))) * s24(b(l))) >> 32)),
    TW_OP("v_mad_u32_u24", VT::b32, B3, 3, u32((a(l) & 0xffffff) * (b(l) & 0xffffff) + c(l))),
    TW_OP("v_mad_i32_i24", VT::b32, B3, 3, u32(i64(s24(a(l))) * s24(b(l)) + i32(c(l)))),
    TW_OP("v_and_b32", VT::b32, B2, 2, a(l) & b(l)),
    TW_OP("v_or_b32", VT::b32, B2, 2, a(l) | b(l)),
    TW_OP("v_xor_b32", VT::b32, B2, 2, a(l) ^ b(l)),
    TW_OP("v_xnor_b32", VT::b32, B2, 2, ~(a(l) ^ b(l))),
    TW_OP("v_lshlrev_b32", VT::b32, B2, 2, b(l) << (a(l) & 31)),
    TW_OP("v_lshrrev_b32", VT::b32, B2, 2, b(l) >> (a(l) & 31)),
    TW_OP("v_ashrrev_i32", VT::b32, B2, 2, u32(i32(b(l)) >> (a(l) & 31))),
    TW_OP("v_lshl_add_u32", VT::b32, B3, 3, u32((a(l) << (b(l) & 31)) + c(l))),
    TW_OP("v_add_lshl_u32", VT::b32, B3, 3, u32((a(l) + b(l)) << (c(l) & 31))),
    TW_OP("v_lshl_or_b32", VT::b32, B3, 3, (a(l) << (b(l) & 31)) | c(l)),
    TW_OP("v_and_or_b32", VT::b32, B3, 3, (a(l) & b(l)) | c(l)),
    TW_OP("v_or3_b32", VT::b32, B3, 3, a(l) | b(l) | c(l)),
    TW_OP("v_xor3_b32", VT::b32, B3, 3, a(l) ^ b(l) ^ c(l)),
    TW_OP("v_add3_u32", VT::b32, B3, 3, u32(a(l) + b(l) + c(l))),
    TW_OP("v_xad_u32", VT::b32, B3, 3, u32((a(l) ^ b(l)) + c(l))),
    TW_OP("v_bfe_u32", VT::b32, B3, 3, bfe_u(l)),
    TW_OP("v_bfe_i32", VT::b32, B3, 3, bfe_i(l)),
    TW_OP("v_bfi_b32", VT::b32, B3, 3, (a(l) & b(l)) | (~a(l) & c(l))),
    TW_OP("v_bfm_b32", VT::b32, B2, 2, u32((((a(l) & 31) == 0) ? 0u : ((1u << (a(l) & 31)) - 1u)) << (b(l) & 31))),
    TW_OP("v_alignbit_b32", VT::b32, B3, 3, u32(((u64(a(l)) << 32) | b(l)) >> (c(l) & 31))),
    TW_OP("v_alignbyte_b32", VT::b32, B3, 3, u32(((u64(a(l)) << 32) | b(l)) >> (8 * (c(l) & 3)))),
    TW_OP("v_perm_b32", VT::b32, B3, 3, perm(l)),
    TW_OP("v_bcnt_u32_b32", VT::b32, B2, 2, u32(std::popcount(a(l)) + b(l))),
    vop("v_mbcnt_lo_u32_b32", VT::b32, B2, 2, Form::plain, lane<&mbcnt_lo>),
    vop("v_mbcnt_hi_u32_b32", VT::b32, B2, 2, Form::plain, lane<&mbcnt_hi>),
    TW_OP("v_max_u32", VT::b32, B2, 2, std::max(a(l), b(l))),
    TW_OP("v_min_u32", VT::b32, B2, 2, std::min(a(l), b(l))),
    TW_OP("v_max_i32", VT::b32, B2, 2, u32(std::max(i32(a(l)), i32(b(l))))),
    TW_OP("v_min_i32", VT::b32, B2, 2, u32(std::min(i32(a(l)), i32(b(l))))),
    TW_OP("v_max3_u32", VT::b32, B3, 3, std::max({a(l), b(l), c(l)})),
    TW_OP("v_min3_u32", VT::b32, B3, 3, std::min({a(l), b(l), c(l)})),
    TW_OP("v_med3_u32", VT::b32, B3, 3, med3(a(l), b(l), c(l))),
    TW_OP("v_max3_i32", VT::b32, B3, 3, u32(std::max({i32(a(l)), i32(b(l)), i32(c(l))}))),
    TW_OP("v_min3_i32", VT::b32, B3, 3, u32(std::min({i32(a(l)), i32(b(l)), i32(c(l))}))),
    TW_OP("v_med3_i32", VT::b32, B3, 3, u32(med3(i32(a(l)), i32(b(l)), i32(c(l))))),
    TW_OP("v_maxmin_u32", VT::b32, B3, 3, std::min(std::max(a(l), b(l)), c(l))),
    TW_OP("v_minmax_u32", VT::b32, B3, 3, std::max(std::min(a(l), b(l)), c(l))),
    TW_OP("v_maxmin_i32", VT::b32, B3, 3, u32(std::min(std::max(i32(a(l)), i32(b(l))), i32(c(l))))),
    TW_OP("v_minmax_i32", VT::b32, B3, 3, u32(std::max(std::min(i32(a(l)), i32(b(l))), i32(c(l))))),
    TW_OP("v_sad_u32", VT::b32, B3, 3, u32((a(l) > b(l) ? a(l) - b(l) : b(l) - a(l)) + c(l))),
    TW_OP("v_sad_u8", VT::b32, B3, 3, u32(sad_bytes(a(l), b(l), false) + c(l))),
    TW_OP("v_sad_hi_u8", VT::b32, B3, 3, u32((sad_bytes(a(l), b(l), false) << 16) + c(l))),
    TW_OP("v_msad_u8", VT::b32, B3, 3, u32(sad_bytes(a(l), b(l), true) + c(l))),
    TW_OP("v_sad_u16", VT::b32, B3, 3, u32(sad_halves(a(l), b(l)) + c(l))),
    TW_OP("v_lerp_u8", VT::b32, B3, 3, lerp_u8(a(l), b(l), c(l))),
    // 64-bit shifts: the shift amount is src0 (32-bit), the value src1.
    TW_OP("v_lshlrev_b64", VT::b64, (std::array<VT, 4>{VT::b32, VT::b64}), 2, l.s[1] << (a(l) & 63)),
    TW_OP("v_lshrrev_b64", VT::b64, (std::array<VT, 4>{VT::b32, VT::b64}), 2, l.s[1] >> (a(l) & 63)),
    TW_OP("v_ashrrev_i64", VT::b64, (std::array<VT, 4>{VT::b32, VT::b64}), 2, u64(i64(l.s[1]) >> (a(l) & 63))),
    // 16-bit integer ops (fake16: low halves unless op_sel).
    TW_OPC("v_add_nc_u16", VT::b16, H2, 2, sat_u16(l, i64(l.s[0]) + i64(l.s[1]))),
    TW_OPC("v_sub_nc_u16", VT::b16, H2, 2, sat_u16(l, i64(l.s[0]) - i64(l.s[1]))),
    TW_OPC("v_add_nc_i16", VT::b16, H2, 2, sat_i16(l, sx16(l.s[0]) + sx16(l.s[1]))),
    TW_OPC("v_sub_nc_i16", VT::b16, H2, 2, sat_i16(l, sx16(l.s[0]) - sx16(l.s[1]))),
    TW_OP("v_mul_lo_u16", VT::b16, H2, 2, (l.s[0] * l.s[1]) & 0xffff),
    TW_OPC("v_mad_u16", VT::b16, H3, 3, sat_u16(l, i64(l.s[0] * l.s[1] + l.s[2]))),
    TW_OPC("v_mad_i16", VT::b16, H3, 3, sat_i16(l, sx16(l.s[0]) * sx16(l.s[1]) + sx16(l.s[2]))),
    TW_OP("v_mad_u32_u16", VT::b32, (std::array<VT, 4>{VT::b16, VT::b16, VT::b32}), 3, u32(l.s[0] * l.s[1] + c(l))),
    TW_OP("v_mad_i32_i16", VT::b32, (std::array<VT, 4>{VT::b16, VT::b16, VT::b32}), 3, u32(sx16(l.s[0]) * sx16(l.s[1]) + i32(c(l)))),
    TW_OP("v_lshlrev_b16", VT::b16, H2, 2, (l.s[1] << (l.s[0] & 15)) & 0xffff),
    TW_OP("v_lshrrev_b16", VT::b16, H2, 2, l.s[1] >> (l.s[0] & 15)),
    TW_OP("v_ashrrev_i16", VT::b16, H2, 2, u64(sx16(l.s[1]) >> (l.s[0] & 15)) & 0xffff),
    TW_OP("v_and_b16", VT::b16, H2, 2, l.s[0] & l.s[1]),
    TW_OP("v_or_b16", VT::b16, H2, 2, l.s[0] | l.s[1]),
    TW_OP("v_xor_b16", VT::b16, H2, 2, l.s[0] ^ l.s[1]),
    TW_OP("v_max_u16", VT::b16, H2, 2, std::max(l.s[0], l.s[1])),
    TW_OP("v_min_u16", VT::b16, H2, 2, std::min(l.s[0], l.s[1])),
    TW_OP("v_max_i16", VT::b16, H2, 2, u64(std::max(sx16(l.s[0]), sx16(l.s[1]))) & 0xffff),
    TW_OP("v_min_i16", VT::b16, H2, 2, u64(std::min(sx16(l.s[0]), sx16(l.s[1]))) & 0xffff),
    TW_OP("v_max3_u16", VT::b16, H3, 3, std::max({l.s[0], l.s[1], l.s[2]})),
    TW_OP("v_min3_u16", VT::b16, H3, 3, std::min({l.s[0], l.s[1], l.s[2]})),
    TW_OP("v_med3_u16", VT::b16, H3, 3, med3(l.s[0], l.s[1], l.s[2])),
    TW_OP("v_max3_i16", VT::b16, H3, 3, u64(std::max({sx16(l.s[0]), sx16(l.s[1]), sx16(l.s[2])})) & 0xffff),
    TW_OP("v_min3_i16", VT::b16, H3, 3, u64(std::min({sx16(l.s[0]), sx16(l.s[1]), sx16(l.s[2])})) & 0xffff),
    TW_OP("v_med3_i16", VT::b16, H3, 3, u64(med3(sx16(l.s[0]), sx16(l.s[1]), sx16(l.s[2]))) & 0xffff),
    // Selects: the mask is the last operand (vcc_lo or an SGPR), VCC in VOPD.
    vop("v_cndmask_b32", VT::b32, B2, 2, Form::mask_in, [](Lane& l) -> u64 { return l.mask_in ? b(l) : a(l); }),
    vop("v_cndmask_b16", VT::b16, H2, 2, Form::mask_in, [](Lane& l) -> u64 { return l.mask_in ? l.s[1] : l.s[0]; }),
    // Carries: sdst gets the carry / borrow of each active lane.
    vop("v_add_co_u32", VT::b32, B2, 2, Form::carry_out, [](Lane& l) -> u64 {
              const u64 s = u64(a(l)) + b(l);
              l.mask_out = s >> 32;
              return sat_u32(l, s);
            }, true),
    vop("v_sub_co_u32", VT::b32, B2, 2, Form::carry_out, [](Lane& l) -> u64 {
              l.mask_out = b(l) > a(l);
              return l.clamp && l.mask_out ? 0 : u32(a(l) - b(l));
            }, true),
    vop("v_subrev_co_u32", VT::b32, B2, 2, Form::carry_out, [](Lane& l) -> u64 {
              l.mask_out = a(l) > b(l);
              return l.clamp && l.mask_out ? 0 : u32(b(l) - a(l));
            }, true),
    vop("v_add_co_ci_u32", VT::b32, B2, 2, Form::carry_inout, [](Lane& l) -> u64 {
              const u64 s = u64(a(l)) + b(l) + (l.mask_in ? 1 : 0);
              l.mask_out = s >> 32;
              return sat_u32(l, s);
            }, true),
    vop("v_sub_co_ci_u32", VT::b32, B2, 2, Form::carry_inout, [](Lane& l) -> u64 {
              const u64 sub = u64(b(l)) + (l.mask_in ? 1 : 0);
              l.mask_out = sub > a(l);
              return l.clamp && l.mask_out ? 0 : u32(u64(a(l)) - sub);
            }, true),
    vop("v_subrev_co_ci_u32", VT::b32, B2, 2, Form::carry_inout, [](Lane& l) -> u64 {
              const u64 sub = u64(a(l)) + (l.mask_in ? 1 : 0);
              l.mask_out = sub > b(l);
              return l.clamp && l.mask_out ? 0 : u32(u64(b(l)) - sub);
            }, true),
    // 32 x 32 + 64 multiply-add with a carry-out of the 64-bit sum.
    vop("v_mad_co_u64_u32", VT::b64, {VT::b32, VT::b32, VT::b64}, 3, Form::carry_out, [](Lane& l) -> u64 {
              // The product of two 32-bit values fits 64 bits, so the carry out of the 65-bit
              // sum is the carry of a 64-bit add (a form the all-lanes loops vectorise).
              const u64 product = u64(a(l)) * b(l);
              const u64 sum = product + l.s[2];
              l.mask_out = sum < product;
              return sum;
            }, true),
    vop("v_mad_co_i64_i32", VT::b64, {VT::b32, VT::b32, VT::b64}, 3, Form::carry_out, [](Lane& l) -> u64 {
              const __int128 s = (__int128)(i64(i32(a(l))) * i32(b(l))) + i64(l.s[2]);
              l.mask_out = s > std::numeric_limits<i64>::max() || s < std::numeric_limits<i64>::min();
              return u64(s);
            }, true),
};

#undef TW_OP
#undef TW_OPC
#undef B1
#undef B2
#undef B3
#undef H1
#undef H2
#undef H3

} // namespace

void register_int_ops(HandlerTable& t) {
  register_specs(t, kIntSpecs);
}

} // namespace tw::emu::valu
