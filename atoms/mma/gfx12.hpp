#pragma once
// The gfx12 (RDNA4) WMMA / SWMMAC atoms as types, CuTe style: an Operation (what to emit: the
// mnemonic, the LLVM intrinsic with its signature, the clang builtin) and its Traits (constexpr
// data: M, N, K, element types, VGPR counts, accepted modifiers and the (thread, value) ->
// element layouts of A, B and C/D as tw layouts). One file per arch, as FlyDSL does; verify()
// rejects at authoring time what the instruction cannot do, as a static_assert sentence
// (require_modifiers<...>(), select_mma_atom<...>) or as an exception (verify(...)).
#include <atoms/arch.hpp>
#include <atoms/mma/gfx12_instrs.hpp>
#include <atoms/mma/verify.hpp>
#include <layouts/layout.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tw::atoms {

// ---------------------------------------------------------------------------------------------
// Arch and shape rules (constexpr sentences; empty = fine).

// Empty when `arch` names a gfx12 target, else why not.
constexpr std::string_view mma_arch_error(std::string_view arch) {
  if (try_parse_arch(arch))
    return {};
  return "WMMA / SWMMAC atoms are gfx12 (RDNA4) instructions: the arch must be gfx1200 or "
         "gfx1201 (gfx11 WMMA duplicates A/B across half-waves and CDNA has MFMA instead)";
}

// What an author asks for: a tile shape and element types (dense WMMA or sparse SWMMAC).
struct MmaQuery {
  int m = 16, n = 16, k = 16;
  MmaElem a = MmaElem::f16, b = MmaElem::f16, cd = MmaElem::f32;
  bool sparse = false;
};

// Position of the instruction matching `q` in kGfx12MmaInstrs, or kGfx12MmaInstrs.size().
// (An index, not a pointer, so that compile-time queries stay constant expressions under
// GCC's -fsanitize=null, which instruments pointer comparisons.)
constexpr std::size_t find_mma_instr_index(const MmaQuery& q) {
  for (std::size_t n = 0; n < kGfx12MmaInstrs.size(); ++n) {
    const MmaInstrInfo& i = kGfx12MmaInstrs[n];
    if (i.m == q.m && i.n == q.n && i.k == q.k && i.a_type == q.a && i.b_type == q.b &&
        i.cd_type == q.cd && i.sparse == q.sparse)
      return n;
  }
  return kGfx12MmaInstrs.size();
}

constexpr const MmaInstrInfo* find_mma_instr(const MmaQuery& q) {
  const std::size_t n = find_mma_instr_index(q);
  return n < kGfx12MmaInstrs.size() ? &kGfx12MmaInstrs[n] : nullptr;
}

// Empty when a gfx12 instruction matches `q`, else the rule `q` breaks.
constexpr std::string_view mma_query_error(const MmaQuery& q) {
  if (find_mma_instr(q))
    return {};
  const bool fp8ish_a = q.a == MmaElem::fp8 || q.a == MmaElem::bf8;
  const bool fp8ish_b = q.b == MmaElem::fp8 || q.b == MmaElem::bf8;
  if (q.m != 16 || q.n != 16)
    return "gfx12 WMMA / SWMMAC tiles are 16 x 16 (M = N = 16): cover a larger tile with "
           "several atoms";
  if (q.a != q.b && !(fp8ish_a && fp8ish_b))
    return "A and B must have the same element type (only fp8 and bf8 mix: fp8_bf8, bf8_fp8)";
  if (q.a == MmaElem::f32 || q.a == MmaElem::i32)
    return "gfx12 has no f32 or i32 inputs for WMMA: A and B are f16, bf16, fp8, bf8, iu8 or iu4";
  const bool cd_ok = (q.a == MmaElem::f16 && (q.cd == MmaElem::f32 || q.cd == MmaElem::f16)) ||
                     (q.a == MmaElem::bf16 && (q.cd == MmaElem::f32 || q.cd == MmaElem::bf16)) ||
                     (fp8ish_a && q.cd == MmaElem::f32) ||
                     ((q.a == MmaElem::iu8 || q.a == MmaElem::iu4) && q.cd == MmaElem::i32);
  if (!cd_ok)
    return "wrong C/D type: f16 inputs accumulate in f32 or f16, bf16 in f32 or bf16, fp8 / bf8 "
           "in f32, iu8 / iu4 in i32";
  if (!q.sparse) {
    if (q.k == 32)
      return "a dense 16x16x32 WMMA exists only for iu4 (v_wmma_i32_16x16x32_iu4): other dense "
             "atoms have K = 16, and K = 32 with f16 / bf16 / fp8 / bf8 / iu8 is the sparse "
             "SWMMAC";
    return "dense gfx12 WMMA has K = 16 (and K = 32 for iu4 only)";
  }
  if (q.k == 64)
    return "a 16x16x64 SWMMAC exists only for iu4 (v_swmmac_i32_16x16x64_iu4): other SWMMAC "
           "have K = 32";
  return "gfx12 SWMMAC has K = 32 (and K = 64 for iu4 only)";
}

