// Scalar ALU: SOP1 / SOP2 / SOPC / SOPK (32- and 64-bit integer ops, the gfx12 scalar
// float ops, saveexec forms, s_getreg / s_setreg).
#include <runtime/emu/handlers.hpp>

#include <bit>
#include <cmath>
#include <fmt/format.h>

namespace tw::emu {
namespace {

struct R32 {
  uint32_t v;
  int scc = -1; // -1: SCC unchanged
};
struct R64 {
  uint64_t v;
  int scc = -1;
};

int nz(uint64_t v) {
  return v != 0;
}
uint32_t sext16(int64_t v) {
  return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v & 0xffff)));
}

template <auto F>
void sop2_32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  R32 r = F(w.sread32(in.op(1)), w.sread32(in.op(2)), w.scc);
  w.swrite32(in.op(0), r.v);
  if (r.scc >= 0)
    w.scc = r.scc;
}
template <auto F>
void sop2_64(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  R64 r = F(w.sread64(in.op(1)), w.sread64(in.op(2)), w.scc);
  w.swrite64(in.op(0), r.v);
  if (r.scc >= 0)
    w.scc = r.scc;
}
// 64-bit value, 32-bit second operand (shifts, bfe).
template <auto F>
void sop2_64_32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  R64 r = F(w.sread64(in.op(1)), uint64_t(w.sread32(in.op(2))), w.scc);
  w.swrite64(in.op(0), r.v);
  if (r.scc >= 0)
    w.scc = r.scc;
}
template <auto F>
void sop1_32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  R32 r = F(w.sread32(in.op(1)), w.scc);
  w.swrite32(in.op(0), r.v);
  if (r.scc >= 0)
    w.scc = r.scc;
}
template <auto F>
void sop1_64(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  R64 r = F(w.sread64(in.op(1)), w.scc);
  w.swrite64(in.op(0), r.v);
  if (r.scc >= 0)
    w.scc = r.scc;
}
// 32-bit result from a 64-bit source (bcnt, ctz of b64).
template <auto F>
void sop1_32_64(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  R32 r = F(w.sread64(in.op(1)), w.scc);
  w.swrite32(in.op(0), r.v);
  if (r.scc >= 0)
    w.scc = r.scc;
}
template <auto F>
void sopc_32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.scc = F(w.sread32(in.op(0)), w.sread32(in.op(1)));
}
template <auto F>
void sopc_64(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.scc = F(w.sread64(in.op(0)), w.sread64(in.op(1)));
}

// ---- saveexec / wrexec ------------------------------------------------------------
template <auto F>
void saveexec(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  const uint32_t old = w.exec();
  const uint32_t src = w.sread32(in.op(1));
  w.set_exec(F(src, old));
  w.swrite32(in.op(0), old);
  w.scc = w.exec() != 0;
}
template <auto F>
void wrexec(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.set_exec(F(w.sread32(in.op(1)), w.exec()));
  w.swrite32(in.op(0), w.exec());
  w.scc = w.exec() != 0;
}

// ---- float (gfx12 SALU float) -----------------------------------------------------
float f(uint32_t b) {
  return std::bit_cast<float>(b);
}
uint32_t b(float x) {
  return std::bit_cast<uint32_t>(x);
}

template <auto F>
void sop2_f32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.swrite32(in.op(0),
             b(F(f(w.sread32(in.op(1), ImmType::F32)), f(w.sread32(in.op(2), ImmType::F32)))));
}
template <auto F>
void sop1_f32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.swrite32(in.op(0), F(w.sread32(in.op(1), ImmType::F32)));
}
template <auto F>
void sopc_f32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.scc = F(f(w.sread32(in.op(0), ImmType::F32)), f(w.sread32(in.op(1), ImmType::F32)));
}
void s_fmac_f32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.swrite32(in.op(0), b(std::fma(f(w.sread32(in.op(1), ImmType::F32)),
                                  f(w.sread32(in.op(2), ImmType::F32)), f(w.sread32(in.op(0))))));
}
void s_fmaak_f32(WaveContext& c, const DecodedInstr& in) { // D = S0 * S1 + K
  auto& w = c.wave;
  w.swrite32(in.op(0),
             b(std::fma(f(w.sread32(in.op(1), ImmType::F32)), f(w.sread32(in.op(2), ImmType::F32)),
                        f(w.sread32(in.op(3), ImmType::F32)))));
}
void s_fmamk_f32(WaveContext& c, const DecodedInstr& in) { // D = S0 * K + S1
  auto& w = c.wave;
  w.swrite32(in.op(0),
             b(std::fma(f(w.sread32(in.op(1), ImmType::F32)), f(w.sread32(in.op(2), ImmType::F32)),
                        f(w.sread32(in.op(3), ImmType::F32)))));
}
int32_t cvt_i32(float x) {
  if (std::isnan(x))
    return 0;
  if (x >= 2147483647.0f)
    return INT32_MAX;
  if (x <= -2147483648.0f)
    return INT32_MIN;
  return static_cast<int32_t>(x);
}
uint32_t cvt_u32(float x) {
  if (std::isnan(x) || x <= 0)
    return 0;
  if (x >= 4294967295.0f)
    return UINT32_MAX;
  return static_cast<uint32_t>(x);
}

