#pragma once
// The prologue block that moves a K tile of both operands from global memory into an LDS stage:
// fetch(kt) issues the global loads of K tile kt (into registers), commit(regs, stage) stores
// them into the stage, converting on the way where the kernel asks for it (fp8 / int8
// activation quantization, W8A16's int8 -> f16 / bf16, the transposed copy of an m/n-contiguous
// operand, the cleared nibble past an odd K of packed int4). The main-loop blocks
// (blocks/main_loop.hpp) call the two a stage apart.
#include <kernels/gemm/blocks/act_quant.hpp>
#include <kernels/gemm/blocks/body_layout.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/copy/buffer_clipped_walk.hpp>
#include <dsl/copy/buffer_global_tile.hpp>
#include <dsl/dsl.hpp>
#include <dsl/handles/convert.hpp>
#include <dsl/tensor/store_view.hpp>

#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace tw::kernels::gemm_kernel {

// L: the body's BodyLayout; Lds: its LDS (use_lds<L::plan>), which must outlive the block.
template <class L, class Lds>
class OperandFetch {
  using AS = typename L::AS;
  using BS = typename L::BS;
  static constexpr int bk = L::bk, block_m = L::block_m, block_n = L::block_n;

public:
  // a: M x K; bt: b as N x K (the MMA wants it n-major); tile_m / tile_n: the output tile.
  OperandFetch(const GemmKernelSpec& s, const Lds& lds, const dsl::GlobalTensor<AS>& a,
               const dsl::GlobalTensor<BS>& bt, const dsl::Int32& tile_m, const dsl::Int32& tile_n,
               const dsl::Int64& k)
      : s_(s), lds_(lds), a_(a), bt_(bt), bm_(tile_m), bn_(tile_n), k_(k),
        k_cols_(s.k_whole ? dsl::ClippedCols::whole_or_none : dsl::ClippedCols::per_run) {
    // With s.k_whole the k-contiguous clipped operands are walked along K through one
    // descriptor made here, before the K loop (see load_clipped_a).
    if constexpr (L::a_k_contig && !L::mx)
      if (s.k_whole && s.a_clipped)
        walk_a_.emplace(dsl::buffer_clipped_walk<block_m, bk>(a_, bm_));
    if constexpr (L::b_k_contig && !L::mx)
      if (s.k_whole && s.b_clipped)
        walk_b_.emplace(dsl::buffer_clipped_walk<block_n, bk>(bt_, bn_));
    if ((s.a_clipped && !s.a_vec_aligned) || (s.b_clipped && !s.b_vec_aligned))
      throw std::invalid_argument("gemm kernel: a_clipped / b_clipped need the operand's 16-byte "
                                  "alignment (a_vec_aligned / b_vec_aligned)");
    if (s.k_whole && !((s.a_clipped && L::a_k_contig) || (s.b_clipped && L::b_k_contig)))
      throw std::invalid_argument("gemm kernel: k_whole needs a clipped k-contiguous operand "
                                  "(a_clipped with a row-major, or b_clipped with b col-major)");
  }

  // The loads of K tile kt (absolute): A and B under one whole-tile branch, so their 128-bit
  // loads issue back to back (two branches let LLVM wait for A's loads before issuing B's). The
  // tuple carries kt for commit.
  auto fetch(const dsl::Int32& kt) const {
    if (s_.a_clipped && s_.b_clipped) // all 8 loads in one straight block, edges included
      return std::tuple{load_clipped_a(kt), load_clipped_b(kt), kt};
    if (s_.a_clipped)
      return std::tuple{load_clipped_a(kt), copy_b().load(tile_b(kt)), kt};
    if (s_.b_clipped)
      return std::tuple{copy_a().load(tile_a(kt)), load_clipped_b(kt), kt};
    const auto [regs_a, regs_b] =
        dsl::load_both_whole_or_masked(copy_a(), tile_a(kt), copy_b(), tile_b(kt));
    return std::tuple{regs_a, regs_b, kt};
  }

