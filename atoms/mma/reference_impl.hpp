#pragma once
// Implementation of mma_reference (included by reference.hpp only: the emulator and the tests).
#include <atoms/formats.hpp>
#include <atoms/mma/reference.hpp>
#include <atoms/mma/verify.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace tw::atoms {

namespace detail {

// The raw bits of value v of `lane` in an operand laid out by `map`.
inline std::uint32_t mma_element_bits(const TvMap& map, const std::uint32_t* regs, int lane,
                                      int v) {
  const int per_vgpr = map.elems_per_vgpr();
  const std::uint32_t word = regs[(v / per_vgpr) * 32 + lane];
  if (map.elem_bits == 32)
    return word;
  return (word >> ((v % per_vgpr) * map.elem_bits)) & ((1u << map.elem_bits) - 1u);
}

inline double mma_decode_float(MmaElem type, std::uint32_t bits) {
  switch (type) {
  case MmaElem::f16:
    return num::f16_to_f32(std::uint16_t(bits));
  case MmaElem::bf16:
    return num::bf16_to_f32(std::uint16_t(bits));
  case MmaElem::fp8:
    return num::e4m3_to_f32(std::uint8_t(bits));
  case MmaElem::bf8:
    return num::e5m2_to_f32(std::uint8_t(bits));
  case MmaElem::f32: {
    return std::bit_cast<float>(bits);
  }
  default:
    throw std::logic_error("mma_decode_float: not a float element type");
  }
}

inline std::int64_t mma_decode_int(MmaElem type, std::uint32_t bits, bool is_signed) {
  switch (type) {
  case MmaElem::iu8:
    return is_signed ? std::int64_t(std::int8_t(std::uint8_t(bits))) : std::int64_t(bits);
  case MmaElem::iu4:
    // One nibble in the low bits; int4_get reads element 0 = the low nibble of a byte.
    return num::int4_get(std::uint8_t(bits), 0, is_signed);
  case MmaElem::i32:
    return std::int32_t(bits);
  default:
    throw std::logic_error("mma_decode_int: not an integer element type");
  }
}

// The default quiet NaN of a result type: a NaN result is written as this, because the sign
// and payload a host computation leaves in a NaN depend on the compiler's operand order.
inline std::uint32_t mma_default_nan(MmaElem type) {
  return type == MmaElem::f32 ? 0x7fc00000u : type == MmaElem::f16 ? 0x7e00u : 0x7fc0u;
}

inline std::uint32_t mma_encode_float(MmaElem type, double sum) {
  const float f = float(sum); // the f32 accumulator, rounded once (RNE)
  if (std::isnan(f))
    return mma_default_nan(type);
  switch (type) {
  case MmaElem::f32: {
    return std::bit_cast<std::uint32_t>(f);
  }
  case MmaElem::f16:
    return num::f32_to_f16(f);
  case MmaElem::bf16:
    return num::f32_to_bf16(f);
  default:
    throw std::logic_error("mma_encode_float: not a float result type");
  }
}

// Largest K of any gfx12 matrix instruction, for fixed-size scratch matrices.
inline constexpr int kMaxMmaK = 64;

} // namespace detail