// ---- SOPK ----------------------------------------------------------------------------
void s_movk_i32(WaveContext& c, const DecodedInstr& in) {
  c.wave.swrite32(in.op(0), sext16(in.op(1).value));
}
void s_cmovk_i32(WaveContext& c, const DecodedInstr& in) {
  if (c.wave.scc)
    c.wave.swrite32(in.op(0), sext16(in.op(1).value));
}
void s_addk_co_i32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  const int32_t a = static_cast<int32_t>(w.sread32(in.op(0)));
  const int32_t k = static_cast<int32_t>(sext16(in.op(1).value));
  int32_t r;
  w.scc = __builtin_add_overflow(a, k, &r);
  w.swrite32(in.op(0), static_cast<uint32_t>(r));
}
void s_mulk_i32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  w.swrite32(in.op(0), w.sread32(in.op(0)) * sext16(in.op(1).value));
}

// hwreg(NAME[, offset, size]) as printed.
struct HwReg {
  int id = -1;
  unsigned offset = 0, size = 32;
};
HwReg parse_hwreg(WaveContext& c, const DecodedInstr& in, const Operand& op) {
  HwReg h;
  std::string_view t = op.text;
  auto open = t.find('('), close = t.rfind(')');
  if (t.substr(0, 5) != "hwreg" || open == std::string_view::npos ||
      close == std::string_view::npos)
    c.fail(in, "cannot parse the hwreg operand");
  std::string inside(t.substr(open + 1, close - open - 1));
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : inside) {
    if (ch == ',') {
      parts.push_back(cur);
      cur.clear();
    } else if (ch != ' ')
      cur += ch;
  }
  parts.push_back(cur);
  const std::string& name = parts[0];
  if (name == "HW_REG_WAVE_MODE" || name == "HW_REG_MODE" || name == "1")
    h.id = 1;
  else if (name == "HW_REG_WAVE_TRAPSTS" || name == "HW_REG_TRAPSTS")
    h.id = 3;
  else if (name == "HW_REG_WAVE_STATUS" || name == "HW_REG_STATUS")
    h.id = 2;
  else
    h.id = 1000; // other registers read as 0
  if (parts.size() >= 3) {
    h.offset = static_cast<unsigned>(std::stoul(parts[1], nullptr, 0));
    h.size = static_cast<unsigned>(std::stoul(parts[2], nullptr, 0));
  }
  return h;
}
uint32_t* hwreg_storage(WaveState& w, int id) {
  if (id == 1)
    return &w.mode;
  if (id == 3)
    return &w.trapsts;
  return nullptr;
}
uint32_t field_mask(const HwReg& h) {
  return (h.size >= 32 ? 0xffffffffu : ((1u << h.size) - 1u)) << h.offset;
}
void s_getreg_b32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  HwReg h = parse_hwreg(c, in, in.op(1));
  uint32_t v = 0;
  if (uint32_t* r = hwreg_storage(w, h.id))
    v = (*r & field_mask(h)) >> h.offset;
  else if (h.id == 2)
    v = (w.scc ? 1u : 0u) | (w.exec() == 0 ? 1u << 9 : 0u);
  w.swrite32(in.op(0), v);
}
void setreg(WaveContext& c, const DecodedInstr& in, const HwReg& h, uint32_t value) {
  uint32_t* r = hwreg_storage(c.wave, h.id);
  if (!r)
    c.fail(in, "s_setreg of this hardware register is not supported");
  const uint32_t m = field_mask(h);
  *r = (*r & ~m) | ((value << h.offset) & m);
}
void s_setreg_b32(WaveContext& c, const DecodedInstr& in) {
  setreg(c, in, parse_hwreg(c, in, in.op(0)), c.wave.sread32(in.op(1)));
}
void s_setreg_imm32_b32(WaveContext& c, const DecodedInstr& in) {
  setreg(c, in, parse_hwreg(c, in, in.op(0)), static_cast<uint32_t>(in.op(1).value));
}