  template <class Regs>
  void commit(const Regs& regs, const dsl::Int32& stage) const {
    using namespace tw::dsl;
    const auto& [regs_a, regs_b, kt] = regs;
    const auto sA = [&] { return lds_.template tile<"sA">(stage); };
    const auto sB = [&] { return lds_.template tile<"sB">(stage); };
    if constexpr (L::packed) {
      if (s_.k_whole) { // K even (gemm_k_whole): no nibble past K to clear, no branch
        L::copy_ka.store(regs_a, sA());
        L::copy_kb.store(regs_b, sB());
        return;
      }
      // Only the K tile holding the byte of nibble K - 1 (odd K) pays for the masking.
      const Int32 k32 = cast<i32>(k_);
      const Bool odd_tail = (k32 & 1) == 1 && ((k32 - 1) / 2) / bk == kt;
      if_(
          odd_tail,
          [&] { L::copy_ka.store(regs_a, mapping_store_view<AS>(sA(), clear_past_k(kt))); },
          [&] { L::copy_ka.store(regs_a, sA()); });
      L::copy_kb.store(regs_b, sB());
      return;
    }
    if constexpr (L::quant) // activation quantization: q = sat(rne(x * (1 / s_m)))
      L::copy_ka.store(regs_a, mapping_store_view<AS>(sA(), [&](const Scalar<AS>& x, const Int32& r,
                                                                const Int32&) {
                         return quantize_activation<typename L::AE>(
                             cast<f32>(x) * lds_.template tile<"sQ">().load(Int32(1), r));
                       }));
    else if constexpr (L::a_k_contig)
      L::copy_ka.store(regs_a, sA());
    else
      L::copy_ta.store(regs_a, transposing_store_view<AS>(sA()));
    if constexpr (!std::same_as<BS, typename L::BL>) // prologue conversion (W8A16)
      L::copy_kb.store(regs_b, converting_store_view<BS>(sB()));
    else if constexpr (L::b_k_contig)
      L::copy_kb.store(regs_b, sB());
    else
      L::copy_tb.store(regs_b, transposing_store_view<BS>(sB()));
  }

private:
  static constexpr const auto& copy_a() {
    if constexpr (L::a_k_contig)
      return L::copy_ka;
    else
      return L::copy_ta;
  }
  static constexpr const auto& copy_b() {
    if constexpr (L::b_k_contig)
      return L::copy_kb;
    else
      return L::copy_tb;
  }
  // The operand tiles of K tile kt: buffer loads on the whole-tile path (32-bit offsets, no
  // 64-bit address adds in the K loop). Every kernel takes them: the MX, activation-quantizing
  // and packed int4 kernels once kept masked GlobalTile copies, whose 64-bit row addresses
  // spilled at 256 VGPRs (8-208 B of scratch; with clipped operands none, docs/kernels.md).
  auto tile_a(const dsl::Int32& kt) const {
    if constexpr (L::a_k_contig)
      return dsl::buffer_local_tile<block_m, bk>(a_, bm_, kt);
    else
      return dsl::buffer_local_tile<bk, block_m>(a_.transposed(), kt, bm_);
  }
  auto tile_b(const dsl::Int32& kt) const {
    if constexpr (L::b_k_contig)
      return dsl::buffer_local_tile<block_n, bk>(bt_, bn_, kt);
    else
      return dsl::buffer_local_tile<bk, block_n>(bt_.transposed(), kt, bn_);
  }
  // Clipped copies (s.a_clipped / s.b_clipped: the host found the operand within
  // buffer_clipped_tile's requirements, gemm_clip_edges): every tile of the operand, its M /
  // N and K edges included, through one clipped buffer descriptor (dsl/copy/
  // buffer_clipped_tile.hpp): rows past the tensor read 0 through num_records, runs of columns
  // past it through an offset past num_records, so the K edge sums exact zeros. No masked path
  // and no branch: a k-contiguous operand's tile moves along its columns, so each K tile picks
  // its lanes' offsets again (one v_cndmask per run; a uniform branch to skip that on the
  // interior K tiles let LLVM sink a load common to both sides below the WMMAs: 120.8 -> 71.9
  // TFLOP/s modeled at 4096^3). With s.k_whole (K a multiple of bk, gemm_clip_edges) a
  // k-contiguous tile lies wholly inside K or wholly past it: no per-run choice, and the operand
  // is walked along K through one descriptor made before the K loop (dsl/copy/
  // buffer_clipped_walk.hpp): a K tile's column offset is the loads' scalar offset (soffset),
  // 2^31 for a tile past K, so each K tile costs a scalar add, compare and select that A and B
  // share (a clipped descriptor per K tile, whole_or_none, cost 10 SALU per K tile in the f16
  // loop). Not in the MX kernel: with the walk bench_gemm modeled it slower (4096^3 123.0 /
  // 123.8 -> 120.1 / 120.6 TFLOP/s hip / llvm, although 16 VGPRs fewer; docs/kernels.md).
  auto load_clipped_a(const dsl::Int32& kt) const {
    return load_clipped<block_m, L::a_k_contig>(copy_a(), walk_a_, a_, bm_, kt);
  }
  auto load_clipped_b(const dsl::Int32& kt) const {
    return load_clipped<block_n, L::b_k_contig>(copy_b(), walk_b_, bt_, bn_, kt);
  }
  // K tile kt of an operand whose `Rows` rows (M or N) start at tile `tile`: through its walk
  // when it has one, else a clipped tile (k-contiguous: rows x bk; else bk x rows, transposed).
  template <int Rows, bool KContig, class Copy, class Walk, class T>
  auto load_clipped(const Copy& copy, const std::optional<Walk>& walk,
                    const dsl::GlobalTensor<T>& t, const dsl::Int32& tile,
                    const dsl::Int32& kt) const {
    if constexpr (KContig)
      return walk ? copy.load(walk->tile(kt))
                  : copy.load(dsl::buffer_clipped_tile<Rows, bk>(t, tile, kt, k_cols_));
    else
      return copy.load(dsl::buffer_clipped_tile<bk, Rows>(t.transposed(), kt, tile));
  }
  // Odd K (packed int4): the high nibble of the last byte of every k run lies past K and may
  // hold anything; a's is cleared on the way into LDS, so that nibble's products with b's
  // (whatever b holds there) are 0 and the integer sums stay exact.
  auto clear_past_k(const dsl::Int32& kt) const {
    using namespace tw::dsl;
    return [this, kt](const auto& x, const Int32&, const Int32& c) { // x: Scalar<AS>, an int
      using S = std::remove_cvref_t<decltype(x)>;
      const Bool last_odd = (kt * bk + c) * 2 + 1 == cast<i32>(k_);
      return x & select(last_odd, S(0x0F), S(-1));
    };
  }

  const GemmKernelSpec& s_;
  const Lds& lds_;
  dsl::GlobalTensor<AS> a_;
  dsl::GlobalTensor<BS> bt_;
  dsl::Int32 bm_, bn_;
  dsl::Int64 k_;
  dsl::ClippedCols k_cols_;
  std::optional<dsl::BufferClippedWalk<AS, block_m, bk>> walk_a_;
  std::optional<dsl::BufferClippedWalk<BS, block_n, bk>> walk_b_;
};

} // namespace tw::kernels::gemm_kernel
