// WMMA / SWMMAC arithmetic: per-instruction lane maps computed once; each operand's elements
// converted in register order by one loop per element type (runtime/emu/valu/mma_convert.hpp)
// and placed into dense matrices; the sums over k in double (float forms) or int32 (integer
// forms), one result row of 16 columns at a time, in loops the compiler vectorises; C and D of
// 32 bits read and written in row blocks straight from and to the registers.
#include <runtime/emu/valu/mma_convert.hpp>
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
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

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

#if defined(__x86_64__) && defined(__GNUC__)
#define TW_MMA_X86 1
bool host_has_avx2_fma() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
}
// mma_sum_f64 with fused multiply-adds, for exact products only: when a * b is exact, the fused
// a * b + s rounds once, as round(a * b) + s does, so the results are the same bits. This and
// the AVX-512 form start at a 64-byte boundary (their inner loops are most of a WMMA's
// emulation): at 16 past one, where the fourteenth session's larger timing code moved them,
// the plain emulation of bench_attention's launches measured 2-4% slower; aligned, as fast
// as before (not isolated further).
__attribute__((target("avx2,fma"), aligned(64))) void
mma_sum_f64_fma(int K, const double* __restrict fa, const double* __restrict fb,
                const double* __restrict fc, double* __restrict out) {
  for (int row = 0; row < 16; row += 2) {
    __m256d x[4], y[4];
    for (int q = 0; q < 4; ++q) {
      x[q] = _mm256_loadu_pd(fc + 16 * row + 4 * q);
      y[q] = _mm256_loadu_pd(fc + 16 * row + 16 + 4 * q);
    }
    for (int k = 0; k < K; ++k) {
      const __m256d a0 = _mm256_set1_pd(fa[row + 16 * k]),
                    a1 = _mm256_set1_pd(fa[row + 1 + 16 * k]);
      const double* bk = fb + 16 * k;
      for (int q = 0; q < 4; ++q) {
        const __m256d b = _mm256_loadu_pd(bk + 4 * q);
        x[q] = _mm256_fmadd_pd(a0, b, x[q]);
        y[q] = _mm256_fmadd_pd(a1, b, y[q]);
      }
    }
    for (int q = 0; q < 4; ++q) {
      _mm256_storeu_pd(out + 16 * row + 4 * q, x[q]);
      _mm256_storeu_pd(out + 16 * row + 16 + 4 * q, y[q]);
    }
  }
}
// The same with AVX-512 (a result row is two registers).
bool host_has_avx512f() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
  }();
  return has;
}
__attribute__((target("avx512f"), aligned(64))) void
mma_sum_f64_fma512(int K, const double* __restrict fa, const double* __restrict fb,
                   const double* __restrict fc, double* __restrict out) {
  for (int row = 0; row < 16; row += 4) {
    __m512d x[4][2];
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 2; ++q)
        x[r][q] = _mm512_loadu_pd(fc + 16 * (row + r) + 8 * q);
    for (int k = 0; k < K; ++k) {
      const __m512d b0 = _mm512_loadu_pd(fb + 16 * k), b1 = _mm512_loadu_pd(fb + 16 * k + 8);
      for (int r = 0; r < 4; ++r) {
        const __m512d a = _mm512_set1_pd(fa[row + r + 16 * k]);
        x[r][0] = _mm512_fmadd_pd(a, b0, x[r][0]);
        x[r][1] = _mm512_fmadd_pd(a, b1, x[r][1]);
      }
    }
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 2; ++q)
        _mm512_storeu_pd(out + 16 * (row + r) + 8 * q, x[r][q]);
  }
}
#endif

