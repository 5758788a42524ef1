#pragma once
// The table-driven core of the vector ALU: one VopSpec per mnemonic says how its operands
// are typed and laid out, and a per-lane function computes the result. The engine reads the
// sources (inline constants, SGPR broadcast, DPP lane selection, op_sel halves, neg/abs,
// denormal flushing), calls the lane function for every active lane, and commits the
// results (16-bit halves, 64-bit pairs, carry/compare masks, EXEC, clamp, omod).
// Computing and committing are separate steps so VOPD can read both halves' sources first.
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/valu/value_type.hpp>
#include <runtime/emu/valu/vop_plan.hpp>

#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>

namespace tw::emu::valu {

// How the printed operand list is laid out around the sources.
enum class Form : uint8_t {
  plain,       // vdst, src...
  carry_out,   // vdst, sdst, src...            (v_add_co_u32, v_div_scale_f32)
  carry_inout, // vdst, sdst, src..., mask      (v_add_co_ci_u32)
  mask_in,     // vdst, src..., mask            (v_cndmask_b32, v_div_fmas_f32); VOPD: vcc
  compare,     // sdst, src...                  (v_cmp_*: bit per lane, 0 for inactive lanes)
  compare_x,   // src...                        (v_cmpx_*: the mask becomes EXEC)
  accumulate,  // vdst, src...; vdst is also the last source (v_fmac_f32, v_dot2acc...)
};

// What a lane function sees and may set.
struct Lane {
  std::array<uint64_t, 4> s{}; // sources, modifiers applied (16-bit values in the low bits)
  int lane = 0;
  bool mask_in = false;  // carry-in / select bit of this lane
  bool clamp = false;    // the instruction's clamp bit (integer ops saturate themselves)
  bool mask_out = false; // carry-out / compare result
  const WaveState* wave = nullptr;
};
using LaneFn = uint64_t (*)(Lane&);

// Every active lane of one instruction at once: the sources of all lanes are gathered first,
// then one loop runs the lane function inlined (all_lanes), which the compiler can vectorise.
struct LaneBatch {
  std::array<std::array<uint64_t, kWaveSize>, 4> s; // sources by operand, then lane
  uint32_t exec = 0;
  uint32_t mask_in = 0; // carry-in / select bits
  bool clamp = false;
  const WaveState* wave = nullptr;
  uint64_t* value = nullptr; // kWaveSize results (lanes outside exec untouched)
  uint32_t mask_out = 0;     // carry-out / compare bits of the active lanes
};
using BatchFn = void (*)(LaneBatch&);

// The same for an instruction whose sources and result are all 32-bit (or whose only result is
// the mask): sources are read where they are (a VGPR row as it is, or a 32-lane buffer), each
// zero-extended into Lane::s as LaneBatch gives it, and the results are 32-bit.
struct LaneBatch32 {
  std::array<const uint32_t*, 4> s; // 32 lanes each (unused sources: zeros)
  uint32_t exec = 0;
  uint32_t mask_in = 0;
  bool clamp = false;
  const WaveState* wave = nullptr;
  uint32_t* value = nullptr; // kWaveSize results (lanes outside exec untouched)
  uint32_t mask_out = 0;
};
using Batch32Fn = void (*)(LaneBatch32&);

struct VopSpec {
  std::string_view mnemonic;
  VT dst;
  std::array<VT, 4> src;
  uint8_t nsrc;
  Form form;
  LaneFn fn;
  bool int_clamp = false;  // clamp is handled by fn (integer saturation), not as [0,1]
  BatchFn batch = nullptr; // fn over all active lanes (vop() sets it); null: lane by lane
  // fn over all active lanes with 32-bit sources and result; vop() sets it when every source
  // and the result (if any) are b32 / f32.
  Batch32Fn batch32 = nullptr;
};

// Whether a spec's sources and result are all 32-bit (VopSpec::batch32 applies).
constexpr bool narrow_types(VT dst, const std::array<VT, 4>& src, uint8_t nsrc) {
  auto is_32 = [](VT t) { return t == VT::b32 || t == VT::f32; };
  if (dst != VT::none && !is_32(dst))
    return false;
  for (uint8_t i = 0; i < nsrc && i < 4; ++i)
    if (!is_32(src[i]))
      return false;
  return true;
}

// 1 << lane as a table: loops that test or build masks lane by lane index it, which the
// compiler vectorises (a per-element shift it does not always).
inline constexpr std::array<uint32_t, kWaveSize> kLaneBit = [] {
  std::array<uint32_t, kWaveSize> bits{};
  for (int lane = 0; lane < kWaveSize; ++lane)
    bits[size_t(lane)] = 1u << lane;
  return bits;
}();

// A lane type whose function calls out for rare operands (exact_fma's NaN case) can say so:
// F::exceptional(l) names such lanes and F::fast(l) is F's result for every other lane, free of
// calls. The all-lanes loops then run fast over the lanes (the compiler vectorises it) and F
// again for the exceptional ones, so each lane gets exactly F's result.
template <class F>
concept Exceptional = requires(const Lane& l) {
  { F::fast(l) } -> std::same_as<uint64_t>;
  { F::exceptional(l) } -> std::same_as<bool>;
};

// The dense loop of a lane type with Exceptional: `fast` over all 32 lanes, then F over the
// exceptional ones. `lane_of(lane)` builds a lane's Lane, `put(lane, v)` stores its result.
template <class F, class LaneOf, class Put>
[[gnu::always_inline]] inline void dense_exceptional(LaneOf lane_of, Put put) {
  uint32_t redo = 0;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    const Lane l = lane_of(lane);
    put(lane, F::fast(l));
    redo |= uint32_t(F::exceptional(l)) << lane;
  }
  for (; redo; redo &= redo - 1) {
    const int lane = std::countr_zero(redo);
    Lane l = lane_of(lane);
    put(lane, F{}(l));
  }
}

