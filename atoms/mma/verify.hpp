#pragma once
// Which modifiers a gfx12 matrix instruction accepts, as one rule sentence per violation.
// mma_modifier_error is constexpr (the static checks of the typed atoms use the same rules);
// verify_mma_modifiers is its throwing form.
#include <atoms/mma/instr_info.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tw::atoms {

// Empty when `mods` is valid for `info`, else the rule that `mods` breaks.
constexpr std::string_view mma_modifier_error(const MmaInstrInfo& info, const MmaModifiers& mods) {
  const bool is_int = info.a_type == MmaElem::iu8 || info.a_type == MmaElem::iu4;
  if (mods.neg_lo > 7 || mods.neg_hi > 7)
    return "neg_lo / neg_hi are 3-bit masks (bit 0 = A, bit 1 = B, bit 2 = C): values above 7 "
           "are invalid";
  if (((mods.neg_lo | mods.neg_hi) & 3u) && !(info.modifiers & kMmaNegAB))
    return is_int ? "neg_lo / neg_hi cannot negate iu8 / iu4 operands: integer forms choose the "
                    "signedness of A and B with a_signed / b_signed"
                  : "fp8 / bf8 operands cannot be negated: neg_lo / neg_hi bits 0 and 1 exist "
                    "only for f16 / bf16 inputs";
  if (((mods.neg_lo | mods.neg_hi) & 4u) && !(info.modifiers & kMmaNegC))
    return is_int ? "neg_lo / neg_hi bit 2 (-C, |C|) is not accepted by integer forms"
                  : "SWMMAC cannot negate C or take |C| (neg_lo / neg_hi bit 2): D accumulates "
                    "in place";
  if ((mods.a_signed || mods.b_signed) && !(info.modifiers & kMmaSignedness))
    return "a_signed / b_signed apply only to iu8 / iu4 forms";
  if (mods.clamp && !(info.modifiers & kMmaClamp))
    return "clamp (saturate the i32 result) applies only to iu8 / iu4 forms: gfx12 float WMMA "
           "and SWMMAC have no clamp";
  if (mods.index_key != 0 && !(info.modifiers & kMmaIndexKey))
    return "index_key applies only to SWMMAC forms with a 16-bit index set (the dense WMMA and "
           "v_swmmac_i32_16x16x64_iu4, which uses all 32 index bits, take none)";
  if ((info.modifiers & kMmaIndexKey) && mods.index_key >= unsigned(info.index_keys))
    return "index_key must be 0 or 1: it selects bits [15:0] or [31:16] of the index VGPR";
  return {};
}

// Throws std::invalid_argument "<mnemonic>: <rule>" when `mods` is invalid for `info`.
inline void verify_mma_modifiers(const MmaInstrInfo& info, const MmaModifiers& mods) {
  if (std::string_view e = mma_modifier_error(info, mods); !e.empty())
    throw std::invalid_argument(std::string(info.mnemonic) + ": " + std::string(e));
}

} // namespace tw::atoms