// ---- misc ------------------------------------------------------------------------------
void s_getpc_b64(WaveContext& c, const DecodedInstr& in) {
  c.wave.swrite64(in.op(0), in.pc + in.size);
}
void s_setpc_b64(WaveContext& c, const DecodedInstr& in) {
  c.jump(c.wave.sread64(in.op(0)));
}
void s_swappc_b64(WaveContext& c, const DecodedInstr& in) {
  const uint64_t target = c.wave.sread64(in.op(1));
  c.wave.swrite64(in.op(0), in.pc + in.size);
  c.jump(target);
}
void s_movrels_b32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  const unsigned r = in.op(1).reg + w.m0();
  if (!in.op(1).is_sgpr() || r >= sreg::kFileSize)
    c.fail(in, "s_movrels index out of range");
  w.swrite32(in.op(0), w.sgpr[r]);
}
void s_movreld_b32(WaveContext& c, const DecodedInstr& in) {
  auto& w = c.wave;
  const unsigned r = in.op(0).reg + w.m0();
  if (!in.op(0).is_sgpr() || r >= sreg::kFileSize)
    c.fail(in, "s_movreld index out of range");
  if (r != sreg::kNull) // null must keep reading 0
    w.sgpr[r] = w.sread32(in.op(1));
}
void s_round_mode(WaveContext& c, const DecodedInstr& in) {
  c.wave.mode = (c.wave.mode & ~0xfu) | (static_cast<uint32_t>(in.op(0).value) & 0xf);
}
void s_denorm_mode(WaveContext& c, const DecodedInstr& in) {
  c.wave.mode = (c.wave.mode & ~0xf0u) | ((static_cast<uint32_t>(in.op(0).value) & 0xf) << 4);
}

uint32_t bfe32(uint32_t v, uint32_t ctl, bool sign) {
  const uint32_t off = ctl & 31, width = (ctl >> 16) & 127;
  if (width == 0)
    return 0;
  uint32_t r = v >> off;
  if (width < 32)
    r &= (1u << width) - 1u;
  if (sign && width < 32 && (r >> (width - 1)) & 1u)
    r |= ~((1u << width) - 1u);
  return r;
}
uint64_t bfe64(uint64_t v, uint64_t ctl, bool sign) {
  const uint32_t off = ctl & 63, width = (ctl >> 16) & 127;
  if (width == 0)
    return 0;
  uint64_t r = v >> off;
  if (width < 64)
    r &= (1ull << width) - 1ull;
  if (sign && width < 64 && (r >> (width - 1)) & 1ull)
    r |= ~((1ull << width) - 1ull);
  return r;
}

} // namespace