// The lane function F (a captureless lambda or lane<&f>) over every active lane: a dense loop
// when all 32 lanes are active, else one iteration per set EXEC bit.
template <class F>
[[gnu::always_inline]] inline void all_lanes_body(LaneBatch& b) {
  const F f{};
  if constexpr (Exceptional<F>) { // the lane type has no mask result (fast gives none)
    if (b.exec == ~0u) {
      dense_exceptional<F>(
          [&](int lane) {
            Lane l;
            l.s = {b.s[0][lane], b.s[1][lane], b.s[2][lane], b.s[3][lane]};
            l.lane = lane;
            l.mask_in = (b.mask_in >> lane) & 1u;
            l.clamp = b.clamp;
            l.wave = b.wave;
            return l;
          },
          [&](int lane, uint64_t v) { b.value[lane] = v; });
      return;
    }
  }
  auto one = [&](int lane) {
    Lane l;
    l.s = {b.s[0][lane], b.s[1][lane], b.s[2][lane], b.s[3][lane]};
    l.lane = lane;
    l.mask_in = (b.mask_in >> lane) & 1u;
    l.clamp = b.clamp;
    l.wave = b.wave;
    b.value[lane] = f(l);
    return l.mask_out;
  };
  if (b.exec == ~0u) {
    uint32_t mask_out = 0;
    for (int lane = 0; lane < kWaveSize; ++lane)
      mask_out |= one(lane) ? kLaneBit[size_t(lane)] : 0u;
    b.mask_out |= mask_out;
  } else {
    for (uint32_t m = b.exec; m; m &= m - 1) {
      const int lane = std::countr_zero(m);
      b.mask_out |= uint32_t(one(lane)) << lane;
    }
  }
}
template <class F>
void all_lanes(LaneBatch& b) {
  all_lanes_body<F>(b);
}
template <class F>
[[gnu::always_inline]] inline void all_lanes32_body(LaneBatch32& b) {
  const F f{};
  const uint32_t *s0 = b.s[0], *s1 = b.s[1], *s2 = b.s[2], *s3 = b.s[3];
  uint32_t* value = b.value;
  if constexpr (Exceptional<F>) {
    if (b.exec == ~0u) {
      dense_exceptional<F>(
          [&](int lane) {
            Lane l;
            l.s = {s0[lane], s1[lane], s2[lane], s3[lane]};
            l.lane = lane;
            l.mask_in = (b.mask_in >> lane) & 1u;
            l.clamp = b.clamp;
            l.wave = b.wave;
            return l;
          },
          [&](int lane, uint64_t v) { value[lane] = uint32_t(v); });
      return;
    }
  }
  auto one = [&](int lane) {
    Lane l;
    l.s = {s0[lane], s1[lane], s2[lane], s3[lane]};
    l.lane = lane;
    l.mask_in = (b.mask_in >> lane) & 1u;
    l.clamp = b.clamp;
    l.wave = b.wave;
    value[lane] = uint32_t(f(l));
    return l.mask_out;
  };
  if (b.exec == ~0u) {
    uint32_t mask_out = 0;
    for (int lane = 0; lane < kWaveSize; ++lane)
      mask_out |= one(lane) ? kLaneBit[size_t(lane)] : 0u;
    b.mask_out |= mask_out;
  } else {
    for (uint32_t m = b.exec; m; m &= m - 1) {
      const int lane = std::countr_zero(m);
      b.mask_out |= uint32_t(one(lane)) << lane;
    }
  }
}
template <class F>
void all_lanes32(LaneBatch32& b) {
  all_lanes32_body<F>(b);
}

// The same loop built for hosts with AVX2 and FMA (chosen once, at start-up: host_has_avx2_fma):
// wider vector loops, and std::fma of the lane functions becomes the fused multiply-add
// instruction instead of a libm call. Both round exactly as IEEE specifies, so the results are
// the same bits; the files that instantiate it are built with -ffp-contract=off (see
// runtime/CMakeLists.txt), so no separate multiply and add is ever fused.
#if defined(__x86_64__) && defined(__GNUC__)
#define TW_VALU_AVX2_FMA 1
template <class F>
__attribute__((target("avx2,fma"))) void all_lanes_avx2_fma(LaneBatch& b) {
  all_lanes_body<F>(b);
}
template <class F>
__attribute__((target("avx2,fma"))) void all_lanes32_avx2_fma(LaneBatch32& b) {
  all_lanes32_body<F>(b);
}
bool host_has_avx2_fma();
#endif