// The instruction matching `q` on `arch`; throws std::invalid_argument with the rule otherwise.
inline const MmaInstrInfo& select_mma_instr(const MmaQuery& q, std::string_view arch = "gfx1201") {
  if (std::string_view e = mma_arch_error(arch); !e.empty())
    throw std::invalid_argument("arch '" + std::string(arch) + "': " + std::string(e));
  if (std::string_view e = mma_query_error(q); !e.empty())
    throw std::invalid_argument(std::string(q.sparse ? "SWMMAC " : "WMMA ") + std::to_string(q.m) +
                                "x" + std::to_string(q.n) + "x" + std::to_string(q.k) + " " +
                                std::string(elem_name(q.a)) + " x " + std::string(elem_name(q.b)) +
                                " -> " + std::string(elem_name(q.cd)) + ": " + std::string(e));
  return *find_mma_instr(q);
}

// ---------------------------------------------------------------------------------------------
// Layouts: a TvMap as a static tw::Layout ((t0, t1), (v0[, v1[, v2]])) : (...) whose value is
// the column-major index of the element in its matrix (row + rows * col).

template <TvMap Map>
consteval auto tv_layout() {
  constexpr auto t = make_shape(Int<Map.thread[0].extent>{}, Int<Map.thread[1].extent>{});
  constexpr auto ts = make_stride(Int<Map.thread[0].stride>{}, Int<Map.thread[1].stride>{});
  constexpr int n_value_modes = Map.value[2].extent > 1 ? 3 : Map.value[1].extent > 1 ? 2 : 1;
  if constexpr (n_value_modes == 1)
    return make_layout(make_shape(t, Int<Map.value[0].extent>{}),
                       make_stride(ts, Int<Map.value[0].stride>{}));
  else if constexpr (n_value_modes == 2)
    return make_layout(
        make_shape(t, make_shape(Int<Map.value[0].extent>{}, Int<Map.value[1].extent>{})),
        make_stride(ts, make_stride(Int<Map.value[0].stride>{}, Int<Map.value[1].stride>{})));
  else
    return make_layout(
        make_shape(t, make_shape(Int<Map.value[0].extent>{}, Int<Map.value[1].extent>{},
                                 Int<Map.value[2].extent>{})),
        make_stride(ts, make_stride(Int<Map.value[0].stride>{}, Int<Map.value[1].stride>{},
                                    Int<Map.value[2].stride>{})));
}

// ---------------------------------------------------------------------------------------------
// Operation and traits.

// Position of `mnemonic` in kGfx12MmaInstrs; an unknown name does not compile.
consteval std::size_t gfx12_mma_index(std::string_view mnemonic) {
  for (std::size_t i = 0; i < kGfx12MmaInstrs.size(); ++i)
    if (kGfx12MmaInstrs[i].mnemonic == mnemonic)
      return i;
  throw std::invalid_argument("not a gfx12 WMMA / SWMMAC mnemonic");
}

// Operation: what the emitters produce for this atom.
template <std::size_t I>
struct Gfx12MmaOp {
  static_assert(I < kGfx12MmaInstrs.size(), "tw: Gfx12MmaOp<I>: I is not a gfx12 MMA instruction");
  static constexpr const MmaInstrInfo& info = kGfx12MmaInstrs[I];
  static constexpr std::string_view mnemonic = info.mnemonic;
  static constexpr std::string_view intrinsic = info.intrinsic;
  static constexpr std::string_view signature = info.signature;
  static constexpr std::string_view builtin = info.builtin;
};

// Traits: the constexpr data of an operation.
template <class Op>
struct MmaTraits;