// f16 <-> f32 of 8 elements at a time with the F16C instructions where the host has them (they
// convert exactly, and round to nearest even when told to, as mma_convert's portable forms do).
#if defined(__x86_64__) && defined(__GNUC__)
#define TW_MMA_F16C 1
bool host_has_f16c() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  }();
  return has;
}
// n is a multiple of 8.
__attribute__((target("avx,f16c"))) void f16_to_f32_f16c(const uint16_t* in, int n, float* out) {
  for (int i = 0; i < n; i += 8)
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
}
// f64 -> f32 (rounded to nearest even, as float(x)) -> f16 (rounded to nearest even); a NaN
// becomes f16's default NaN 0x7e00 (the conversion of the f32 default NaN 0x7fc00000).
__attribute__((target("avx,f16c"))) void f64_to_f16_f16c(const double* in, int n, uint16_t* out) {
  const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
  for (int i = 0; i < n; i += 8) {
    const __m256 x = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(in + i + 4)),
                                     _mm256_cvtpd_ps(_mm256_loadu_pd(in + i)));
    const __m256 v = _mm256_blendv_ps(x, qnan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
}
// fp8 / bf8 bytes -> f32, 16 at a time (n is a multiple of 16), through the F16C conversion:
// e5m2 is the top byte of an f16 (x << 8 is its f16 encoding); e4m3's magnitude bits shifted
// into an f16's exponent and mantissa (x << 7) read as an f16 are its value / 256, exactly for
// normals and denormals alike, and its NaN (magnitude 0x7f) is set apart.
__attribute__((target("avx2,f16c"))) void fp8_to_f32_f16c(const uint8_t* in, int n, bool e4m3,
                                                          float* out) {
  const __m256i sign = _mm256_set1_epi16(0x80), magnitude = _mm256_set1_epi16(0x7f);
  const __m256 scale = _mm256_set1_ps(256.0f), qnan = _mm256_set1_ps(__builtin_nanf(""));
  for (int i = 0; i < n; i += 16) {
    const __m256i x =
        _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    const __m256i mag = _mm256_and_si256(x, magnitude);
    const __m256i h = e4m3 ? _mm256_or_si256(_mm256_slli_epi16(mag, 7),
                                             _mm256_slli_epi16(_mm256_and_si256(x, sign), 8))
                           : _mm256_slli_epi16(x, 8);
    __m256 lo = _mm256_cvtph_ps(_mm256_castsi256_si128(h));
    __m256 hi = _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1));
    if (e4m3) {
      const __m256i is_nan = _mm256_cmpeq_epi16(mag, magnitude);
      const __m256 nan_lo =
          _mm256_castsi256_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(is_nan)));
      const __m256 nan_hi =
          _mm256_castsi256_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(is_nan, 1)));
      lo = _mm256_blendv_ps(_mm256_mul_ps(lo, scale), qnan, nan_lo);
      hi = _mm256_blendv_ps(_mm256_mul_ps(hi, scale), qnan, nan_hi);
    }
    _mm256_storeu_ps(out + i, lo);
    _mm256_storeu_ps(out + i + 8, hi);
  }
}

#endif

// Four columns of a result row (GCC vector extensions: one AVX2 register), read and written
// through unaligned, aliasing pointers.
typedef double F64x4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef int32_t I32x8 __attribute__((vector_size(32), aligned(4), may_alias));

// S (16 x 16, row-major) = C + A (16 x K) * B (K x 16), A column-major (a[row + 16 k]), B
// row-major (b[16 k + col]): each element is its C plus the products of increasing k, one at a
// time; two rows at once for independent sums.
TW_MMA_CLONES void mma_sum_f64(int K, const double* __restrict fa, const double* __restrict fb,
                               const double* __restrict fc, double* __restrict out) {
  for (int row = 0; row < 16; row += 2) {
    F64x4 x[4], y[4];
    for (int q = 0; q < 4; ++q) {
      x[q] = *reinterpret_cast<const F64x4*>(fc + 16 * row + 4 * q);
      y[q] = *reinterpret_cast<const F64x4*>(fc + 16 * row + 16 + 4 * q);
    }
    for (int k = 0; k < K; ++k) {
      const double a0 = fa[row + 16 * k], a1 = fa[row + 1 + 16 * k];
      const double* bk = fb + 16 * k;
      for (int q = 0; q < 4; ++q) {
        const F64x4 b = *reinterpret_cast<const F64x4*>(bk + 4 * q);
        x[q] += a0 * b;
        y[q] += a1 * b;
      }
    }
    for (int q = 0; q < 4; ++q) {
      *reinterpret_cast<F64x4*>(out + 16 * row + 4 * q) = x[q];
      *reinterpret_cast<F64x4*>(out + 16 * row + 16 + 4 * q) = y[q];
    }
  }
}