template <class F>
uint64_t one_lane(Lane& l) {
  return F{}(l);
}
// A lane function given by address as a callable type (for vop()).
template <LaneFn Fn>
struct LaneCall {
  uint64_t operator()(Lane& l) const { return Fn(l); }
};
template <LaneFn Fn>
inline constexpr LaneCall<Fn> lane{};

// A spec whose lane function is also bound into its all-lanes loop. `f` is a captureless
// lambda (or lane<&function>); the arguments are VopSpec's in order.
template <class F>
VopSpec vop(std::string_view mnemonic, VT dst, std::array<VT, 4> src, uint8_t nsrc, Form form, F,
            bool int_clamp = false) {
#ifdef TW_VALU_AVX2_FMA
  const bool avx2 = host_has_avx2_fma();
  const BatchFn batch = avx2 ? &all_lanes_avx2_fma<F> : &all_lanes<F>;
  const Batch32Fn batch32 = avx2 ? &all_lanes32_avx2_fma<F> : &all_lanes32<F>;
#else
  const BatchFn batch = &all_lanes<F>;
  const Batch32Fn batch32 = &all_lanes32<F>;
#endif
  return VopSpec{mnemonic,  dst,   src,
                 nsrc,      form,  &one_lane<F>,
                 int_clamp, batch, narrow_types(dst, src, nsrc) ? batch32 : nullptr};
}

// The results of one instruction before they are written (VOPD computes both first).
// The value arrays are left unset here (set by compute for the lanes it writes, and zeroed
// by it for the others: zeroing them per instruction showed in profiles).
struct Staged {
  const VopSpec* spec = nullptr;
  const DecodedInstr* in = nullptr;
  uint32_t write_mask = 0; // lanes whose vdst is written
  uint32_t mask_bits = 0;  // carry-out / compare bits
  bool narrow = false;     // the results are in value32 (VopSpec::batch32 ran)
  std::array<uint64_t, kWaveSize> value;
  std::array<uint32_t, kWaveSize> value32;
};

// The plan of `in` for `spec` (vop_plan.hpp): made once per instruction when the program is
// bound; compute() makes one on the spot for an instruction that was not bound (tests).
VopPlan make_plan(const DecodedInstr& in, const VopSpec& spec);

// Reads sources and evaluates spec.fn for every active lane.
void compute(WaveContext& c, const DecodedInstr& in, const VopSpec& spec, Staged& out);
// Writes a computed result (vdst halves / pairs, sdst mask, EXEC for v_cmpx).
void commit(WaveContext& c, const Staged& st);

// Looks up the spec of a mnemonic (nullptr when it is not table-driven).
const VopSpec* find_spec(std::string_view mnemonic);

// Registers every spec of `specs` into `table` with a handler that runs compute + commit.
// Specs must have static storage duration.
void register_specs(HandlerTable& table, std::span<const VopSpec> specs);

// Pieces shared by the hand-written handlers (lane moves, conversions, WMMA).
// Value of source operand `op` for lane `lane` typed `t`: inline constants per type, op_sel
// half `hi` for 16-bit values, neg/abs applied for float types.
uint64_t read_source(const WaveState& w, const Operand& op, int lane, VT t, bool hi);
// DPP: for every lane, the lane its src0 reads, or -1 when it reads nothing (then bound_ctrl
// decides between 0 and "lane not written"). Throws std::invalid_argument for a control
// gfx12 wave32 does not have.
std::array<int8_t, kWaveSize> dpp_source_lanes(const Modifiers& m, uint32_t exec);
// Whether row_mask / bank_mask let DPP lane `lane` write its destination.
bool dpp_lane_enabled(const Modifiers& m, int lane);

// Hand-written handlers that do not model DPP call this first: a DPP form stops the launch
// as unimplemented instead of silently reading the wrong lanes.
inline void require_no_dpp(WaveContext& c, const DecodedInstr& in) {
  if (in.encoding == Encoding::Dpp || in.encoding == Encoding::E64Dpp ||
      in.encoding == Encoding::Sdwa)
    c.unimplemented(in);
}

// Per-type helpers for the tables.
float f16_to_float(uint16_t bits);
uint16_t float_to_f16(float f); // round to nearest even (MODE default)
uint16_t double_to_f16(double d);

// Registration of the op families (one file each).
void register_float_ops(HandlerTable& t);
void register_int_ops(HandlerTable& t);
void register_compare_ops(HandlerTable& t);
void register_convert_ops(HandlerTable& t);
void register_lane_ops(HandlerTable& t);
void register_packed_ops(HandlerTable& t);
void register_dual_issue(HandlerTable& t);
void register_matrix_ops(HandlerTable& t);

} // namespace tw::emu::valu