inline void mma_reference(const MmaInstrInfo& info, const MmaModifiers& mods,
                          const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                          const std::uint32_t* index, std::uint32_t* d) {
  verify_mma_modifiers(info, mods);
  if (!a || !b || !c || !d)
    throw std::invalid_argument(std::string(info.mnemonic) +
                                ": mma_reference needs non-null a, b, c and d registers");
  if (info.sparse && !index)
    throw std::invalid_argument(std::string(info.mnemonic) +
                                ": a SWMMAC needs the index VGPR (index must not be null)");
  const bool integer = !is_float_elem(info.a_type);
  const int M = info.m, N = info.n, K = info.k;

  // Dense A (M x K), B (K x N) and C (M x N), decoded; column-major scratch.
  std::array<double, 16 * detail::kMaxMmaK> fa{}, fb{};
  std::array<std::int64_t, 16 * detail::kMaxMmaK> ia{}, ib{};
  std::array<double, 16 * 16> fc{};
  std::array<std::int64_t, 16 * 16> ic{};

  const unsigned index_shift = info.index_keys == 2 ? 16u * mods.index_key : 0u;
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < info.a.values_per_lane(); ++v) {
      auto [row, k] = info.a.coord(lane, v);
      if (info.sparse) { // k is the column of the compressed matrix: 2 kept values per group
        const std::uint32_t set = index[lane] >> index_shift;
        k = 4 * (k / 2) + int((set >> info.index_bit(v)) & 3u);
      }
      const std::uint32_t bits = detail::mma_element_bits(info.a, a, lane, v);
      // += : a SWMMAC index naming one position twice multiplies that B row by both values.
      if (integer) {
        ia[row + M * k] += detail::mma_decode_int(info.a_type, bits, mods.a_signed);
      } else {
        const bool high_half = (v % info.a.elems_per_vgpr()) == 1;
        const bool negate = ((high_half ? mods.neg_hi : mods.neg_lo) & 1u) != 0;
        const double x = detail::mma_decode_float(info.a_type, bits);
        fa[row + M * k] += negate ? -x : x;
      }
    }
    for (int v = 0; v < info.b.values_per_lane(); ++v) {
      const auto [k, col] = info.b.coord(lane, v);
      const std::uint32_t bits = detail::mma_element_bits(info.b, b, lane, v);
      if (integer) {
        ib[k + K * col] = detail::mma_decode_int(info.b_type, bits, mods.b_signed);
      } else {
        const bool high_half = (v % info.b.elems_per_vgpr()) == 1;
        const bool negate = ((high_half ? mods.neg_hi : mods.neg_lo) & 2u) != 0;
        const double x = detail::mma_decode_float(info.b_type, bits);
        fb[k + K * col] = negate ? -x : x;
      }
    }
    for (int v = 0; v < info.cd.values_per_lane(); ++v) {
      const auto [row, col] = info.cd.coord(lane, v);
      const std::uint32_t bits = detail::mma_element_bits(info.cd, c, lane, v);
      if (integer) {
        ic[row + M * col] = detail::mma_decode_int(MmaElem::i32, bits, true);
      } else {
        double x = detail::mma_decode_float(info.cd_type, bits);
        if (mods.neg_hi & 4u)
          x = std::fabs(x);
        if (mods.neg_lo & 4u)
          x = -x;
        fc[row + M * col] = x;
      }
    }
  }

  // D: every product exact, the sum of K products and C formed in double (exact for integers;
  // for floats within one double rounding of exact) and rounded once to the result type.
  std::array<std::uint32_t, 16 * 16> result{};
  for (int col = 0; col < N; ++col)
    for (int row = 0; row < M; ++row) {
      if (integer) {
        std::int64_t s = ic[row + M * col];
        for (int k = 0; k < K; ++k)
          s += ia[row + M * k] * ib[k + K * col];
        if (mods.clamp) {
          constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min();
          constexpr std::int64_t hi = std::numeric_limits<std::int32_t>::max();
          s = s < lo ? lo : (s > hi ? hi : s);
        }
        result[row + M * col] = std::uint32_t(s); // without clamp: wraps modulo 2^32
      } else {
        double s = fc[row + M * col];
        for (int k = 0; k < K; ++k)
          s += fa[row + M * k] * fb[k + K * col];
        result[row + M * col] = detail::mma_encode_float(info.cd_type, s);
      }
    }

  // Written only now, so d may alias c. Each D VGPR is rebuilt from all of its elements.
  const int per_vgpr = info.cd.elems_per_vgpr();
  for (int g = 0; g < info.cd_vgprs; ++g)
    for (int lane = 0; lane < 32; ++lane)
      d[g * 32 + lane] = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int v = 0; v < info.cd.values_per_lane(); ++v) {
      const auto [row, col] = info.cd.coord(lane, v);
      d[(v / per_vgpr) * 32 + lane] |= result[row + M * col]
                                       << ((v % per_vgpr) * info.cd.elem_bits);
    }
}

} // namespace tw::atoms
