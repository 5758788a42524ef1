#pragma once
// The gfx12 (RDNA4, wave32) WMMA / SWMMAC instruction table as constexpr data, checked against
// LLVM 22 (IntrinsicsAMDGPU.td, BuiltinsAMDGPU.def, clang-22 codegen, gfx12_asm_wmma_w32.s)
// and shared/RDNA4.md. Lane maps: see TvMap in instr_info.hpp and docs/atoms.md.
#include <atoms/mma/instr_info.hpp>

#include <array>
#include <span>
#include <string_view>

namespace tw::atoms {

namespace gfx12_maps {
// Each map is written from the RDNA4.md formula by reading off the stride of each lane bit and
// each value bit; tests/atoms/test_mma_layouts.cpp re-derives the formulas independently.

// 16-bit A, M x K = 16 x 16, 4 VGPRs (v = 2g + h): row = l%16, k = 8(g/2) + 4(l/16) + 2(g%2) + h.
inline constexpr TvMap a16{16, 16, 16, {{{16, 1}, {2, 4 * 16}}}, {{{2, 16}, {2, 32}, {2, 128}}}};
// 16-bit B, K x N = 16 x 16: k as for A, col = l%16.
inline constexpr TvMap b16{16, 16, 16, {{{16, 16}, {2, 4}}}, {{{2, 1}, {2, 2}, {2, 8}}}};
// 8-bit A (v = 4g + b), 16 x 16, 2 VGPRs: row = l%16, k = 8(l/16) + v.
inline constexpr TvMap a8{16, 16, 8, {{{16, 1}, {2, 8 * 16}}}, {{{8, 16}, {1, 0}, {1, 0}}}};
inline constexpr TvMap b8{16, 16, 8, {{{16, 16}, {2, 8}}}, {{{8, 1}, {1, 0}, {1, 0}}}};
// iu4 16x16x16, 1 VGPR (v = nibble n): k = 8(l/16) + n.
inline constexpr TvMap a4k16{16, 16, 4, {{{16, 1}, {2, 8 * 16}}}, {{{8, 16}, {1, 0}, {1, 0}}}};
inline constexpr TvMap b4k16{16, 16, 4, {{{16, 16}, {2, 8}}}, {{{8, 1}, {1, 0}, {1, 0}}}};
// iu4 16x16x32, 2 VGPRs (v = 8g + n): k = 16(l/16) + v.
inline constexpr TvMap a4k32{16, 32, 4, {{{16, 1}, {2, 16 * 16}}}, {{{16, 16}, {1, 0}, {1, 0}}}};
inline constexpr TvMap b4k32{32, 16, 4, {{{16, 32}, {2, 16}}}, {{{16, 1}, {1, 0}, {1, 0}}}};
// 32-bit C/D, 8 VGPRs (v = r): row = 8(l/16) + r, col = l%16.
inline constexpr TvMap c32{16, 16, 32, {{{16, 16}, {2, 8}}}, {{{8, 1}, {1, 0}, {1, 0}}}};
// 16-bit C/D, 4 VGPRs (v = 2g + h): row = 8(l/16) + 2g + h, col = l%16.
inline constexpr TvMap c16{16, 16, 16, {{{16, 16}, {2, 8}}}, {{{8, 1}, {1, 0}, {1, 0}}}};

// SWMMAC: A maps to the compressed M x K/2 matrix of kept values; its layout equals the dense
// A layout of the same element width with K/2 (RDNA4.md: VGPR g of lane l holds the kept pair
// of k-group 4(g/2) + 2(l/16) + g%2 for 16-bit A).
// 16-bit B, K x N = 32 x 16, 8 VGPRs (v = 2g + h): k = 16(g/4) + 8(l/16) + 2(g%4) + h.
inline constexpr TvMap b16k32{32, 16, 16, {{{16, 32}, {2, 8}}}, {{{8, 1}, {2, 16}, {1, 0}}}};
// The 8-bit and 4-bit SWMMAC forms: RDNA4.md only says "the same pattern". Derived from the
// one rule all the documented maps share (K advances in chunks whose lane half alternates:
// 64-bit chunks for dense operands, 128-bit chunks of the expanded operand for SWMMAC) and
// checked against the compressed-A maps (A lane half h holds the k-groups of k in
// [16h, 16h + 15] for 8-bit, [32h, 32h + 31] for iu4 16x16x64), which B must match:
// 8-bit B, 32 x 16, 4 VGPRs (v = 4g + b): k = 16(l/16) + v.
inline constexpr TvMap b8k32{32, 16, 8, {{{16, 32}, {2, 16}}}, {{{16, 1}, {1, 0}, {1, 0}}}};
// iu4 B, 32 x 16, 2 VGPRs (v = 8g + n): k = 16(l/16) + v   (same as dense iu4 16x16x32).
inline constexpr TvMap b4k32s = b4k32;
// iu4 B, 64 x 16, 4 VGPRs (v = 8g + n): k = 32(l/16) + v.
inline constexpr TvMap b4k64{64, 16, 4, {{{16, 64}, {2, 32}}}, {{{32, 1}, {1, 0}, {1, 0}}}};
} // namespace gfx12_maps

namespace detail {
using M = MmaElem;
inline constexpr unsigned kIntMods = kMmaSignedness | kMmaClamp;
inline constexpr unsigned kHalfMods = kMmaNegAB | kMmaNegC;
// fp8 / bf8: LLVM accepts neg_lo[2] / neg_hi[2] (-C, |C|) but no A/B negation.
inline constexpr unsigned kFp8Mods = kMmaNegC;
inline constexpr unsigned kSparseHalfMods = kMmaNegAB | kMmaIndexKey;
inline constexpr unsigned kSparseIntMods = kMmaSignedness | kMmaClamp | kMmaIndexKey;
namespace g = gfx12_maps;
} // namespace detail

// clang-format off
inline constexpr std::array<MmaInstrInfo, 22> kGfx12MmaInstrs = {{
  // ---- dense WMMA ----
  {"v_wmma_f32_16x16x16_f16", 16, 16, 16, 4, 4, 8, false, detail::M::f16, detail::M::f16, detail::M::f32,
   detail::kHalfMods, 0, 16, "llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16",
   "<8 x float> (<8 x half>, <8 x half>, <8 x float>)",
   "__builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12", detail::g::a16, detail::g::b16, detail::g::c32},
  {"v_wmma_f32_16x16x16_bf16", 16, 16, 16, 4, 4, 8, false, detail::M::bf16, detail::M::bf16, detail::M::f32,
   detail::kHalfMods, 0, 16, "llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32.v8i16",
   "<8 x float> (<8 x i16>, <8 x i16>, <8 x float>)",
   "__builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12", detail::g::a16, detail::g::b16, detail::g::c32},
  {"v_wmma_f16_16x16x16_f16", 16, 16, 16, 4, 4, 4, false, detail::M::f16, detail::M::f16, detail::M::f16,
   detail::kHalfMods, 0, 16, "llvm.amdgcn.wmma.f16.16x16x16.f16.v8f16.v8f16",
   "<8 x half> (<8 x half>, <8 x half>, <8 x half>, i1 immarg)",
   "__builtin_amdgcn_wmma_f16_16x16x16_f16_w32_gfx12", detail::g::a16, detail::g::b16, detail::g::c16},
  {"v_wmma_bf16_16x16x16_bf16", 16, 16, 16, 4, 4, 4, false, detail::M::bf16, detail::M::bf16, detail::M::bf16,
   detail::kHalfMods, 0, 16, "llvm.amdgcn.wmma.bf16.16x16x16.bf16.v8i16.v8i16",
   "<8 x i16> (<8 x i16>, <8 x i16>, <8 x i16>, i1 immarg)",
   "__builtin_amdgcn_wmma_bf16_16x16x16_bf16_w32_gfx12", detail::g::a16, detail::g::b16, detail::g::c16},
  {"v_wmma_i32_16x16x16_iu8", 16, 16, 16, 2, 2, 8, false, detail::M::iu8, detail::M::iu8, detail::M::i32,
   detail::kIntMods, 0, 8, "llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32.v2i32",
   "<8 x i32> (i1 immarg, <2 x i32>, i1 immarg, <2 x i32>, <8 x i32>, i1 immarg)",
   "__builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12", detail::g::a8, detail::g::b8, detail::g::c32},
  {"v_wmma_i32_16x16x16_iu4", 16, 16, 16, 1, 1, 8, false, detail::M::iu4, detail::M::iu4, detail::M::i32,
   detail::kIntMods, 0, 8, "llvm.amdgcn.wmma.i32.16x16x16.iu4.v8i32.i32",
   "<8 x i32> (i1 immarg, i32, i1 immarg, i32, <8 x i32>, i1 immarg)",
   "__builtin_amdgcn_wmma_i32_16x16x16_iu4_w32_gfx12", detail::g::a4k16, detail::g::b4k16, detail::g::c32},
  {"v_wmma_i32_16x16x32_iu4", 16, 16, 32, 2, 2, 8, false, detail::M::iu4, detail::M::iu4, detail::M::i32,
   detail::kIntMods, 0, 8, "llvm.amdgcn.wmma.i32.16x16x32.iu4.v8i32.v2i32",
   "<8 x i32> (i1 immarg, <2 x i32>, i1 immarg, <2 x i32>, <8 x i32>, i1 immarg)",
   "__builtin_amdgcn_wmma_i32_16x16x32_iu4_w32_gfx12", detail::g::a4k32, detail::g::b4k32, detail::g::c32},
  {"v_wmma_f32_16x16x16_fp8_fp8", 16, 16, 16, 2, 2, 8, false, detail::M::fp8, detail::M::fp8, detail::M::f32,
   detail::kFp8Mods, 0, 8, "llvm.amdgcn.wmma.f32.16x16x16.fp8.fp8.v8f32.v2i32",
   "<8 x float> (<2 x i32>, <2 x i32>, <8 x float>)",
   "__builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12", detail::g::a8, detail::g::b8, detail::g::c32},
  {"v_wmma_f32_16x16x16_fp8_bf8", 16, 16, 16, 2, 2, 8, false, detail::M::fp8, detail::M::bf8, detail::M::f32,
   detail::kFp8Mods, 0, 8, "llvm.amdgcn.wmma.f32.16x16x16.fp8.bf8.v8f32.v2i32",
   "<8 x float> (<2 x i32>, <2 x i32>, <8 x float>)",
   "__builtin_amdgcn_wmma_f32_16x16x16_fp8_bf8_w32_gfx12", detail::g::a8, detail::g::b8, detail::g::c32},
  {"v_wmma_f32_16x16x16_bf8_fp8", 16, 16, 16, 2, 2, 8, false, detail::M::bf8, detail::M::fp8, detail::M::f32,
   detail::kFp8Mods, 0, 8, "llvm.amdgcn.wmma.f32.16x16x16.bf8.fp8.v8f32.v2i32",
   "<8 x float> (<2 x i32>, <2 x i32>, <8 x float>)",
   "__builtin_amdgcn_wmma_f32_16x16x16_bf8_fp8_w32_gfx12", detail::g::a8, detail::g::b8, detail::g::c32},
  {"v_wmma_f32_16x16x16_bf8_bf8", 16, 16, 16, 2, 2, 8, false, detail::M::bf8, detail::M::bf8, detail::M::f32,
   detail::kFp8Mods, 0, 8, "llvm.amdgcn.wmma.f32.16x16x16.bf8.bf8.v8f32.v2i32",
   "<8 x float> (<2 x i32>, <2 x i32>, <8 x float>)",
   "__builtin_amdgcn_wmma_f32_16x16x16_bf8_bf8_w32_gfx12", detail::g::a8, detail::g::b8, detail::g::c32},
  // ---- SWMMAC (A 2:4 sparse, D accumulates in place) ----
  {"v_swmmac_f32_16x16x32_f16", 16, 16, 32, 4, 8, 8, true, detail::M::f16, detail::M::f16, detail::M::f32,
   detail::kSparseHalfMods, 2, 16, "llvm.amdgcn.swmmac.f32.16x16x32.f16.v8f32.v8f16.v16f16.i32",
   "<8 x float> (<8 x half>, <16 x half>, <8 x float>, i32)",
   "__builtin_amdgcn_swmmac_f32_16x16x32_f16_w32", detail::g::a16, detail::g::b16k32, detail::g::c32},
  {"v_swmmac_f32_16x16x32_bf16", 16, 16, 32, 4, 8, 8, true, detail::M::bf16, detail::M::bf16, detail::M::f32,
   detail::kSparseHalfMods, 2, 16, "llvm.amdgcn.swmmac.f32.16x16x32.bf16.v8f32.v8i16.v16i16.i32",
   "<8 x float> (<8 x i16>, <16 x i16>, <8 x float>, i32)",
   "__builtin_amdgcn_swmmac_f32_16x16x32_bf16_w32", detail::g::a16, detail::g::b16k32, detail::g::c32},
  {"v_swmmac_f16_16x16x32_f16", 16, 16, 32, 4, 8, 4, true, detail::M::f16, detail::M::f16, detail::M::f16,
   detail::kSparseHalfMods, 2, 16, "llvm.amdgcn.swmmac.f16.16x16x32.f16.v8f16.v8f16.v16f16.i32",
   "<8 x half> (<8 x half>, <16 x half>, <8 x half>, i32)",
   "__builtin_amdgcn_swmmac_f16_16x16x32_f16_w32", detail::g::a16, detail::g::b16k32, detail::g::c16},
  {"v_swmmac_bf16_16x16x32_bf16", 16, 16, 32, 4, 8, 4, true, detail::M::bf16, detail::M::bf16, detail::M::bf16,
   detail::kSparseHalfMods, 2, 16, "llvm.amdgcn.swmmac.bf16.16x16x32.bf16.v8i16.v8i16.v16i16.i32",
   "<8 x i16> (<8 x i16>, <16 x i16>, <8 x i16>, i32)",
   "__builtin_amdgcn_swmmac_bf16_16x16x32_bf16_w32", detail::g::a16, detail::g::b16k32, detail::g::c16},
  {"v_swmmac_i32_16x16x32_iu8", 16, 16, 32, 2, 4, 8, true, detail::M::iu8, detail::M::iu8, detail::M::i32,
   detail::kSparseIntMods, 2, 8, "llvm.amdgcn.swmmac.i32.16x16x32.iu8.v8i32.v2i32.v4i32.i32",
   "<8 x i32> (i1 immarg, <2 x i32>, i1 immarg, <4 x i32>, <8 x i32>, i32, i1 immarg)",
   "__builtin_amdgcn_swmmac_i32_16x16x32_iu8_w32", detail::g::a8, detail::g::b8k32, detail::g::c32},
  {"v_swmmac_i32_16x16x32_iu4", 16, 16, 32, 1, 2, 8, true, detail::M::iu4, detail::M::iu4, detail::M::i32,
   detail::kSparseIntMods, 2, 8, "llvm.amdgcn.swmmac.i32.16x16x32.iu4.v8i32.i32.v2i32.i32",
   "<8 x i32> (i1 immarg, i32, i1 immarg, <2 x i32>, <8 x i32>, i32, i1 immarg)",
   "__builtin_amdgcn_swmmac_i32_16x16x32_iu4_w32", detail::g::a4k16, detail::g::b4k32s, detail::g::c32},
  {"v_swmmac_i32_16x16x64_iu4", 16, 16, 64, 2, 4, 8, true, detail::M::iu4, detail::M::iu4, detail::M::i32,
   detail::kIntMods, 1, 8, "llvm.amdgcn.swmmac.i32.16x16x64.iu4.v8i32.v2i32.v4i32.i32",
   "<8 x i32> (i1 immarg, <2 x i32>, i1 immarg, <4 x i32>, <8 x i32>, i32, i1 immarg)",
   "__builtin_amdgcn_swmmac_i32_16x16x64_iu4_w32", detail::g::a4k32, detail::g::b4k64, detail::g::c32},
  {"v_swmmac_f32_16x16x32_fp8_fp8", 16, 16, 32, 2, 4, 8, true, detail::M::fp8, detail::M::fp8, detail::M::f32,
   kMmaIndexKey, 2, 8, "llvm.amdgcn.swmmac.f32.16x16x32.fp8.fp8.v8f32.v2i32.v4i32.i32",
   "<8 x float> (<2 x i32>, <4 x i32>, <8 x float>, i32)",
   "__builtin_amdgcn_swmmac_f32_16x16x32_fp8_fp8_w32", detail::g::a8, detail::g::b8k32, detail::g::c32},
  {"v_swmmac_f32_16x16x32_fp8_bf8", 16, 16, 32, 2, 4, 8, true, detail::M::fp8, detail::M::bf8, detail::M::f32,
   kMmaIndexKey, 2, 8, "llvm.amdgcn.swmmac.f32.16x16x32.fp8.bf8.v8f32.v2i32.v4i32.i32",
   "<8 x float> (<2 x i32>, <4 x i32>, <8 x float>, i32)",
   "__builtin_amdgcn_swmmac_f32_16x16x32_fp8_bf8_w32", detail::g::a8, detail::g::b8k32, detail::g::c32},
  {"v_swmmac_f32_16x16x32_bf8_fp8", 16, 16, 32, 2, 4, 8, true, detail::M::bf8, detail::M::fp8, detail::M::f32,
   kMmaIndexKey, 2, 8, "llvm.amdgcn.swmmac.f32.16x16x32.bf8.fp8.v8f32.v2i32.v4i32.i32",
   "<8 x float> (<2 x i32>, <4 x i32>, <8 x float>, i32)",
   "__builtin_amdgcn_swmmac_f32_16x16x32_bf8_fp8_w32", detail::g::a8, detail::g::b8k32, detail::g::c32},
  {"v_swmmac_f32_16x16x32_bf8_bf8", 16, 16, 32, 2, 4, 8, true, detail::M::bf8, detail::M::bf8, detail::M::f32,
   kMmaIndexKey, 2, 8, "llvm.amdgcn.swmmac.f32.16x16x32.bf8.bf8.v8f32.v2i32.v4i32.i32",
   "<8 x float> (<2 x i32>, <4 x i32>, <8 x float>, i32)",
   "__builtin_amdgcn_swmmac_f32_16x16x32_bf8_bf8_w32", detail::g::a8, detail::g::b8k32, detail::g::c32},
}};
// clang-format on

inline std::span<const MmaInstrInfo> all_mma_instrs() {
  return kGfx12MmaInstrs;
}

// The instruction named `mnemonic` (lower case, no encoding suffix), or nullptr.
constexpr const MmaInstrInfo* find_mma_instr(std::string_view mnemonic) {
  for (const MmaInstrInfo& i : kGfx12MmaInstrs)
    if (i.mnemonic == mnemonic)
      return &i;
  return nullptr;
}

} // namespace tw::atoms
