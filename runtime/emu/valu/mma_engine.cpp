// WMMA / SWMMAC arithmetic: per-instruction lane maps computed once, table decoding of the
// elements, and the dense sums over k in double (float forms) or int32 (integer forms).
#include <runtime/emu/valu/mma_engine.hpp>

#include <atoms/formats.hpp>
#include <atoms/mma/gfx12_instrs.hpp>
#include <atoms/mma/reference.hpp> // mma_encode_float, mma_default_nan
#include <atoms/mma/verify.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// The sums are the hot loops: an AVX2 clone where the host has it. No FMA is used
// (-ffp-contract=off for this file, see runtime/CMakeLists.txt): every product and every sum is
// rounded separately, as in mma_reference.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TW_MMA_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TW_MMA_CLONES
#endif

namespace tw::emu::valu {

namespace detail {

// Four rows of a result column (GCC vector extensions: one AVX2 register), read and written
// through unaligned, aliasing pointers.
typedef double F64x4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef int32_t I32x8 __attribute__((vector_size(32), aligned(4), may_alias));

// D (16 x 16, column-major) = C + A (16 x K) * B (K x 16): each element is its C plus the
// products of increasing k, one at a time; two columns at once for independent sums.
TW_MMA_CLONES void mma_sum_f64(int K, const double* __restrict fa, const double* __restrict fb,
                               const double* __restrict fc, double* __restrict out) {
  for (int col = 0; col < 16; col += 2) {
    F64x4 x[4], y[4];
    for (int q = 0; q < 4; ++q) {
      x[q] = *reinterpret_cast<const F64x4*>(fc + 16 * col + 4 * q);
      y[q] = *reinterpret_cast<const F64x4*>(fc + 16 * col + 16 + 4 * q);
    }
    const double* b0 = fb + K * col;
    const double* b1 = b0 + K;
    for (int k = 0; k < K; ++k) {
      const double* ak = fa + 16 * k;
      for (int q = 0; q < 4; ++q) {
        const F64x4 a = *reinterpret_cast<const F64x4*>(ak + 4 * q);
        x[q] += a * b0[k];
        y[q] += a * b1[k];
      }
    }
    for (int q = 0; q < 4; ++q) {
      *reinterpret_cast<F64x4*>(out + 16 * col + 4 * q) = x[q];
      *reinterpret_cast<F64x4*>(out + 16 * col + 16 + 4 * q) = y[q];
    }
  }
}

// The integer products sum exactly in int32: |a*b| <= 2 * 255 * 255 (a SWMMAC position named
// twice) and K <= 64, far below 2^31; C is added in int64 afterwards.
TW_MMA_CLONES void mma_sum_i32(int K, const int32_t* __restrict ia, const int32_t* __restrict ib,
                               int32_t* __restrict out) {
  for (int col = 0; col < 16; col += 2) {
    I32x8 x[2] = {}, y[2] = {};
    const int32_t* b0 = ib + K * col;
    const int32_t* b1 = b0 + K;
    for (int k = 0; k < K; ++k)
      for (int q = 0; q < 2; ++q) {
        const I32x8 a = *reinterpret_cast<const I32x8*>(ia + 16 * k + 8 * q);
        x[q] += a * b0[k];
        y[q] += a * b1[k];
      }
    for (int q = 0; q < 2; ++q) {
      *reinterpret_cast<I32x8*>(out + 16 * col + 8 * q) = x[q];
      *reinterpret_cast<I32x8*>(out + 16 * col + 16 + 8 * q) = y[q];
    }
  }
}

} // namespace detail

namespace {

using atoms::MmaElem;
using atoms::MmaInstrInfo;
using atoms::MmaModifiers;
using atoms::TvMap;

constexpr int kMaxK = 64;

// Where each element of an operand's registers lands in its dense column-major matrix. Elements
// are in register order: element e of word w (= vgpr * 32 + lane) is entry w * per_word + e.
struct OperandPlan {
  int words = 0, per_word = 1, bits = 32;
  std::vector<uint16_t> dest;
  // SWMMAC A only: dest is row + M * 4 * (k-group), the kept value's position in its group is
  // (index >> shift) & 3 of the lane's index set.
  std::vector<uint8_t> shift;
};

struct MmaPlan {
  OperandPlan a, b, cd;
};

OperandPlan plan_operand(const TvMap& map, int vgprs, int m, bool sparse_a) {
  OperandPlan p;
  p.words = vgprs * 32;
  p.per_word = map.elems_per_vgpr();
  p.bits = map.elem_bits;
  p.dest.resize(size_t(p.words * p.per_word));
  if (sparse_a)
    p.shift.resize(p.dest.size());
  for (int g = 0; g < vgprs; ++g)
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < p.per_word; ++e) {
        const int v = g * p.per_word + e;
        const size_t i = size_t((g * 32 + lane) * p.per_word + e);
        if (sparse_a) {
          const auto [row, kc] = map.coord(lane, v);
          p.dest[i] = uint16_t(row + m * 4 * (kc / 2));
          p.shift[i] = uint8_t(2 * v); // MmaInstrInfo::index_bit(v)
        } else {
          p.dest[i] = uint16_t(map.index(lane, v));
        }
      }
  return p;
}

MmaPlan make_plan(const MmaInstrInfo& info) {
  if (info.m != 16 || info.n != 16 || info.k > kMaxK ||
      info.a.values_per_lane() != info.a_vgprs * info.a.elems_per_vgpr() ||
      info.b.values_per_lane() != info.b_vgprs * info.b.elems_per_vgpr() ||
      info.cd.values_per_lane() != info.cd_vgprs * info.cd.elems_per_vgpr())
    throw std::logic_error(std::string(info.mnemonic) +
                           ": mma_fast handles 16 x 16 results with K <= 64 and full VGPRs");
  return {plan_operand(info.a, info.a_vgprs, info.m, info.sparse),
          plan_operand(info.b, info.b_vgprs, info.m, false),
          plan_operand(info.cd, info.cd_vgprs, info.m, false)};
}

// Plans of the gfx12 table, built once; an MmaInstrInfo from elsewhere gets its own plan.
const MmaPlan& plan_of(const MmaInstrInfo& info, std::unique_ptr<MmaPlan>& own) {
  static const std::vector<MmaPlan> plans = [] {
    std::vector<MmaPlan> p;
    for (const MmaInstrInfo& i : atoms::all_mma_instrs())
      p.push_back(make_plan(i));
    return p;
  }();
  const auto table = atoms::all_mma_instrs();
  if (&info >= table.data() && &info < table.data() + table.size())
    return plans[size_t(&info - table.data())];
  own = std::make_unique<MmaPlan>(make_plan(info));
  return *own;
}

// Element bits -> f32 value, filled from tw::num's decoders (the reference's), so a table entry
// is the reference's value by construction.
struct FloatTables {
  std::vector<float> f16, bf16;
  std::array<float, 256> fp8{}, bf8{};
  FloatTables() : f16(65536), bf16(65536) {
    for (uint32_t i = 0; i < 65536; ++i) {
      f16[i] = num::f16_to_f32(uint16_t(i));
      bf16[i] = num::bf16_to_f32(uint16_t(i));
    }
    for (uint32_t i = 0; i < 256; ++i) {
      fp8[i] = num::e4m3_to_f32(uint8_t(i));
      bf8[i] = num::e5m2_to_f32(uint8_t(i));
    }
  }
};

const float* decode_table(MmaElem e) {
  static const FloatTables t;
  switch (e) {
  case MmaElem::f16:
    return t.f16.data();
  case MmaElem::bf16:
    return t.bf16.data();
  case MmaElem::fp8:
    return t.fp8.data();
  case MmaElem::bf8:
    return t.bf8.data();
  default:
    return nullptr; // f32: the bits themselves
  }
}

// Calls f(entry, element bits, e, lane) for every element of an operand in register order.
template <int Bits, class F>
inline void for_each_element_of_width(const OperandPlan& p, const uint32_t* regs, F&& f) {
  constexpr int per = 32 / Bits;
  constexpr uint32_t mask = Bits == 32 ? ~0u : (1u << Bits) - 1u;
  for (int w = 0; w < p.words; ++w) {
    const uint32_t word = regs[w];
    for (int e = 0; e < per; ++e)
      f(w * per + e, (word >> (e * Bits)) & mask, e, w & 31);
  }
}
template <class F>
inline void for_each_element(const OperandPlan& p, const uint32_t* regs, F&& f) {
  switch (p.bits) {
  case 4:
    return for_each_element_of_width<4>(p, regs, f);
  case 8:
    return for_each_element_of_width<8>(p, regs, f);
  case 16:
    return for_each_element_of_width<16>(p, regs, f);
  default:
    return for_each_element_of_width<32>(p, regs, f);
  }
}

int32_t decode_i(MmaElem type, uint32_t bits, bool is_signed) {
  if (type == MmaElem::iu8)
    return is_signed ? int32_t(int8_t(uint8_t(bits))) : int32_t(bits);
  if (type == MmaElem::iu4)
    return is_signed && bits >= 8 ? int32_t(bits) - 16 : int32_t(bits);
  return int32_t(bits); // i32
}

// The index set of each lane for a SWMMAC (the 16-bit half index_key selects, or all 32 bits).
std::array<uint32_t, 32> index_sets(const MmaInstrInfo& info, const MmaModifiers& mods,
                                    const uint32_t* index) {
  const unsigned shift = info.index_keys == 2 ? 16u * mods.index_key : 0u;
  std::array<uint32_t, 32> sets;
  for (int lane = 0; lane < 32; ++lane)
    sets[lane] = index[lane] >> shift;
  return sets;
}

void run_float(const MmaInstrInfo& info, const MmaPlan& p, const MmaModifiers& mods,
               const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint32_t* index,
               uint32_t* d) {
  const int K = info.k;
  alignas(64) double fa[16 * kMaxK], fb[16 * kMaxK], fc[256], sum[256];
  // A and B are never f32, so they always decode through a table; C may be f32.
  const float* ta = decode_table(info.a_type);
  const float* tb = decode_table(info.b_type);
  const float* tc = decode_table(info.cd_type);
  // neg_lo / neg_hi bit 0 (A) and 1 (B) apply to the low / high 16-bit element of a VGPR.
  // x * -1.0 is -x for every non-NaN x, without a branch per element (a NaN makes the results
  // it reaches NaN either way, and a NaN result is written as the default NaN).
  auto sign = [&](int e, unsigned bit) {
    return (((e == 1 ? mods.neg_hi : mods.neg_lo) >> bit) & 1u) ? -1.0 : 1.0;
  };
  const double a_sign[2] = {sign(0, 0), sign(1, 0)}, b_sign[2] = {sign(0, 1), sign(1, 1)};
  auto signed_value = [](const float* table, uint32_t bits, double s) {
    return double(table[bits]) * s;
  };
  if (info.sparse) {
    std::fill_n(fa, 16 * K, 0.0);
    const auto sets = index_sets(info, mods, index);
    for_each_element(p.a, a, [&](int i, uint32_t bits, int e, int lane) {
      const uint32_t pos = (sets[lane] >> p.a.shift[i]) & 3u;
      fa[p.a.dest[i] + 16 * pos] += signed_value(ta, bits, a_sign[e & 1]);
    });
  } else {
    // 0.0 + x as in the reference's accumulation into a zeroed matrix (-0.0 becomes +0.0).
    for_each_element(p.a, a, [&](int i, uint32_t bits, int e, int) {
      fa[p.a.dest[i]] = 0.0 + signed_value(ta, bits, a_sign[e & 1]);
    });
  }
  for_each_element(p.b, b, [&](int i, uint32_t bits, int e, int) {
    fb[p.b.dest[i]] = signed_value(tb, bits, b_sign[e & 1]);
  });
  const bool abs_c = mods.neg_hi & 4u, neg_c = mods.neg_lo & 4u;
  auto put_c = [&](int i, double x) {
    if (abs_c)
      x = std::fabs(x);
    if (neg_c)
      x = -x;
    fc[p.cd.dest[i]] = x;
  };
  if (tc)
    for_each_element(p.cd, c, [&](int i, uint32_t bits, int, int) { put_c(i, double(tc[bits])); });
  else
    for_each_element(p.cd, c, [&](int i, uint32_t bits, int, int) {
      put_c(i, double(std::bit_cast<float>(bits)));
    });
  detail::mma_sum_f64(K, fa, fb, fc, sum);
  // Rounded once to f32 (the accumulator), then to f16 / bf16 for packed results; a NaN is
  // the type's default NaN (atoms::detail::mma_encode_float, the reference's encoding).
  uint32_t out[8 * 32] = {};
  if (info.cd_type == MmaElem::f32) {
    for (int i = 0; i < p.cd.words; ++i) {
      const float f = float(sum[p.cd.dest[i]]);
      out[i] =
          std::isnan(f) ? atoms::detail::mma_default_nan(MmaElem::f32) : std::bit_cast<uint32_t>(f);
    }
  } else {
    for (int i = 0; i < p.cd.words * 2; ++i)
      out[i / 2] |= atoms::detail::mma_encode_float(info.cd_type, sum[p.cd.dest[i]])
                    << ((i % 2) * 16);
  }
  std::copy_n(out, p.cd.words, d);
}

void run_integer(const MmaInstrInfo& info, const MmaPlan& p, const MmaModifiers& mods,
                 const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint32_t* index,
                 uint32_t* d) {
  const int K = info.k;
  alignas(64) int32_t ia[16 * kMaxK], ib[16 * kMaxK], sum[256];
  int32_t ic[256];
  if (info.sparse) {
    std::fill_n(ia, 16 * K, 0);
    const auto sets = index_sets(info, mods, index);
    for_each_element(p.a, a, [&](int i, uint32_t bits, int, int lane) {
      const uint32_t pos = (sets[lane] >> p.a.shift[i]) & 3u;
      ia[p.a.dest[i] + 16 * pos] += decode_i(info.a_type, bits, mods.a_signed);
    });
  } else {
    for_each_element(p.a, a, [&](int i, uint32_t bits, int, int) {
      ia[p.a.dest[i]] = decode_i(info.a_type, bits, mods.a_signed);
    });
  }
  for_each_element(p.b, b, [&](int i, uint32_t bits, int, int) {
    ib[p.b.dest[i]] = decode_i(info.b_type, bits, mods.b_signed);
  });
  for_each_element(p.cd, c,
                   [&](int i, uint32_t bits, int, int) { ic[p.cd.dest[i]] = int32_t(bits); });
  detail::mma_sum_i32(K, ia, ib, sum);
  uint32_t out[8 * 32];
  for (int i = 0; i < p.cd.words; ++i) {
    const int j = p.cd.dest[i];
    int64_t s = int64_t(ic[j]) + sum[j];
    if (mods.clamp)
      s = std::clamp<int64_t>(s, std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max());
    out[i] = uint32_t(s); // without clamp: wraps modulo 2^32
  }
  std::copy_n(out, p.cd.words, d);
}

MmaMode mode_from_environment() {
  const char* v = std::getenv("TILEWAVE_EMU_MMA");
  return v && std::string_view(v) == "reference" ? MmaMode::reference : MmaMode::fast;
}

std::atomic<MmaMode> g_mode{mode_from_environment()};

} // namespace

void mma_fast(const MmaInstrInfo& info, const MmaModifiers& mods, const uint32_t* a,
              const uint32_t* b, const uint32_t* c, const uint32_t* index, uint32_t* d) {
  atoms::verify_mma_modifiers(info, mods);
  if (!a || !b || !c || !d)
    throw std::invalid_argument(std::string(info.mnemonic) +
                                ": mma_fast needs non-null a, b, c and d registers");
  if (info.sparse && !index)
    throw std::invalid_argument(std::string(info.mnemonic) +
                                ": a SWMMAC needs the index VGPR (index must not be null)");
  std::unique_ptr<MmaPlan> own;
  const MmaPlan& p = plan_of(info, own);
  if (atoms::is_float_elem(info.a_type))
    run_float(info, p, mods, a, b, c, index, d);
  else
    run_integer(info, p, mods, a, b, c, index, d);
}

MmaMode mma_mode() {
  return g_mode.load(std::memory_order_relaxed);
}

void set_mma_mode(MmaMode mode) {
  g_mode.store(mode, std::memory_order_relaxed);
}

} // namespace tw::emu::valu