template <std::size_t I>
struct MmaTraits<Gfx12MmaOp<I>> {
  static constexpr const MmaInstrInfo& info = kGfx12MmaInstrs[I];
  static constexpr int M = info.m, N = info.n, K = info.k;
  static constexpr MmaElem a_type = info.a_type, b_type = info.b_type, cd_type = info.cd_type;
  static constexpr int a_vgprs = info.a_vgprs, b_vgprs = info.b_vgprs, cd_vgprs = info.cd_vgprs;
  static constexpr bool sparse = info.sparse;
  static constexpr int index_keys = info.index_keys;
  static constexpr unsigned modifiers = info.modifiers;
  // (lane, value) -> element. Value = vgpr * (32 / element bits) + element within the VGPR.
  // A: M x K matrix (SWMMAC: the compressed M x K/2 matrix of kept values); B: K x N; C/D: M x N.
  using ALayout = decltype(tv_layout<kGfx12MmaInstrs[I].a>());
  using BLayout = decltype(tv_layout<kGfx12MmaInstrs[I].b>());
  using CLayout = decltype(tv_layout<kGfx12MmaInstrs[I].cd>());
  static constexpr ALayout a_layout{};
  static constexpr BLayout b_layout{};
  static constexpr CLayout c_layout{};
};

// The atom: traits plus the operation plus verification.
template <class Op>
struct MmaAtom : MmaTraits<Op> {
  using Operation = Op;
  using Traits = MmaTraits<Op>;
  using Traits::info;

  // Authoring-time check of one modifier set; each rule is its own sentence.
  template <MmaModifiers Mods>
  static consteval bool require_modifiers() {
    static_assert(Mods.neg_lo <= 7 && Mods.neg_hi <= 7,
                  "WMMA modifiers: neg_lo / neg_hi are 3-bit masks (bit 0 = A, bit 1 = B, "
                  "bit 2 = C)");
    static_assert(!((Mods.neg_lo | Mods.neg_hi) & 3u) || (info.modifiers & kMmaNegAB),
                  "WMMA modifiers: this atom cannot negate A or B (neg_lo / neg_hi bits 0-1 "
                  "exist only for f16 / bf16 inputs; fp8 / bf8 / iu8 / iu4 atoms reject them)");
    static_assert(!((Mods.neg_lo | Mods.neg_hi) & 4u) || (info.modifiers & kMmaNegC),
                  "WMMA modifiers: this atom cannot negate C or take |C| (neg_lo / neg_hi bit "
                  "2): integer forms and SWMMAC (which accumulates in place) reject it");
    static_assert(!(Mods.a_signed || Mods.b_signed) || (info.modifiers & kMmaSignedness),
                  "WMMA modifiers: a_signed / b_signed apply only to iu8 / iu4 atoms");
    static_assert(!Mods.clamp || (info.modifiers & kMmaClamp),
                  "WMMA modifiers: clamp applies only to iu8 / iu4 atoms (gfx12 float WMMA and "
                  "SWMMAC have no clamp)");
    static_assert(Mods.index_key == 0 || (info.modifiers & kMmaIndexKey),
                  "WMMA modifiers: index_key applies only to SWMMAC with a 16-bit index set "
                  "(not to dense WMMA, not to v_swmmac_i32_16x16x64_iu4)");
    static_assert(!(info.modifiers & kMmaIndexKey) || Mods.index_key < unsigned(info.index_keys),
                  "WMMA modifiers: index_key must be 0 or 1 (bits [15:0] or [31:16] of the "
                  "index VGPR)");
    return true;
  }

  // Constexpr check: empty when this atom runs on `arch` with `mods`, else the rule.
  static constexpr std::string_view error(std::string_view arch = "gfx1201",
                                          const MmaModifiers& mods = {}) {
    if (std::string_view e = mma_arch_error(arch); !e.empty())
      return e;
    return mma_modifier_error(info, mods);
  }

  // Run-time checks (throw std::invalid_argument naming the atom and the rule).
  static void verify(const MmaModifiers& mods) { verify_mma_modifiers(info, mods); }
  static void verify(std::string_view arch, const MmaModifiers& mods = {}) {
    if (std::string_view e = mma_arch_error(arch); !e.empty())
      throw std::invalid_argument(std::string(info.mnemonic) + " on arch '" + std::string(arch) +
                                  "': " + std::string(e));
    verify(mods);
  }
};

