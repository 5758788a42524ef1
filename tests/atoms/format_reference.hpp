#pragma once
// A slow, independent model of the small float formats for the tests: values come from the
// bit-field formula of the format's definition evaluated in double with std::ldexp, and
// conversions are a nearest-value search over the sorted table of all finite values. It
// shares no code with atoms/formats/ (which works on integer bits of the f32 input).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tw::test {

struct RefFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_inf; // IEEE-like (f16, bf16, e5m2) vs OCP e4m3fn (no inf, NaN only S.1111.111)
};

inline constexpr RefFormat ref_f16{5, 10, 15, true};
inline constexpr RefFormat ref_bf16{8, 7, 127, true};
inline constexpr RefFormat ref_e4m3{4, 3, 7, false};
inline constexpr RefFormat ref_e5m2{5, 2, 15, true};

inline int ref_bits(RefFormat f) {
  return 1 + f.exponent_bits + f.mantissa_bits;
}

inline bool ref_is_nan(RefFormat f, uint32_t code) {
  const uint32_t e = (code >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  const uint32_t m = code & ((1u << f.mantissa_bits) - 1);
  const bool top = e == (1u << f.exponent_bits) - 1;
  return f.has_inf ? (top && m != 0) : (top && m == (1u << f.mantissa_bits) - 1);
}

// (-1)^s * 2^(1-bias) * m/2^M for e = 0, (-1)^s * 2^(e-bias) * (1 + m/2^M) otherwise.
inline double ref_decode(RefFormat f, uint32_t code) {
  if (ref_is_nan(f, code))
    return std::numeric_limits<double>::quiet_NaN();
  const uint32_t s = (code >> (f.exponent_bits + f.mantissa_bits)) & 1;
  const int e = int((code >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1));
  const double m = double(code & ((1u << f.mantissa_bits) - 1));
  const double sign = s ? -1.0 : 1.0;
  if (f.has_inf && e == (1 << f.exponent_bits) - 1)
    return sign * std::numeric_limits<double>::infinity();
  const double frac = std::ldexp(m, -f.mantissa_bits);
  return e == 0 ? sign * std::ldexp(frac, 1 - f.bias) : sign * std::ldexp(1.0 + frac, e - f.bias);
}

struct RefEntry {
  double value;
  uint32_t code;
};

// Every non-negative finite value with its code, ascending.
inline std::vector<RefEntry> ref_positive_table(RefFormat f) {
  std::vector<RefEntry> t;
  const uint32_t n = 1u << (f.exponent_bits + f.mantissa_bits);
  for (uint32_t c = 0; c < n; ++c) {
    const double v = ref_decode(f, c);
    if (std::isfinite(v))
      t.push_back({v, c});
  }
  std::sort(t.begin(), t.end(), [](auto& a, auto& b) { return a.value < b.value; });
  return t;
}

enum class RefRounding { nearest_even, toward_zero, toward_positive, toward_negative };

// The code nearest to x (ties to the even code), IEEE overflow: past max + half the top
// spacing -> inf or NaN, or max with saturation. Directed modes pick the neighbour on their
// side; the ones that round a magnitude down never overflow.
inline uint32_t ref_encode(RefFormat f, const std::vector<RefEntry>& table, double x, bool saturate,
                           RefRounding r = RefRounding::nearest_even) {
  const uint32_t sign = 1u << (f.exponent_bits + f.mantissa_bits);
  const uint32_t nan_code = f.has_inf ? (sign - 1) ^ ((1u << (f.mantissa_bits - 1)) - 1)
                                      : sign - 1; // quiet NaN: S.1..1.10..0 or S.1111.111
  const uint32_t inf_code = ((1u << f.exponent_bits) - 1) << f.mantissa_bits;
  if (std::isnan(x))
    return (std::signbit(x) ? sign : 0) | nan_code;
  const uint32_t s = std::signbit(x) ? sign : 0;
  const double a = std::fabs(x);
  const RefEntry& max = table.back();
  const double top_spacing = max.value - table[table.size() - 2].value;
  const uint32_t overflow = saturate ? max.code : (f.has_inf ? inf_code : nan_code);
  if (std::isinf(a))
    return s | overflow;
  // Directed rounding in terms of magnitude: down (toward zero) or up (away from zero).
  const bool magnitude_down = r == RefRounding::toward_zero ||
                              (r == RefRounding::toward_positive && s != 0) ||
                              (r == RefRounding::toward_negative && s == 0);
  const bool directed = r != RefRounding::nearest_even;
  if (a > max.value) {
    if (directed)
      return s | (magnitude_down ? max.code : overflow);
    const double mid = max.value + top_spacing / 2;
    if (a < mid || (a == mid && (max.code & 1) == 0))
      return s | max.code;
    return s | overflow;
  }
  auto hi = std::lower_bound(table.begin(), table.end(), a,
                             [](const RefEntry& e, double v) { return e.value < v; });
  if (hi->value == a)
    return s | hi->code;
  auto lo = hi - 1;
  if (directed)
    return s | (magnitude_down ? lo->code : hi->code);
  const double dlo = a - lo->value, dhi = hi->value - a;
  if (dlo < dhi)
    return s | lo->code;
  if (dhi < dlo)
    return s | hi->code;
  return s | ((lo->code & 1) == 0 ? lo->code : hi->code);
}

// Neighbours of a finite |x| in the table: largest value <= |x| and smallest >= |x|.
inline std::pair<RefEntry, RefEntry> ref_bracket(const std::vector<RefEntry>& table, double a) {
  auto hi = std::lower_bound(table.begin(), table.end(), a,
                             [](const RefEntry& e, double v) { return e.value < v; });
  if (hi->value == a)
    return {*hi, *hi};
  return {*(hi - 1), *hi};
}

// splitmix64: a small deterministic generator for the random sweeps.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t next32() { return uint32_t(next() >> 32); }
};

} // namespace tw::test