// The integer products sum exactly in int32: |a*b| <= 2 * 255 * 255 (a SWMMAC position named
// twice) and K <= 64, far below 2^31; C is added in int64 afterwards. Layouts as mma_sum_f64.
TW_MMA_CLONES void mma_sum_i32(int K, const int32_t* __restrict ia, const int32_t* __restrict ib,
                               int32_t* __restrict out) {
  for (int row = 0; row < 16; row += 2) {
    I32x8 x[2] = {}, y[2] = {};
    for (int k = 0; k < K; ++k) {
      const int32_t a0 = ia[row + 16 * k], a1 = ia[row + 1 + 16 * k];
      for (int q = 0; q < 2; ++q) {
        const I32x8 b = *reinterpret_cast<const I32x8*>(ib + 16 * k + 8 * q);
        x[q] += a0 * b;
        y[q] += a1 * b;
      }
    }
    for (int q = 0; q < 2; ++q) {
      *reinterpret_cast<I32x8*>(out + 16 * row + 8 * q) = x[q];
      *reinterpret_cast<I32x8*>(out + 16 * row + 16 + 8 * q) = y[q];
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
// The most elements one operand holds (B of the iu4 16x16x64 form: 16 x 64).
constexpr int kMaxElems = 16 * kMaxK;

// Where each element of an operand's registers lands in its dense matrix. Elements are in
// register order: element e of word w (= vgpr * 32 + lane) is entry w * per_word + e.
// A: row + 16 k (column-major); B: 16 k + col (row-major); C / D: 16 row + col (row-major).
struct OperandPlan {
  int words = 0, per_word = 1, bits = 32;
  std::vector<uint16_t> dest;
  // SWMMAC A only: dest is row + M * 4 * (k-group), the kept value's position in its group is
  // (index >> shift) & 3 of the lane's index set.
  std::vector<uint8_t> shift;
  // Lines (every dense gfx12 operand): the 16 entries of line L, dest 16 L + j for j < 16, are
  // the elements line_start[L] + stride * j (lane l holds entry j = l % 16): each line is
  // copied by one strided loop instead of element by element through dest.
  int stride = 0; // 0: no line structure
  std::vector<uint16_t> line_start;
  // 16-bit elements in lines of stride 2 whose lines come in pairs L (even), L + 1 holding the
  // low and high halves of the same 16 words (line_start[L + 1] = line_start[L] + 1, even):
  // such an operand is written a word at a time.
  bool paired_halves = false;
};

struct MmaPlan {
  OperandPlan a, b, cd;
};

enum class Role { a, sparse_a, b, cd };

OperandPlan plan_operand(const TvMap& map, int vgprs, int m, Role role) {
  OperandPlan p;
  p.words = vgprs * 32;
  p.per_word = map.elems_per_vgpr();
  p.bits = map.elem_bits;
  p.dest.resize(size_t(p.words * p.per_word));
  if (role == Role::sparse_a)
    p.shift.resize(p.dest.size());
  for (int g = 0; g < vgprs; ++g)
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < p.per_word; ++e) {
        const int v = g * p.per_word + e;
        const size_t i = size_t((g * 32 + lane) * p.per_word + e);
        const auto [row, col] = map.coord(lane, v);
        switch (role) {
        case Role::a:
          p.dest[i] = uint16_t(row + 16 * col);
          break;
        case Role::sparse_a:
          p.dest[i] = uint16_t(row + m * 4 * (col / 2));
          p.shift[i] = uint8_t(2 * v); // MmaInstrInfo::index_bit(v)
          break;
        case Role::b:
          p.dest[i] = uint16_t(16 * row + col);
          break;
        case Role::cd:
          p.dest[i] = uint16_t(16 * row + col);
          break;
        }
      }
  return p;
}

// Finds the line structure of a dense operand (OperandPlan::stride), if it has one.
void find_lines(OperandPlan& p) {
  const int n = int(p.dest.size());
  if (n % 16 != 0)
    return;
  std::vector<int> start(size_t(n / 16), -1);
  for (int i = 0; i < n; ++i)
    if (p.dest[size_t(i)] % 16 == 0 && p.dest[size_t(i)] / 16 < n / 16)
      start[p.dest[size_t(i)] / 16] = i;
  int stride = -1;
  for (int i = 0; i < n; ++i)
    if (p.dest[size_t(i)] == 1)
      stride = i - start[0];
  if (stride <= 0)
    return;
  for (int i = 0; i < n; ++i) {
    const int line = p.dest[size_t(i)] / 16, j = p.dest[size_t(i)] % 16;
    if (line >= n / 16 || start[size_t(line)] < 0 || start[size_t(line)] + stride * j != i)
      return;
  }
  p.stride = stride;
  p.line_start.assign(start.begin(), start.end());
  bool paired = p.bits == 16 && p.per_word == 2 && stride == 2 && p.line_start.size() % 2 == 0;
  for (size_t line = 0; paired && line < p.line_start.size(); line += 2)
    paired = p.line_start[line] % 2 == 0 && p.line_start[line + 1] == p.line_start[line] + 1;
  p.paired_halves = paired;
}

// Calls f(dest, i) for every element i of a dense operand: line by line where it has lines,
// else through the dest table.
template <int Stride, class F>
inline void each_in_lines(const OperandPlan& p, F&& f) {
  for (size_t line = 0; line < p.line_start.size(); ++line) {
    const int start = p.line_start[line];
    for (int j = 0; j < 16; ++j)
      f(int(16 * line) + j, start + Stride * j);
  }
}
// The same for an operand with paired_halves: both lines of a pair in one loop over their 16
// words (element start + 2 j of the first, start + 2 j + 1 of the second).
template <class F>
inline void each_in_pairs(const OperandPlan& p, F&& f) {
  for (size_t line = 0; line < p.line_start.size(); line += 2) {
    const int start = p.line_start[line];
    for (int j = 0; j < 16; ++j) {
      f(int(16 * line) + j, start + 2 * j);
      f(int(16 * line) + 16 + j, start + 2 * j + 1);
    }
  }
}
template <class F>
inline void each_element(const OperandPlan& p, F&& f) {
  if (p.paired_halves)
    return each_in_pairs(p, f);
  switch (p.stride) {
  case 1:
    return each_in_lines<1>(p, f);
  case 2:
    return each_in_lines<2>(p, f);
  case 4:
    return each_in_lines<4>(p, f);
  case 8:
    return each_in_lines<8>(p, f);
  default:
    for (int i = 0; i < int(p.dest.size()); ++i)
      f(int(p.dest[size_t(i)]), i);
  }
}

MmaPlan make_plan(const MmaInstrInfo& info) {
  if (info.m != 16 || info.n != 16 || info.k > kMaxK ||
      info.a.values_per_lane() != info.a_vgprs * info.a.elems_per_vgpr() ||
      info.b.values_per_lane() != info.b_vgprs * info.b.elems_per_vgpr() ||
      info.cd.values_per_lane() != info.cd_vgprs * info.cd.elems_per_vgpr() ||
      (atoms::is_float_elem(info.a_type) &&
       (info.a.elems_per_vgpr() < 2 || info.b.elems_per_vgpr() < 2)) ||
      (info.sparse && info.a.elems_per_vgpr() < 2))
    throw std::logic_error(std::string(info.mnemonic) +
                           ": mma_fast handles 16 x 16 results with K <= 64, full VGPRs, float A "
                           "/ B and sparse A of 16 bits or less");
  MmaPlan p{plan_operand(info.a, info.a_vgprs, info.m, info.sparse ? Role::sparse_a : Role::a),
            plan_operand(info.b, info.b_vgprs, info.m, Role::b),
            plan_operand(info.cd, info.cd_vgprs, info.m, Role::cd)};
  if (!info.sparse)
    find_lines(p.a);
  find_lines(p.b);
  find_lines(p.cd);
  return p;
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

// fp8 / bf8 bits -> f32, filled from tw::num's decoders (the reference's), so an entry is the
// reference's value by construction.
struct Fp8Tables {
  std::array<float, 256> fp8{}, bf8{};
  Fp8Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      fp8[i] = num::e4m3_to_f32(uint8_t(i));
      bf8[i] = num::e5m2_to_f32(uint8_t(i));
    }
  }
};
const Fp8Tables& fp8_tables() {
  static const Fp8Tables t;
  return t;
}

// The f32 value of every element of a float operand, in register order (one loop per element
// type; f16 / bf16 by arithmetic, see mma_convert.hpp). Elements narrower than a word are read
// as an array of them: element e of word w is element w * per + e in memory (little endian).
typedef uint16_t U16 __attribute__((may_alias));
typedef uint8_t U8 __attribute__((may_alias));
template <int Bits, class T, class Conv>
void decode_elements(const uint32_t* regs, int words, T* out, Conv conv) {
  constexpr int per = 32 / Bits;
  if constexpr (Bits == 16) {
    const U16* x = reinterpret_cast<const U16*>(regs);
    for (int i = 0; i < words * per; ++i)
      out[i] = conv(uint32_t(x[i]));
  } else if constexpr (Bits == 8) {
    const U8* x = reinterpret_cast<const U8*>(regs);
    for (int i = 0; i < words * per; ++i)
      out[i] = conv(uint32_t(x[i]));
  } else {
    constexpr uint32_t mask = Bits == 32 ? ~0u : (1u << Bits) - 1u;
    for (int w = 0; w < words; ++w)
      for (int e = 0; e < per; ++e)
        out[w * per + e] = conv((regs[w] >> (e * Bits)) & mask);
  }
}
TW_MMA_CLONES void decode_floats(MmaElem type, const uint32_t* regs, int words, float* out) {
  switch (type) {
  case MmaElem::f16:
#ifdef TW_MMA_F16C
    if (detail::host_has_f16c())
      return detail::f16_to_f32_f16c(reinterpret_cast<const U16*>(regs), words * 2, out);
#endif
    return decode_elements<16>(regs, words, out,
                               [](uint32_t x) { return mma_convert::f16_to_f32(x); });
  case MmaElem::bf16:
    return decode_elements<16>(regs, words, out,
                               [](uint32_t x) { return mma_convert::bf16_to_f32(x); });
  case MmaElem::fp8:
  case MmaElem::bf8: {
    const float* t = type == MmaElem::fp8 ? fp8_tables().fp8.data() : fp8_tables().bf8.data();
#ifdef TW_MMA_F16C
    if (detail::host_has_avx2_fma() && detail::host_has_f16c())
      return detail::fp8_to_f32_f16c(reinterpret_cast<const U8*>(regs), words * 4,
                                     type == MmaElem::fp8, out);
#endif
    return decode_elements<8>(regs, words, out, [t](uint32_t x) { return t[x]; });
  }
  default:
    return decode_elements<32>(regs, words, out,
                               [](uint32_t x) { return std::bit_cast<float>(x); });
  }
}

// The int32 value of every element of an integer operand, in register order.
TW_MMA_CLONES void decode_ints(MmaElem type, bool is_signed, const uint32_t* regs, int words,
                               int32_t* out) {
  if (type == MmaElem::iu8 && is_signed)
    decode_elements<8>(regs, words, out, [](uint32_t x) { return int32_t(int8_t(uint8_t(x))); });
  else if (type == MmaElem::iu8)
    decode_elements<8>(regs, words, out, [](uint32_t x) { return int32_t(x); });
  else if (type == MmaElem::iu4 && is_signed)
    decode_elements<4>(regs, words, out, [](uint32_t x) { return int32_t(x << 28) >> 28; });
  else if (type == MmaElem::iu4)
    decode_elements<4>(regs, words, out, [](uint32_t x) { return int32_t(x); });
  else
    decode_elements<32>(regs, words, out, [](uint32_t x) { return int32_t(x); });
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

// A SWMMAC's A: each kept value added at the position its lane's index set names (zeros
// elsewhere; a position named twice holds the sum of both values, as in the reference). Returns
// whether some position was named twice (the two kept values of a k-group are elements e and
// e + 1 of one word).
template <int Per, class T, class Value>
bool scatter_sparse_a(const OperandPlan& p, const std::array<uint32_t, 32>& sets, int K,
                      Value value, T* out) {
  std::fill_n(out, 16 * K, T(0));
  bool twice = false;
  for (int w = 0; w < p.words; ++w) {
    const uint32_t set = sets[size_t(w & 31)];
    for (int e = 0; e < Per; e += 2) {
      const size_t i = size_t(w * Per + e);
      const uint32_t pos0 = (set >> p.shift[i]) & 3u, pos1 = (set >> p.shift[i + 1]) & 3u;
      out[p.dest[i] + 16 * pos0] += value(i);
      out[p.dest[i + 1] + 16 * pos1] += value(i + 1);
      twice |= pos0 == pos1;
    }
  }
  return twice;
}
template <class T, class Value>
bool scatter_sparse_a(const OperandPlan& p, const std::array<uint32_t, 32>& sets, int K,
                      Value value, T* out) {
  switch (p.per_word) {
  case 2:
    return scatter_sparse_a<2>(p, sets, K, value, out);
  case 4:
    return scatter_sparse_a<4>(p, sets, K, value, out);
  default:
    return scatter_sparse_a<8>(p, sets, K, value, out);
  }
}

TW_MMA_CLONES void run_float(const MmaInstrInfo& info, const MmaPlan& p, const MmaModifiers& mods,
                             const uint32_t* a, const uint32_t* b, const uint32_t* c,
                             const uint32_t* index, uint32_t* d) {
  const int K = info.k;
  alignas(64) float va[kMaxElems], vb[kMaxElems], vc[256];
  alignas(64) double fa[16 * kMaxK], fb[16 * kMaxK], fc[256], sum[256];
  // neg_lo / neg_hi bit 0 (A) and 1 (B) apply to the low / high 16-bit element of a VGPR
  // (element e & 1 of a word: A and B have 2 or 4 elements a word). x * -1.0 is -x for every
  // non-NaN x, without a branch per element (a NaN makes the results it reaches NaN either way,
  // and a NaN result is written as the default NaN); x * 1.0 is x.
  auto sign = [&](unsigned bits, unsigned bit) { return ((bits >> bit) & 1u) ? -1.0 : 1.0; };
  const double a_sign[2] = {sign(mods.neg_lo, 0), sign(mods.neg_hi, 0)};
  const double b_sign[2] = {sign(mods.neg_lo, 1), sign(mods.neg_hi, 1)};
  decode_floats(info.a_type, a, p.a.words, va);
  decode_floats(info.b_type, b, p.b.words, vb);
  // Whether every entry of A is one element (not a SWMMAC sum of two): then each product of A
  // and B elements (16 bits or less) is exact in double.
  bool exact_products = true;
  if (info.sparse) {
    exact_products = !scatter_sparse_a(
        p.a, index_sets(info, mods, index), K,
        [&](size_t i) { return double(va[i]) * a_sign[i & 1]; }, fa);
  } else {
    // 0.0 + x as in the reference's accumulation into a zeroed matrix (-0.0 becomes +0.0).
    if (mods.neg_lo & 1u || mods.neg_hi & 1u)
      each_element(p.a, [&](int j, int i) { fa[j] = 0.0 + double(va[i]) * a_sign[i & 1]; });
    else
      each_element(p.a, [&](int j, int i) { fa[j] = 0.0 + double(va[i]); });
  }
  if (mods.neg_lo & 2u || mods.neg_hi & 2u)
    each_element(p.b, [&](int j, int i) { fb[j] = double(vb[i]) * b_sign[i & 1]; });
  else
    each_element(p.b, [&](int j, int i) { fb[j] = double(vb[i]); });
  // C: |x| (neg_hi bit 2), then -x (neg_lo bit 2); exact in double.
  const bool abs_c = mods.neg_hi & 4u, neg_c = mods.neg_lo & 4u;
  auto c_value = [&](float x) {
    double v = double(x);
    if (abs_c)
      v = std::fabs(v);
    return neg_c ? -v : v;
  };
  if (info.cd_type == MmaElem::f32) {
    each_element(p.cd, [&](int j, int i) { fc[j] = c_value(std::bit_cast<float>(c[i])); });
  } else {
    decode_floats(info.cd_type, c, p.cd.words, vc);
    each_element(p.cd, [&](int j, int i) { fc[j] = c_value(vc[i]); });
  }
#ifdef TW_MMA_X86
  if (exact_products && detail::host_has_avx512f())
    detail::mma_sum_f64_fma512(K, fa, fb, fc, sum);
  else if (exact_products && detail::host_has_avx2_fma())
    detail::mma_sum_f64_fma(K, fa, fb, fc, sum);
  else
#endif
    detail::mma_sum_f64(K, fa, fb, fc, sum);
  // Every source is read: D may now be written even where it overlaps A, B or C.
  // Rounded once to f32 (the accumulator), then to f16 / bf16 for packed results; a NaN is the
  // type's default NaN (as atoms::detail::mma_encode_float, the reference's encoding).
  const uint32_t nan = atoms::detail::mma_default_nan(info.cd_type);
  auto f32_word = [nan](double x) {
    const float f = float(x);
    return std::isnan(f) ? nan : std::bit_cast<uint32_t>(f);
  };
  if (info.cd_type == MmaElem::f32) {
    each_element(p.cd, [&](int j, int i) { d[i] = f32_word(sum[j]); });
    return;
  }
  // Packed 16-bit results: every sum rounded to f32 and then to the 16-bit type in S's
  // (row-major) order by linear loops, then each one stored to its half of a D register.
  alignas(64) uint16_t half[256];
#ifdef TW_MMA_F16C
  if (info.cd_type == MmaElem::f16 && detail::host_has_f16c()) {
    detail::f64_to_f16_f16c(sum, 256, half); // NaN: 0x7e00, the default NaN
  } else
#endif
  {
    alignas(64) float fs[256];
    for (int j = 0; j < 256; ++j)
      fs[j] = float(sum[j]);
    if (info.cd_type == MmaElem::f16)
      for (int j = 0; j < 256; ++j)
        half[j] = uint16_t(std::isnan(fs[j]) ? nan : mma_convert::f32_to_f16_rne(fs[j]));
    else
      for (int j = 0; j < 256; ++j)
        half[j] = uint16_t(std::isnan(fs[j]) ? nan : mma_convert::f32_to_bf16_rne(fs[j]));
  }
  if (p.cd.paired_halves) { // word w0 + j of a line pair: its two lines' entries j
    for (size_t line = 0; line < p.cd.line_start.size(); line += 2) {
      uint32_t* dw = d + p.cd.line_start[line] / 2;
      const uint16_t *lo = half + 16 * line, *hi = half + 16 * (line + 1);
      for (int j = 0; j < 16; ++j)
        dw[j] = uint32_t(lo[j]) | uint32_t(hi[j]) << 16;
    }
    return;
  }
  U16* dh = reinterpret_cast<U16*>(d); // element i of D is halfword i (little endian)
  each_element(p.cd, [&](int j, int i) { dh[i] = half[j]; });
}

TW_MMA_CLONES void run_integer(const MmaInstrInfo& info, const MmaPlan& p, const MmaModifiers& mods,
                               const uint32_t* a, const uint32_t* b, const uint32_t* c,
                               const uint32_t* index, uint32_t* d) {
  const int K = info.k;
  alignas(64) int32_t va[kMaxElems], vb[kMaxElems];
  alignas(64) int32_t ia[16 * kMaxK], ib[16 * kMaxK], ic[256], sum[256];
  decode_ints(info.a_type, mods.a_signed, a, p.a.words, va);
  decode_ints(info.b_type, mods.b_signed, b, p.b.words, vb);
  if (info.sparse)
    scatter_sparse_a(
        p.a, index_sets(info, mods, index), K, [&](size_t i) { return va[i]; }, ia);
  else
    each_element(p.a, [&](int j, int i) { ia[j] = va[i]; });
  each_element(p.b, [&](int j, int i) { ib[j] = vb[i]; });
  each_element(p.cd, [&](int j, int i) { ic[j] = int32_t(c[i]); });
  detail::mma_sum_i32(K, ia, ib, sum);
  // C is added in int64: clamped to int32 with clamp, else wrapped modulo 2^32.
  auto word = [clamp = mods.clamp](int32_t c_value, int32_t s) {
    int64_t x = int64_t(c_value) + s;
    if (clamp)
      x = std::clamp<int64_t>(x, std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max());
    return uint32_t(x);
  };
  each_element(p.cd, [&](int j, int i) { d[i] = word(ic[j], sum[j]); });
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