namespace detail {
template <MmaQuery Q>
consteval std::size_t checked_query_index() {
  constexpr bool square = Q.m == 16 && Q.n == 16;
  constexpr bool fp8ish_a = Q.a == MmaElem::fp8 || Q.a == MmaElem::bf8;
  constexpr bool fp8ish_b = Q.b == MmaElem::fp8 || Q.b == MmaElem::bf8;
  constexpr bool same_types = Q.a == Q.b || (fp8ish_a && fp8ish_b);
  constexpr bool dense_k32_iu4 = Q.sparse || Q.k != 32 || Q.a == MmaElem::iu4;
  constexpr bool sparse_k64_iu4 = !Q.sparse || Q.k != 64 || Q.a == MmaElem::iu4;
  static_assert(square, "select_mma_atom: gfx12 WMMA / SWMMAC tiles are 16 x 16 (M = N = 16)");
  static_assert(same_types, "select_mma_atom: A and B must have the same element type (only "
                            "fp8 and bf8 mix)");
  static_assert(dense_k32_iu4, "select_mma_atom: a dense 16x16x32 WMMA exists only for iu4 "
                               "(v_wmma_i32_16x16x32_iu4); use K = 16, or the sparse SWMMAC "
                               "for K = 32");
  static_assert(sparse_k64_iu4, "select_mma_atom: a 16x16x64 SWMMAC exists only for iu4");
  constexpr std::size_t index = find_mma_instr_index(Q);
  constexpr bool found = index < kGfx12MmaInstrs.size();
  // The general rule, only when no specific sentence above already fired.
  static_assert(found || !(square && same_types && dense_k32_iu4 && sparse_k64_iu4),
                "select_mma_atom: no gfx12 instruction has this shape and these types (C/D: "
                "f16 -> f32 | f16, bf16 -> f32 | bf16, fp8 / bf8 -> f32, iu8 / iu4 -> i32; "
                "dense K = 16 (iu4 also 32), SWMMAC K = 32 (iu4 also 64); mma_query_error(q) "
                "names the rule)");
  if constexpr (found)
    return index;
  else
    return 0; // unreachable in a compiling program: one static_assert above has fired
}
} // namespace detail

// The atom for a shape and element types, rejected with a sentence if gfx12 has none.
template <MmaQuery Q>
using select_mma_atom = MmaAtom<Gfx12MmaOp<detail::checked_query_index<Q>()>>;

// clang-format off
// One alias per gfx12 instruction (the catalogue of kGfx12MmaInstrs).
using wmma_f32_16x16x16_f16       = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f32_16x16x16_f16")>>;
using wmma_f32_16x16x16_bf16      = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f32_16x16x16_bf16")>>;
using wmma_f16_16x16x16_f16       = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f16_16x16x16_f16")>>;
using wmma_bf16_16x16x16_bf16     = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_bf16_16x16x16_bf16")>>;
using wmma_i32_16x16x16_iu8       = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_i32_16x16x16_iu8")>>;
using wmma_i32_16x16x16_iu4       = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_i32_16x16x16_iu4")>>;
using wmma_i32_16x16x32_iu4       = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_i32_16x16x32_iu4")>>;
using wmma_f32_16x16x16_fp8_fp8   = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f32_16x16x16_fp8_fp8")>>;
using wmma_f32_16x16x16_fp8_bf8   = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f32_16x16x16_fp8_bf8")>>;
using wmma_f32_16x16x16_bf8_fp8   = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f32_16x16x16_bf8_fp8")>>;
using wmma_f32_16x16x16_bf8_bf8   = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_wmma_f32_16x16x16_bf8_bf8")>>;
using swmmac_f32_16x16x32_f16     = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f32_16x16x32_f16")>>;
using swmmac_f32_16x16x32_bf16    = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f32_16x16x32_bf16")>>;
using swmmac_f16_16x16x32_f16     = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f16_16x16x32_f16")>>;
using swmmac_bf16_16x16x32_bf16   = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_bf16_16x16x32_bf16")>>;
using swmmac_i32_16x16x32_iu8     = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_i32_16x16x32_iu8")>>;
using swmmac_i32_16x16x32_iu4     = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_i32_16x16x32_iu4")>>;
using swmmac_i32_16x16x64_iu4     = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_i32_16x16x64_iu4")>>;
using swmmac_f32_16x16x32_fp8_fp8 = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f32_16x16x32_fp8_fp8")>>;
using swmmac_f32_16x16x32_fp8_bf8 = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f32_16x16x32_fp8_bf8")>>;
using swmmac_f32_16x16x32_bf8_fp8 = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f32_16x16x32_bf8_fp8")>>;
using swmmac_f32_16x16x32_bf8_bf8 = MmaAtom<Gfx12MmaOp<gfx12_mma_index("v_swmmac_f32_16x16x32_bf8_bf8")>>;
// clang-format on

} // namespace tw::atoms