void register_salu_handlers(HandlerTable& t) {
  using u32 = uint32_t;
  using u64 = uint64_t;
  using i32 = int32_t;
  using i64 = int64_t;
  // SOP2 32-bit
  t.add("s_add_co_u32", sop2_32<([](u32 a, u32 b, bool) {
          return R32{a + b, (u64(a) + b) >> 32 != 0};
        })>);
  t.add("s_sub_co_u32", sop2_32<([](u32 a, u32 b, bool) { return R32{a - b, b > a}; })>);
  t.add("s_add_co_i32", sop2_32<([](u32 a, u32 b, bool) {
          i32 r;
          bool o = __builtin_add_overflow(i32(a), i32(b), &r);
          return R32{u32(r), o};
        })>);
  t.add("s_sub_co_i32", sop2_32<([](u32 a, u32 b, bool) {
          i32 r;
          bool o = __builtin_sub_overflow(i32(a), i32(b), &r);
          return R32{u32(r), o};
        })>);
  t.add("s_add_co_ci_u32", sop2_32<([](u32 a, u32 b, bool s) {
          u64 r = u64(a) + b + s;
          return R32{u32(r), (r >> 32) != 0};
        })>);
  t.add("s_sub_co_ci_u32", sop2_32<([](u32 a, u32 b, bool s) {
          return R32{a - b - s, u64(b) + s > a};
        })>);
  t.add("s_min_i32", sop2_32<([](u32 a, u32 b, bool) {
          return R32{i32(a) < i32(b) ? a : b, i32(a) < i32(b)};
        })>);
  t.add("s_min_u32", sop2_32<([](u32 a, u32 b, bool) { return R32{a < b ? a : b, a < b}; })>);
  t.add("s_max_i32", sop2_32<([](u32 a, u32 b, bool) {
          return R32{i32(a) > i32(b) ? a : b, i32(a) > i32(b)};
        })>);
  t.add("s_max_u32", sop2_32<([](u32 a, u32 b, bool) { return R32{a > b ? a : b, a > b}; })>);
  t.add("s_cselect_b32", sop2_32<([](u32 a, u32 b, bool s) { return R32{s ? a : b}; })>);
  t.add("s_and_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{a & b, nz(a & b)}; })>);
  t.add("s_or_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{a | b, nz(a | b)}; })>);
  t.add("s_xor_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{a ^ b, nz(a ^ b)}; })>);
  t.add("s_nand_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{~(a & b), nz(~(a & b))}; })>);
  t.add("s_nor_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{~(a | b), nz(~(a | b))}; })>);
  t.add("s_xnor_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{~(a ^ b), nz(~(a ^ b))}; })>);
  t.add("s_and_not1_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{a & ~b, nz(a & ~b)}; })>);
  t.add("s_or_not1_b32", sop2_32<([](u32 a, u32 b, bool) { return R32{a | ~b, nz(a | ~b)}; })>);
  t.add("s_lshl_b32", sop2_32<([](u32 a, u32 b, bool) {
          u32 r = a << (b & 31);
          return R32{r, nz(r)};
        })>);
  t.add("s_lshr_b32", sop2_32<([](u32 a, u32 b, bool) {
          u32 r = a >> (b & 31);
          return R32{r, nz(r)};
        })>);
  t.add("s_ashr_i32", sop2_32<([](u32 a, u32 b, bool) {
          u32 r = u32(i32(a) >> (b & 31));
          return R32{r, nz(r)};
        })>);
  t.add("s_lshl1_add_u32", sop2_32<([](u32 a, u32 b, bool) {
          u64 r = (u64(a) << 1) + b;
          return R32{u32(r), (r >> 32) != 0};
        })>);
  t.add("s_lshl2_add_u32", sop2_32<([](u32 a, u32 b, bool) {
          u64 r = (u64(a) << 2) + b;
          return R32{u32(r), (r >> 32) != 0};
        })>);
  t.add("s_lshl3_add_u32", sop2_32<([](u32 a, u32 b, bool) {
          u64 r = (u64(a) << 3) + b;
          return R32{u32(r), (r >> 32) != 0};
        })>);
  t.add("s_lshl4_add_u32", sop2_32<([](u32 a, u32 b, bool) {
          u64 r = (u64(a) << 4) + b;
          return R32{u32(r), (r >> 32) != 0};
        })>);
  t.add("s_bfm_b32", sop2_32<([](u32 a, u32 b, bool) {
          return R32{((a & 31) == 0 ? 0u : (1u << (a & 31)) - 1u) << (b & 31)};
        })>);
  t.add("s_mul_i32", sop2_32<([](u32 a, u32 b, bool) { return R32{a * b}; })>);
  t.add("s_mul_hi_u32", sop2_32<([](u32 a, u32 b, bool) { return R32{u32((u64(a) * b) >> 32)}; })>);
  t.add("s_mul_hi_i32",
        sop2_32<([](u32 a, u32 b, bool) { return R32{u32(u64(i64(i32(a)) * i32(b)) >> 32)}; })>);
  t.add("s_bfe_u32", sop2_32<([](u32 a, u32 b, bool) {
          u32 r = bfe32(a, b, false);
          return R32{r, nz(r)};
        })>);
  t.add("s_bfe_i32", sop2_32<([](u32 a, u32 b, bool) {
          u32 r = bfe32(a, b, true);
          return R32{r, nz(r)};
        })>);
  t.add("s_absdiff_i32", sop2_32<([](u32 a, u32 b, bool) {
          i64 d = i64(i32(a)) - i32(b);
          u32 r = u32(d < 0 ? -d : d);
          return R32{r, nz(r)};
        })>);
  t.add("s_pack_ll_b32_b16",
        sop2_32<([](u32 a, u32 b, bool) { return R32{(a & 0xffff) | (b << 16)}; })>);
  t.add("s_pack_lh_b32_b16",
        sop2_32<([](u32 a, u32 b, bool) { return R32{(a & 0xffff) | (b & 0xffff0000u)}; })>);
  t.add("s_pack_hh_b32_b16",
        sop2_32<([](u32 a, u32 b, bool) { return R32{(a >> 16) | (b & 0xffff0000u)}; })>);
  t.add("s_pack_hl_b32_b16",
        sop2_32<([](u32 a, u32 b, bool) { return R32{(a >> 16) | (b << 16)}; })>);
  // SOP2 64-bit
  t.add("s_cselect_b64", sop2_64<([](u64 a, u64 b, bool s) { return R64{s ? a : b}; })>);
  t.add("s_and_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{a & b, nz(a & b)}; })>);
  t.add("s_or_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{a | b, nz(a | b)}; })>);
  t.add("s_xor_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{a ^ b, nz(a ^ b)}; })>);
  t.add("s_nand_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{~(a & b), nz(~(a & b))}; })>);
  t.add("s_nor_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{~(a | b), nz(~(a | b))}; })>);
  t.add("s_xnor_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{~(a ^ b), nz(~(a ^ b))}; })>);
  t.add("s_and_not1_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{a & ~b, nz(a & ~b)}; })>);
  t.add("s_or_not1_b64", sop2_64<([](u64 a, u64 b, bool) { return R64{a | ~b, nz(a | ~b)}; })>);
  t.add("s_lshl_b64", sop2_64_32<([](u64 a, u64 b, bool) {
          u64 r = a << (b & 63);
          return R64{r, nz(r)};
        })>);
  t.add("s_lshr_b64", sop2_64_32<([](u64 a, u64 b, bool) {
          u64 r = a >> (b & 63);
          return R64{r, nz(r)};
        })>);
  t.add("s_ashr_i64", sop2_64_32<([](u64 a, u64 b, bool) {
          u64 r = u64(i64(a) >> (b & 63));
          return R64{r, nz(r)};
        })>);
  t.add("s_bfe_u64", sop2_64_32<([](u64 a, u64 b, bool) {
          u64 r = bfe64(a, b, false);
          return R64{r, nz(r)};
        })>);
  t.add("s_bfe_i64", sop2_64_32<([](u64 a, u64 b, bool) {
          u64 r = bfe64(a, b, true);
          return R64{r, nz(r)};
        })>);
  t.add("s_bfm_b64", sop2_64<([](u64 a, u64 b, bool) {
          return R64{((a & 63) == 0 ? 0ull : (1ull << (a & 63)) - 1ull) << (b & 63)};
        })>);
  t.add("s_add_nc_u64", sop2_64<([](u64 a, u64 b, bool) { return R64{a + b}; })>);
  t.add("s_sub_nc_u64", sop2_64<([](u64 a, u64 b, bool) { return R64{a - b}; })>);
  t.add("s_mul_u64", sop2_64<([](u64 a, u64 b, bool) { return R64{a * b}; })>);
  // SOP1
  t.add("s_mov_b32", sop1_32<([](u32 a, bool) { return R32{a}; })>);
  t.add("s_mov_b64", sop1_64<([](u64 a, bool) { return R64{a}; })>);
  t.add("s_cmov_b32", [](WaveContext& c, const DecodedInstr& in) {
    if (c.wave.scc)
      c.wave.swrite32(in.op(0), c.wave.sread32(in.op(1)));
  });
  t.add("s_cmov_b64", [](WaveContext& c, const DecodedInstr& in) {
    if (c.wave.scc)
      c.wave.swrite64(in.op(0), c.wave.sread64(in.op(1)));
  });
  t.add("s_not_b32", sop1_32<([](u32 a, bool) { return R32{~a, nz(~a)}; })>);
  t.add("s_not_b64", sop1_64<([](u64 a, bool) { return R64{~a, nz(~a)}; })>);
  t.add("s_brev_b32", sop1_32<([](u32 a, bool) {
          u32 r = 0;
          for (int i = 0; i < 32; ++i)
            r |= ((a >> i) & 1u) << (31 - i);
          return R32{r};
        })>);
  t.add("s_brev_b64", sop1_64<([](u64 a, bool) {
          u64 r = 0;
          for (int i = 0; i < 64; ++i)
            r |= ((a >> i) & 1ull) << (63 - i);
          return R64{r};
        })>);
  t.add("s_bcnt0_i32_b32", sop1_32<([](u32 a, bool) {
          u32 r = u32(std::popcount(~a));
          return R32{r, nz(r)};
        })>);
  t.add("s_bcnt1_i32_b32", sop1_32<([](u32 a, bool) {
          u32 r = u32(std::popcount(a));
          return R32{r, nz(r)};
        })>);
  t.add("s_bcnt0_i32_b64", sop1_32_64<([](u64 a, bool) {
          u32 r = u32(std::popcount(~a));
          return R32{r, nz(r)};
        })>);
  t.add("s_bcnt1_i32_b64", sop1_32_64<([](u64 a, bool) {
          u32 r = u32(std::popcount(a));
          return R32{r, nz(r)};
        })>);
  t.add("s_ctz_i32_b32",
        sop1_32<([](u32 a, bool) { return R32{a ? u32(std::countr_zero(a)) : ~0u}; })>);
  t.add("s_ctz_i32_b64",
        sop1_32_64<([](u64 a, bool) { return R32{a ? u32(std::countr_zero(a)) : ~0u}; })>);
  t.add("s_clz_i32_u32",
        sop1_32<([](u32 a, bool) { return R32{a ? u32(std::countl_zero(a)) : ~0u}; })>);
  t.add("s_clz_i32_u64",
        sop1_32_64<([](u64 a, bool) { return R32{a ? u32(std::countl_zero(a)) : ~0u}; })>);
  t.add("s_cls_i32", sop1_32<([](u32 a, bool) {
          return R32{(a == 0 || a == ~0u) ? ~0u : u32(std::countl_zero(i32(a) < 0 ? ~a : a))};
        })>);
  t.add("s_sext_i32_i8", sop1_32<([](u32 a, bool) { return R32{u32(i32(int8_t(a & 0xff)))}; })>);
  t.add("s_sext_i32_i16",
        sop1_32<([](u32 a, bool) { return R32{u32(i32(int16_t(a & 0xffff)))}; })>);
  t.add("s_abs_i32", sop1_32<([](u32 a, bool) {
          u32 r = i32(a) < 0 ? 0u - a : a;
          return R32{r, nz(r)};
        })>);
  t.add("s_bitset0_b32", [](WaveContext& c, const DecodedInstr& in) {
    auto& w = c.wave;
    w.swrite32(in.op(0), w.sread32(in.op(0)) & ~(1u << (w.sread32(in.op(1)) & 31)));
  });
  t.add("s_bitset1_b32", [](WaveContext& c, const DecodedInstr& in) {
    auto& w = c.wave;
    w.swrite32(in.op(0), w.sread32(in.op(0)) | (1u << (w.sread32(in.op(1)) & 31)));
  });
  t.add("s_bitset0_b64", [](WaveContext& c, const DecodedInstr& in) {
    auto& w = c.wave;
    w.swrite64(in.op(0), w.sread64(in.op(0)) & ~(1ull << (w.sread32(in.op(1)) & 63)));
  });
  t.add("s_bitset1_b64", [](WaveContext& c, const DecodedInstr& in) {
    auto& w = c.wave;
    w.swrite64(in.op(0), w.sread64(in.op(0)) | (1ull << (w.sread32(in.op(1)) & 63)));
  });
  t.add("s_quadmask_b32", sop1_32<([](u32 a, bool) {
          u32 r = 0;
          for (int q = 0; q < 8; ++q)
            r |= ((a >> (4 * q)) & 0xf ? 1u : 0u) << q;
          return R32{r, nz(r)};
        })>);
  t.add("s_wqm_b32", sop1_32<([](u32 a, bool) {
          u32 r = 0;
          for (int q = 0; q < 8; ++q)
            if ((a >> (4 * q)) & 0xf)
              r |= 0xfu << (4 * q);
          return R32{r, nz(r)};
        })>);
  t.add("s_getpc_b64", s_getpc_b64);
  t.add("s_setpc_b64", s_setpc_b64);
  t.add("s_swappc_b64", s_swappc_b64);
  t.add("s_movrels_b32", s_movrels_b32);
  t.add("s_movreld_b32", s_movreld_b32);
  // saveexec (gfx12 names: not0 inverts the source, not1 inverts EXEC)
  t.add("s_and_saveexec_b32", saveexec<([](u32 s, u32 e) { return s & e; })>);
  t.add("s_or_saveexec_b32", saveexec<([](u32 s, u32 e) { return s | e; })>);
  t.add("s_xor_saveexec_b32", saveexec<([](u32 s, u32 e) { return s ^ e; })>);
  t.add("s_nand_saveexec_b32", saveexec<([](u32 s, u32 e) { return ~(s & e); })>);
  t.add("s_nor_saveexec_b32", saveexec<([](u32 s, u32 e) { return ~(s | e); })>);
  t.add("s_xnor_saveexec_b32", saveexec<([](u32 s, u32 e) { return ~(s ^ e); })>);
  t.add("s_and_not0_saveexec_b32", saveexec<([](u32 s, u32 e) { return ~s & e; })>);
  t.add("s_and_not1_saveexec_b32", saveexec<([](u32 s, u32 e) { return s & ~e; })>);
  t.add("s_or_not0_saveexec_b32", saveexec<([](u32 s, u32 e) { return ~s | e; })>);
  t.add("s_or_not1_saveexec_b32", saveexec<([](u32 s, u32 e) { return s | ~e; })>);
  t.add("s_and_not0_wrexec_b32", wrexec<([](u32 s, u32 e) { return ~s & e; })>);
  t.add("s_and_not1_wrexec_b32", wrexec<([](u32 s, u32 e) { return s & ~e; })>);
  // SOPC
  t.add("s_cmp_eq_i32", sopc_32<([](u32 a, u32 b) { return a == b; })>);
  t.add("s_cmp_lg_i32", sopc_32<([](u32 a, u32 b) { return a != b; })>);
  t.add("s_cmp_gt_i32", sopc_32<([](u32 a, u32 b) { return i32(a) > i32(b); })>);
  t.add("s_cmp_ge_i32", sopc_32<([](u32 a, u32 b) { return i32(a) >= i32(b); })>);
  t.add("s_cmp_lt_i32", sopc_32<([](u32 a, u32 b) { return i32(a) < i32(b); })>);
  t.add("s_cmp_le_i32", sopc_32<([](u32 a, u32 b) { return i32(a) <= i32(b); })>);
  t.add("s_cmp_eq_u32", sopc_32<([](u32 a, u32 b) { return a == b; })>);
  t.add("s_cmp_lg_u32", sopc_32<([](u32 a, u32 b) { return a != b; })>);
  t.add("s_cmp_gt_u32", sopc_32<([](u32 a, u32 b) { return a > b; })>);
  t.add("s_cmp_ge_u32", sopc_32<([](u32 a, u32 b) { return a >= b; })>);
  t.add("s_cmp_lt_u32", sopc_32<([](u32 a, u32 b) { return a < b; })>);
  t.add("s_cmp_le_u32", sopc_32<([](u32 a, u32 b) { return a <= b; })>);
  t.add("s_cmp_eq_u64", sopc_64<([](u64 a, u64 b) { return a == b; })>);
  t.add("s_cmp_lg_u64", sopc_64<([](u64 a, u64 b) { return a != b; })>);
  t.add("s_bitcmp0_b32", sopc_32<([](u32 a, u32 b) { return ((a >> (b & 31)) & 1u) == 0; })>);
  t.add("s_bitcmp1_b32", sopc_32<([](u32 a, u32 b) { return ((a >> (b & 31)) & 1u) == 1; })>);
  t.add("s_bitcmp0_b64", sopc_64<([](u64 a, u64 b) { return ((a >> (b & 63)) & 1u) == 0; })>);
  t.add("s_bitcmp1_b64", sopc_64<([](u64 a, u64 b) { return ((a >> (b & 63)) & 1u) == 1; })>);
  // SOPK
  t.add("s_movk_i32", s_movk_i32);
  t.add("s_cmovk_i32", s_cmovk_i32);
  t.add("s_addk_co_i32", s_addk_co_i32);
  t.add("s_mulk_i32", s_mulk_i32);
  t.add("s_getreg_b32", s_getreg_b32);
  t.add("s_setreg_b32", s_setreg_b32);
  t.add("s_setreg_imm32_b32", s_setreg_imm32_b32);
  t.add("s_round_mode", s_round_mode);
  t.add("s_denorm_mode", s_denorm_mode);
  // Scalar float (host arithmetic: round-to-nearest-even, denormals kept)
  t.add("s_add_f32", sop2_f32<([](float a, float b) { return a + b; })>);
  t.add("s_sub_f32", sop2_f32<([](float a, float b) { return a - b; })>);
  t.add("s_mul_f32", sop2_f32<([](float a, float b) { return a * b; })>);
  t.add("s_min_num_f32", sop2_f32<([](float a, float b) { return std::fmin(a, b); })>);
  t.add("s_max_num_f32", sop2_f32<([](float a, float b) { return std::fmax(a, b); })>);
  t.add("s_fmac_f32", s_fmac_f32);
  t.add("s_fmaak_f32", s_fmaak_f32);
  t.add("s_fmamk_f32", s_fmamk_f32);
  t.add("s_cvt_f32_i32", sop1_f32<([](u32 a) { return b(float(i32(a))); })>);
  t.add("s_cvt_f32_u32", sop1_f32<([](u32 a) { return b(float(a)); })>);
  t.add("s_cvt_i32_f32", sop1_f32<([](u32 a) { return u32(cvt_i32(f(a))); })>);
  t.add("s_cvt_u32_f32", sop1_f32<([](u32 a) { return cvt_u32(f(a)); })>);
  t.add("s_ceil_f32", sop1_f32<([](u32 a) { return b(std::ceil(f(a))); })>);
  t.add("s_floor_f32", sop1_f32<([](u32 a) { return b(std::floor(f(a))); })>);
  t.add("s_trunc_f32", sop1_f32<([](u32 a) { return b(std::trunc(f(a))); })>);
  t.add("s_rndne_f32", sop1_f32<([](u32 a) { return b(std::nearbyint(f(a))); })>);
  t.add("s_cmp_lt_f32", sopc_f32<([](float a, float b) { return a < b; })>);
  t.add("s_cmp_eq_f32", sopc_f32<([](float a, float b) { return a == b; })>);
  t.add("s_cmp_le_f32", sopc_f32<([](float a, float b) { return a <= b; })>);
  t.add("s_cmp_gt_f32", sopc_f32<([](float a, float b) { return a > b; })>);
  t.add("s_cmp_lg_f32", sopc_f32<([](float a, float b) { return a < b || a > b; })>);
  t.add("s_cmp_ge_f32", sopc_f32<([](float a, float b) { return a >= b; })>);
  t.add("s_cmp_o_f32",
        sopc_f32<([](float a, float b) { return !std::isnan(a) && !std::isnan(b); })>);
  t.add("s_cmp_u_f32", sopc_f32<([](float a, float b) { return std::isnan(a) || std::isnan(b); })>);
  t.add("s_cmp_nge_f32", sopc_f32<([](float a, float b) { return !(a >= b); })>);
  t.add("s_cmp_nlg_f32", sopc_f32<([](float a, float b) { return !(a < b || a > b); })>);
  t.add("s_cmp_ngt_f32", sopc_f32<([](float a, float b) { return !(a > b); })>);
  t.add("s_cmp_nle_f32", sopc_f32<([](float a, float b) { return !(a <= b); })>);
  t.add("s_cmp_neq_f32", sopc_f32<([](float a, float b) { return !(a == b); })>);
  t.add("s_cmp_nlt_f32", sopc_f32<([](float a, float b) { return !(a < b); })>);
}

} // namespace tw::emu
