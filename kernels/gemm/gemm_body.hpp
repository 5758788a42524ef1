#pragma once
// The GEMM composition's kernel body (gemm_kernel.hpp), written only with the DSL, as a template
// of the block tile: build_gemm_for_tile<T>(spec) is instantiated once per GemmTile, each in its
// own translation unit (gemm_body_<tile>.cpp), so the configurations compile in parallel.
#include <kernels/common/elem_dispatch.hpp>
#include <kernels/gemm/blocks/act_quant.hpp>
#include <kernels/gemm/blocks/grouped_problem.hpp>
#include <kernels/gemm/blocks/lora_block.hpp>
#include <kernels/gemm/blocks/mx_scales.hpp>
#include <kernels/gemm/blocks/operand_copy.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/copy/buffer_clipped_walk.hpp>
#include <dsl/copy/buffer_global_tile.hpp>
#include <dsl/dsl.hpp>
#include <dsl/handles/convert.hpp>
#include <dsl/mma/accumulator_convert.hpp>
#include <dsl/mma/accumulator_visit.hpp>
#include <dsl/mma/fragment_pipeline.hpp>
#include <dsl/ops/pipeline_unrolled.hpp>
#include <dsl/tensor/clamped_load.hpp>
#include <dsl/tensor/store_view.hpp>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>

namespace tw::kernels::gemm_kernel {

namespace body_detail {

using namespace tw::dsl;

// Calls fn(Tag<E>{}) with the DSL element type of a dtype the composition can hold.
template <class F>
void with_elem(DType t, const char* what, F&& fn) {
  with_elem_among<f16, bf16, f32, i32>(t, std::forward<F>(fn), [what](DType d) {
    return std::string("gemm kernel: ") + what + " dtype " + std::string(dtype_name(d)) +
           " is not supported here";
  });
}

// How an operand stage (k-contiguous rows of bk elements, 64 bytes) avoids LDS bank conflicts.
// A WMMA operand read has lane l take row l % 16 at one 16-byte chunk (or 8 bytes of it) and
// the 128-byte bank window serves 8 such rows at once; rows of 64 bytes put rows r and r + 2 on
// the same banks. Swizzled: the chunk index XOR (row / 2) % 4 sends the 8 rows to 8 distinct
// 16-byte bank groups, with no extra bytes (the 128 x 128 config's stages fit in 32 KiB: 4
// workgroups of 4 waves per WGP). Padded (16 bytes a row, 40 KiB: 3 workgroups) does the same
// by shifting each row 20 banks.
template <class E, int bk, bool swizzled>
constexpr auto operand_bank_spread() {
  static_assert(bk * E::bits == 64 * 8, "operand_bank_spread: a stage row is 64 bytes");
  constexpr int chunk_elems = 16 / elem_bytes<E>(); // 2^base: elements of a 16-byte chunk
  constexpr int base = chunk_elems == 16 ? 4 : chunk_elems == 8 ? 3 : 2;
  static_assert((1 << base) == chunk_elems, "operand_bank_spread: 1-, 2- or 4-byte elements");
  if constexpr (swizzled) // row bits start at log2(bk) = base + 2: (row / 2) is base + 3
    return swizzle(2, base, 3);
  else
    return pad(chunk_elems);
}

// BGlobal: the element type of b in global memory when it differs from the atom's (W8A16:
// int8 weights converted to f16 / bf16 in the prologue, on their way into LDS).
// AGlobal: the activation's element type when a is quantized in the prologue.
// MX: e8m0 block scales staged (decoded to f32) in LDS next to each operand stage.
template <GemmTile T, class Atom, bool AKContig, bool BKContig, class BGlobal = void,
          class AGlobal = void, bool MX = false>
ir::Kernel build_body(const GemmKernelSpec& s) {
  using Lanes = MmaAtomLanes<Atom>;
  using AE = typename Lanes::a_elem; // what the atom reads
  using BE = typename Lanes::b_elem;
  // What global memory and LDS hold: fp8 codes move as i8 (the DSL has no fp8 constants for
  // the zeros of masked loads) and the MMA reads the LDS bytes as fp8 tiles.
  constexpr bool quant = !std::is_void_v<AGlobal>;
  // Packed int4 (iu4 atom): a and b move as their bytes (two k values each, like fp8 codes);
  // K tiles, leading strides and the operand tensors count bytes, K itself counts nibbles.
  constexpr bool packed = Lanes::packed_int4;
  using AL = std::conditional_t<std::is_void_v<AGlobal> && AE::bits == 8, i8, AE>; // a in LDS
  using AS = std::conditional_t<std::is_void_v<AGlobal>, AL, AGlobal>; // a in global memory
  using BL = std::conditional_t<BE::bits == 8, i8, BE>;                // b in LDS
  using BS = std::conditional_t<std::is_void_v<BGlobal>, BL, BGlobal>; // b in global memory
  constexpr int bk = AE::bits == 8 ? 64 : 32;
  // The block tile (gemm_config.hpp): waves_m x waves_n waves of 16 x 16 atoms.
  constexpr GemmTileShape shape = gemm_tile_shape(T);
  constexpr int block_m = shape.m, block_n = shape.n, threads = shape.threads();
  constexpr auto mma = make_tiled_mma(
      Atom{}, wave_layout<shape.waves_m, shape.waves_n>,
      repeat<block_m / shape.waves_m / Lanes::M, block_n / shape.waves_n / Lanes::N>);
  static_assert(mma.tile_m == block_m && mma.tile_n == block_n && mma.threads == threads);
  // The lanes' operand reads spread over the LDS banks (operand_bank_spread below). The
  // quantizing kernels keep padded rows: their LoRA block views the stages in the activation
  // dtype, which a swizzle counted in 8-bit elements does not carry over to.
  constexpr auto plan_ab =
      lds_plan(lds_buffer<AL>("sA", block_m, bk, stages(2), operand_bank_spread<AL, bk, !quant>()),
               lds_buffer<BL>("sB", block_n, bk, stages(2), operand_bank_spread<BL, bk, !quant>()));
  // The quantizing prologue adds a row of s_m and one of 1 / s_m for the block's rows; MX adds
  // per stage the decoded scales of the tile's rows of a and columns of b, one row per K block.
  constexpr auto plan = [&] {
    if constexpr (quant)
      return lds_plan(plan_ab.buffers[0].spec, plan_ab.buffers[1].spec,
                      lds_buffer<f32>("sQ", 2, block_m));
    else if constexpr (MX)
      return lds_plan(plan_ab.buffers[0].spec, plan_ab.buffers[1].spec,
                      mx_scale_buffers<bk, block_m, block_n>()[0],
                      mx_scale_buffers<bk, block_m, block_n>()[1]);
    else
      return plan_ab;
  }();
  // k-contiguous operands: bk-wide rows of the tile; m/n-contiguous operands: the transposed
  // tile (bk rows of the block's extent), stored transposed in LDS. 128 bits per access where
  // the threads fit the tile (blocks/operand_copy.hpp).
  [[maybe_unused]] constexpr auto copy_ka = operand_copy<AS, threads, block_m, bk>();
  [[maybe_unused]] constexpr auto copy_kb = operand_copy<BS, threads, block_n, bk>();
  [[maybe_unused]] constexpr auto copy_ta = operand_copy<AS, threads, bk, block_m>();
  [[maybe_unused]] constexpr auto copy_tb = operand_copy<BS, threads, bk, block_n>();

  if (gemm_tile_config(s).k_storage != bk)
    throw std::logic_error("gemm kernel: gemm_tile_config disagrees with the body's K tile");
  KernelBuilder kb(s.name(), {threads, 1, 1});
  const int a_align = s.a_vec_aligned ? 16 : elem_bytes<AS>();
  const int b_align = s.b_vec_aligned ? 16 : elem_bytes<BS>();
  auto [Ap, Bp, Op, Cp, BiasP, SAp, SBp, SOp, M, N, K, lda, ldb, ldo, ldc, ld_sa, ld_sb, alpha,
        beta, LTp, LUp, R, ld_lt, ld_lu, lora_scale, Groups, group_count, group_search_steps, Wp,
        split_count, k_tiles_per_split] =
      kb.args(gptr<AS>("a", a_align), gptr<BS>("b", b_align), gptr<u8>("out"), gptr<u8>("c"),
              gptr<u8>("bias"), gptr<f32>("scale_a"), gptr<f32>("scale_b"), gptr<f32>("scale_out"),
              scalar<i64>("m"), scalar<i64>("n"), scalar<i64>("k"), scalar<i64>("lda"),
              scalar<i64>("ldb"), scalar<i64>("ldo"), scalar<i64>("ldc"), scalar<i64>("ld_scale_a"),
              scalar<i64>("ld_scale_b"), scalar<f32>("alpha"), scalar<f32>("beta"),
              gptr<u8>("lora_t"), gptr<u8>("lora_up"), scalar<i64>("lora_rank"),
              scalar<i64>("ld_lora_t"), scalar<i64>("ld_lora_up"), scalar<f32>("lora_scale"),
              gptr<i64>("groups"), scalar<i64>("group_count"), scalar<i64>("group_search_steps"),
              gptr<u8>("workspace"), scalar<i64>("split_k"), scalar<i64>("k_tiles_per_split"));
  if (s.split_k != SplitKPass::none && s.grouped)
    throw std::invalid_argument("gemm kernel: split-K does not combine with the grouped mode");
  Int32 bm = block_id(ir::Dim::x), bn = block_id(ir::Dim::y);
  // ---- grouped mode: this workgroup's problem from the table (blocks/grouped_problem.hpp) ----
  if (s.grouped) {
    const GroupedProblem g = grouped_problem(Groups, group_count, group_search_steps, bm, block_n);
    Ap = GlobalPtr<AS>::from_address(g.a, a_align);
    Bp = GlobalPtr<BS>::from_address(g.b, b_align);
    Op = GlobalPtr<u8>::from_address(g.out);
    BiasP = GlobalPtr<u8>::from_address(g.bias);
    SAp = GlobalPtr<f32>::from_address(g.scale_a);
    SBp = GlobalPtr<f32>::from_address(g.scale_b);
    std::tie(M, N, K, lda, ldb, ldo) = std::tie(g.m, g.n, g.k, g.lda, g.ldb, g.ldo);
    std::tie(bm, bn) = std::tie(g.tile_m, g.tile_n);
  }
  const Int64 k_storage = packed ? (K + Int64(1)) / Int64(2) : K; // bytes of a k run
  const GlobalTensor<AS> a = make_tensor(Ap, AKContig ? Major::row : Major::col, M, k_storage, lda);
  // B is K x N; the MMA wants it n-major (N x K).
  const GlobalTensor<BS> bt =
      make_tensor(Bp, BKContig ? Major::col : Major::row, k_storage, N, ldb).transposed();
  auto lds = use_lds<plan>(kb);

  // The operand tiles of K tile kt: buffer loads on the whole-tile path (32-bit offsets, no
  // 64-bit address adds in the K loop). Every kernel takes them: the MX, activation-quantizing
  // and packed int4 kernels once kept masked GlobalTile copies, whose 64-bit row addresses
  // spilled at 256 VGPRs (8-208 B of scratch; with clipped operands none, docs/kernels.md).
  const auto tile_of = [&]<int R, int C, class E>(const GlobalTensor<E>& t, const Int32& r,
                                                  const Int32& c) {
    return buffer_local_tile<R, C>(t, r, c);
  };
  const auto tile_a = [&](Int32 kt) {
    if constexpr (AKContig)
      return tile_of.template operator()<block_m, bk>(a, bm, kt);
    else
      return tile_of.template operator()<bk, block_m>(a.transposed(), kt, bm);
  };
  const auto tile_b = [&](Int32 kt) {
    if constexpr (BKContig)
      return tile_of.template operator()<block_n, bk>(bt, bn, kt);
    else
      return tile_of.template operator()<bk, block_n>(bt.transposed(), kt, bn);
  };
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
  const ClippedCols k_cols = s.k_whole ? ClippedCols::whole_or_none : ClippedCols::per_run;
  std::optional<BufferClippedWalk<AS, block_m, bk>> walk_a;
  std::optional<BufferClippedWalk<BS, block_n, bk>> walk_b;
  if constexpr (AKContig && !MX)
    if (s.k_whole && s.a_clipped)
      walk_a.emplace(buffer_clipped_walk<block_m, bk>(a, bm));
  if constexpr (BKContig && !MX)
    if (s.k_whole && s.b_clipped)
      walk_b.emplace(buffer_clipped_walk<block_n, bk>(bt, bn));
  if ((s.a_clipped && !s.a_vec_aligned) || (s.b_clipped && !s.b_vec_aligned))
    throw std::invalid_argument("gemm kernel: a_clipped / b_clipped need the operand's 16-byte "
                                "alignment (a_vec_aligned / b_vec_aligned)");
  if (s.k_whole && !((s.a_clipped && AKContig) || (s.b_clipped && BKContig)))
    throw std::invalid_argument("gemm kernel: k_whole needs a clipped k-contiguous operand "
                                "(a_clipped with a row-major, or b_clipped with b col-major)");
  const auto& copy_a = [&]() -> const auto& {
    if constexpr (AKContig)
      return copy_ka;
    else
      return copy_ta;
  }
  ();
  const auto& copy_b = [&]() -> const auto& {
    if constexpr (BKContig)
      return copy_kb;
    else
      return copy_tb;
  }
  ();
  const auto load_clipped_a = [&](Int32 kt) {
    if constexpr (AKContig)
      return walk_a ? copy_a.load(walk_a->tile(kt))
                    : copy_a.load(buffer_clipped_tile<block_m, bk>(a, bm, kt, k_cols));
    else
      return copy_a.load(buffer_clipped_tile<bk, block_m>(a.transposed(), kt, bm));
  };
  const auto load_clipped_b = [&](Int32 kt) {
    if constexpr (BKContig)
      return walk_b ? copy_b.load(walk_b->tile(kt))
                    : copy_b.load(buffer_clipped_tile<block_n, bk>(bt, bn, kt, k_cols));
    else
      return copy_b.load(buffer_clipped_tile<bk, block_n>(bt.transposed(), kt, bn));
  };
  // ---- prologue block: the activation scale of each of the block's rows (blocks/act_quant.hpp)
  const auto inv_scale = [&](const Int32& r) {
    if constexpr (quant)
      return lds.template tile<"sQ">().load(Int32(1), r);
    else
      return Float32(1.0);
  };
  if constexpr (quant)
    activation_scales<AE>(s.act_quant, s.write_scale_out, lds.template tile<"sQ">(), Ap, SAp, SOp,
                          M, K, lda, bm, bn, s.a_vec_aligned, threads);
  // The K tiles of this workgroup: all of them, or (split-K partial pass) the range block_id(z)
  // of k_tiles_per_split tiles (the last range may be shorter).
  Int32 k_tiles = cast<i32>(ceil_div(k_storage, Int64(bk)));
  Int32 k_tile_begin = Int32(0);
  if (s.split_k == SplitKPass::partial) {
    const Int32 per = cast<i32>(k_tiles_per_split);
    k_tile_begin = block_id(ir::Dim::z) * per;
    k_tiles = max(min(per, k_tiles - k_tile_begin), Int32(0));
  }
  // Buffer copies: A and B of one K tile under one whole-tile branch, so their 128-bit loads
  // issue back to back (two branches let LLVM wait for A's loads before issuing B's). kt counts
  // from the workgroup's first K tile; the tuple carries the absolute K tile.
  const bool k_range = s.split_k == SplitKPass::partial;
  const auto fetch = [&](Int32 k_step) {
    // (No add of a zero K range start: at 256 VGPRs even that moved the MX, fused and iu4
    // kernels' spills on gfx1201.)
    const Int32 kt = k_range ? k_tile_begin + k_step : k_step;
    if (s.a_clipped && s.b_clipped) // all 8 loads in one straight block, edges included
      return std::tuple{load_clipped_a(kt), load_clipped_b(kt), kt};
    if (s.a_clipped)
      return std::tuple{load_clipped_a(kt), copy_b.load(tile_b(kt)), kt};
    if (s.b_clipped)
      return std::tuple{copy_a.load(tile_a(kt)), load_clipped_b(kt), kt};
    const auto [regs_a, regs_b] = load_both_whole_or_masked(copy_a, tile_a(kt), copy_b, tile_b(kt));
    return std::tuple{regs_a, regs_b, kt};
  };
  // Odd K (packed int4): the high nibble of the last byte of every k run lies past K and may
  // hold anything; a's is cleared on the way into LDS, so that nibble's products with b's
  // (whatever b holds there) are 0 and the integer sums stay exact.
  const auto clear_past_k = [&](const Int32& kt) {
    return [&, kt](const auto& x, const Int32&, const Int32& c) { // x: Scalar<AS>, an int
      using S = std::remove_cvref_t<decltype(x)>;
      const Bool last_odd = (kt * bk + c) * 2 + 1 == cast<i32>(K);
      return x & select(last_odd, S(0x0F), S(-1));
    };
  };
  const auto commit = [&](const auto& regs, Int32 stage) {
    const auto& [regs_a, regs_b, kt] = regs;
    if constexpr (packed) {
      if (s.k_whole) { // K even (gemm_k_whole): no nibble past K to clear, no branch
        copy_ka.store(regs_a, lds.template tile<"sA">(stage));
        copy_kb.store(regs_b, lds.template tile<"sB">(stage));
        return;
      }
      // Only the K tile holding the byte of nibble K - 1 (odd K) pays for the masking.
      const Int32 k32 = cast<i32>(K);
      const Bool odd_tail = (k32 & 1) == 1 && ((k32 - 1) / 2) / bk == kt;
      if_(
          odd_tail,
          [&] {
            copy_ka.store(regs_a,
                          mapping_store_view<AS>(lds.template tile<"sA">(stage), clear_past_k(kt)));
          },
          [&] { copy_ka.store(regs_a, lds.template tile<"sA">(stage)); });
      copy_kb.store(regs_b, lds.template tile<"sB">(stage));
      return;
    }
    if constexpr (quant) // activation quantization: q = sat(rne(x * (1 / s_m)))
      copy_ka.store(regs_a, mapping_store_view<AS>(
                                lds.template tile<"sA">(stage),
                                [&](const Scalar<AS>& x, const Int32& r, const Int32&) {
                                  return quantize_activation<AE>(cast<f32>(x) * inv_scale(r));
                                }));
    else if constexpr (AKContig)
      copy_ka.store(regs_a, lds.template tile<"sA">(stage));
    else
      copy_ta.store(regs_a, transposing_store_view<AS>(lds.template tile<"sA">(stage)));
    if constexpr (!std::same_as<BS, BL>) // prologue conversion (W8A16)
      copy_kb.store(regs_b, converting_store_view<BS>(lds.template tile<"sB">(stage)));
    else if constexpr (BKContig)
      copy_kb.store(regs_b, lds.template tile<"sB">(stage));
    else
      copy_tb.store(regs_b, transposing_store_view<BS>(lds.template tile<"sB">(stage)));
  };
  using CFrag = typename decltype(mma)::CFrag;
  // One LDS stage's WMMAs: the next k step's operand fragments read ahead of the current
  // WMMAs (dsl/mma/fragment_pipeline.hpp), except in W8A16 and the activation-quantizing
  // kernels, where bench_gemm modeled the read-ahead slower (W8A16 4096^3 llvm 90.6 -> 87.5
  // TFLOP/s, its decode shapes and the fused kernels' by up to 1%; docs/kernels.md). Packed
  // int4 takes it too.
  constexpr bool read_ahead = std::is_void_v<BGlobal> && !quant;
  // Only with both operands clipped: with masked copies (two copy paths live across the loop)
  // the two fragment sets spilled (f16 t128x128w4: 16 B of scratch on both backends).
  const bool ahead = read_ahead && s.a_clipped && s.b_clipped;
  const auto mac = [&](const auto& fa, const auto& fb, CFrag& acc) {
    const auto run = [&](const ir::MmaMods& mods) {
      if (ahead) {
        if constexpr (read_ahead)
          gemm_read_ahead(mma, fa, fb, acc, mods);
      } else {
        // The quantizing kernels' next-stage buffer loads (traced by the pipeline before this
        // stage's WMMAs) stay above them: without the fence the schedulers sank them below the
        // WMMAs (fewer live VGPRs, their latency exposed; sched_barrier: no machine code).
        if constexpr (quant)
          sched_barrier(ir::sched_kind::salu | ir::sched_kind::valu);
        gemm_with_mods(mma, fa, fb, acc, mods);
      }
    };
    if constexpr (packed) // int4 or uint4 nibbles, each operand by its dtype
      run(ir::MmaMods{.a_signed = s.a == DType::int4, .b_signed = s.b == DType::int4});
    else if constexpr (std::same_as<AE, i8>) // signed int8 x int8
      run(ir::MmaMods{.a_signed = true, .b_signed = true});
    else
      run(ir::MmaMods{});
  };
  // ---- split-K: the workspace of partial accumulators in the fragments' own layout: per split
  // and output tile a block of block_m * block_n values; in it, chunk q (4 values) of atom a of
  // thread t at ((a * chunks + q) * threads + t) * 4 (128-bit accesses, the lanes of a wave side
  // by side: coalesced, no masks, one address per lane).
  using AccE = typename CFrag::elem_type;
  using AtomVec = typename CFrag::vec_type;
  constexpr int atom_values = CFrag::values_per_tile, chunks = atom_values / 4;
  static_assert(atom_values % 4 == 0, "split-K: whole 128-bit chunks of accumulator values");
  const GlobalPtr<AccE> ws(Wp.ir(), 16);
  // Calls fn(i, j, q, offset): every chunk of the lane's accumulator and its element offset in
  // the block of split `split`.
  const auto for_each_chunk = [&](const Int32& split, auto&& fn) {
    const Int64 tiles_m = ceil_div(M, Int64(block_m)), tiles_n = ceil_div(N, Int64(block_n));
    const Int64 tile = (cast<i64>(split) * tiles_m + cast<i64>(bm)) * tiles_n + cast<i64>(bn);
    const Int64 base = tile * Int64(block_m * block_n) + cast<i64>(thread_id()) * Int64(4);
    for (int i = 0; i < mma.repeat_m; ++i)
      for (int j = 0; j < mma.repeat_n; ++j)
        for (int q = 0; q < chunks; ++q)
          fn(i, j, q, base + Int64(int64_t{(i * mma.repeat_n + j) * chunks + q} * threads * 4));
  };
  CFrag acc;
  if (s.split_k == SplitKPass::reduce) {
    // The partials of the tile summed in split order 0, 1, ... (deterministic).
    const auto add_split = [&](Int32 split, CFrag sum) {
      std::array<std::array<Scalar<AccE>, atom_values>, mma.repeat_m * mma.repeat_n> e;
      for_each_chunk(split, [&](int i, int j, int q, const Int64& at) {
        const Vec<AccE, 4> part = ws.template load_vec<4>(at, 16);
        for (int v = 0; v < 4; ++v)
          e[std::size_t(i * mma.repeat_n + j)][std::size_t(q * 4 + v)] =
              sum.at(i, j)[q * 4 + v] + part[v];
      });
      for (int i = 0; i < mma.repeat_m; ++i)
        for (int j = 0; j < mma.repeat_n; ++j)
          sum.at(i, j) = AtomVec::from(e[std::size_t(i * mma.repeat_n + j)]);
      return carry(sum);
    };
    acc = std::get<0>(for_range(Int32(0), cast<i32>(split_count), Int32(1),
                                carry(mma.make_accumulator(0)), add_split));
  } else if constexpr (!MX) {
    const auto on_stage = [&](Int32 stage, CFrag acc) {
      mac(lds_view<AE, block_m, bk>(lds.template tile<"sA">(stage)),
          lds_view<BE, block_n, bk>(lds.template tile<"sB">(stage)), acc);
      return acc;
    };
    // ---- main-loop block: two K tiles per loop iteration where the fragments are read ahead
    // (dsl/ops/pipeline_unrolled.hpp: constant LDS stages, their offsets immediate; odd K tile
    // counts compute one more tile, past K, of zeros). Not for a split-K range: the tile after
    // it is the next range's data, not zeros.
    if (ahead && !k_range)
      acc = pipeline_unrolled<2>(k_tiles, mma.make_accumulator(0), fetch, commit, on_stage);
    else
      acc = pipeline<2>(k_tiles, mma.make_accumulator(0), fetch, commit, on_stage);
  } else {
    // ---- main-loop block: MX block scales (blocks/mx_scales.hpp) ----
    const auto e8m0 = [&](const GlobalPtr<f32>& p, const Int64& rows, const Int64& ld) {
      return make_tensor(GlobalPtr<u8>(p.ir(), 1), Major::row, rows, ceil_div(K, Int64(mx_block_k)),
                         ld);
    };
    acc = mx_main_loop<bk>(
        mma, lds, k_tiles, k_range ? std::optional<Int32>(k_tile_begin) : std::nullopt,
        e8m0(SAp, M, ld_sa), e8m0(SBp, N, ld_sb), bm, bn, fetch, commit,
        [&](const Int32& st) { return lds_view<AE, block_m, bk>(lds.template tile<"sA">(st)); },
        [&](const Int32& st) { return lds_view<BE, block_n, bk>(lds.template tile<"sB">(st)); });
  }

  if (s.split_k == SplitKPass::partial) { // the raw accumulator; the reduce pass does the rest
    for_each_chunk(block_id(ir::Dim::z), [&](int i, int j, int q, const Int64& at) {
      std::array<Scalar<AccE>, 4> e;
      for (int v = 0; v < 4; ++v)
        e[std::size_t(v)] = acc.at(i, j)[q * 4 + v];
      ws.template store_vec<4>(at, Vec<AccE, 4>::from(e), 16);
    });
    return kb.finish();
  }

  // ---- epilogue blocks: scales, alpha, beta * C, LoRA, bias, conversion to the output dtype ----
  using LE = std::conditional_t<quant, AGlobal, f16>; // the activation dtype
  constexpr auto lora_mma = lora_tiled_mma<LE, T>();
  if (s.lora && !quant)
    throw std::invalid_argument("gemm kernel: LoRA is a block of the quantized-activation "
                                "kernels (scaled_mm_fused_quant, int8_linear_fused)");
  const auto tensorwise = [](const GlobalPtr<f32>& p) { return p.load(Int64(0)); };
  std::optional<Float32> sa_t, sb_t;
  if (s.scale_a == ScaleKind::tensorwise)
    sa_t = tensorwise(SAp);
  if (s.scale_b == ScaleKind::tensorwise)
    sb_t = tensorwise(SBp);
  const auto sa_rows = local_tile<block_m, 1>(make_tensor(SAp, Major::row, M, Int64(1)), bm, 0);
  const auto sb_cols = local_tile<1, block_n>(make_tensor(SBp, Major::row, Int64(1), N), 0, bn);
  with_elem(s.out, "out", [&]<class O>(Tag<O>) {
    const auto typed = [](const GlobalPtr<u8>& p) { return GlobalPtr<O>(p.ir(), elem_bytes<O>()); };
    // The output tile: clipped (s.out_clipped, gemm_out_clips: stores past M / N dropped by the
    // buffer range check, no branch per value) or masked.
    const auto out_tensor = make_tensor(typed(Op), Major::row, M, N, ldo);
    std::optional<GlobalTile<O, block_m, block_n>> out_masked;
    std::optional<BufferClippedTile<O, block_m, block_n>> out_clipped;
    if (s.out_clipped)
      out_clipped.emplace(buffer_clipped_tile<block_m, block_n>(out_tensor, bm, bn));
    else
      out_masked.emplace(local_tile<block_m, block_n>(out_tensor, bm, bn));
    const auto store_out = [&](const Int32& r, const Int32& c, const Scalar<O>& v) {
      if (out_clipped)
        out_clipped->store(r, c, v);
      else
        out_masked->store(r, c, v);
    };
    const auto c_in =
        local_tile<block_m, block_n>(make_tensor(typed(Cp), Major::row, M, N, ldc), bm, bn);
    const auto bias =
        local_tile<1, block_n>(make_tensor(typed(BiasP), Major::row, Int64(1), N), 0, bn);
    if constexpr (std::same_as<O, i32>) {
      for_each_accumulator(mma, acc, [&](const auto& v, const Int32& r, const Int32& c) {
        store_out(r, c, cast<i32>(v)); // exact integer results
      });
    } else {
      // The main product's f32 value before LoRA and bias: dequantized and scaled. With LoRA it
      // feeds the LoRA loop's accumulator, so LLVM sinks its arithmetic below the loads: masked
      // per-value scale loads (a branch each) then keep every loaded value live (600 B of
      // scratch); load_clamped gives one unmasked load per distinct row / column. Without LoRA
      // the masked loads stay (load_clamped there moved scaled_mm_fused_quant from 0 to 8 B).
      const auto main_term = [&](const auto& v, const Int32& r, const Int32& c) {
        Float32 x = cast<f32>(v);
        if constexpr (quant)
          x = x * lds.template tile<"sQ">().load(Int32(0), r); // dequantize with s_m
        if (sa_t)
          x = x * *sa_t;
        else if (s.scale_a == ScaleKind::rowwise)
          x = x * (s.lora ? load_clamped(sa_rows, r, Int32(0)) : sa_rows.load(r, Int32(0)));
        if (sb_t)
          x = x * *sb_t;
        else if (s.scale_b == ScaleKind::rowwise)
          x = x * (s.lora ? load_clamped(sb_cols, Int32(0), c) : sb_cols.load(Int32(0), c));
        if (s.alpha_beta)
          x = x * alpha;
        if (s.has_c)
          x = fma(beta, cast<f32>(c_in.load(r, c)), x);
        return x;
      };
      const auto store = [&](Float32 x, const Int32& r, const Int32& c) {
        if (s.has_bias)
          x = x + cast<f32>(bias.load(Int32(0), c));
        store_out(r, c, cast<O>(x));
      };
      if (s.lora) {
        // ---- LoRA block (blocks/lora_block.hpp) on the operand stages of the finished main
        // loop. x + lora_scale * t @ up^T = d * (x / d + t @ up^T), d = lora_scale: the LoRA
        // product accumulates onto x / d in the registers of the main accumulator (dead once
        // converted), so the two 128-value accumulators are never live together (they were:
        // 764-804 B of scratch). lora_scale = 0 runs no rank step and d = 1 (out = x). The
        // division and the product by d round twice in f32 (2^-24 relative each). A nonzero
        // |lora_scale| below about |x| * 2^-128 overflows x / d (docs/kernels.md).
        const Bool no_lora = lora_scale == Float32(0.0f);
        const Float32 d = select(no_lora, Float32(1.0f), lora_scale);
        auto x_over_d = convert_accumulator(
            mma, acc, lora_mma,
            [&](const auto& v, const Int32& r, const Int32& c) { return main_term(v, r, c) / d; });
        const int align = s.lora_vec_aligned ? 16 : elem_bytes<LE>();
        const auto sum = lora_block<T>(
            make_tensor(GlobalPtr<LE>(LTp.ir(), align), Major::row, M, R, ld_lt),
            make_tensor(GlobalPtr<LE>(LUp.ir(), align), Major::row, N, R, ld_lu),
            select(no_lora, Int64(0), R), bm, bn,
            [&](const Int32& st) {
              return lds_view<LE, block_m, lora_k_tile>(lds.template tile<"sA">(st));
            },
            [&](const Int32& st) {
              return lds_view<LE, block_n, lora_k_tile>(lds.template tile<"sB">(st));
            },
            std::move(x_over_d));
        for_each_accumulator(lora_mma, sum, [&](const Float32& v, const Int32& r, const Int32& c) {
          store(v * d, r, c);
        });
      } else {
        for_each_accumulator(mma, acc, [&](const auto& v, const Int32& r, const Int32& c) {
          store(main_term(v, r, c), r, c);
        });
      }
    }
  });
  return kb.finish();
}

template <GemmTile T, class Atom, class BGlobal = void>
ir::Kernel build_ordered(const GemmKernelSpec& s) {
  if (s.mx_block_scales && (s.act_quant != ActQuant::none || s.scale_a != ScaleKind::none ||
                            s.scale_b != ScaleKind::none || s.lora))
    throw std::invalid_argument("gemm kernel: MX block scales do not combine with activation "
                                "quantization, tensor/row scales or LoRA");
  if (s.act_quant != ActQuant::none) {
    if constexpr (std::is_void_v<BGlobal> && MmaAtomLanes<Atom>::a_elem::bits == 8 &&
                  !MmaAtomLanes<Atom>::packed_int4) {
      if (s.a_order != MatrixOrder::row_major || s.b_order != MatrixOrder::col_major)
        throw std::invalid_argument("gemm kernel: quantized activations must be k-contiguous");
      if (s.x == DType::bf16)
        return build_body<T, Atom, true, true, void, bf16>(s);
      return build_body<T, Atom, true, true, void, f16>(s);
    } else {
      throw std::invalid_argument("gemm kernel: activation quantization needs an 8-bit atom");
    }
  }
  if constexpr (!std::is_void_v<BGlobal>) {
    if (s.a_order != MatrixOrder::row_major || s.b_order != MatrixOrder::col_major)
      throw std::invalid_argument("gemm kernel: converted b operands must be k-contiguous");
    return build_body<T, Atom, true, true, BGlobal>(s);
  }
  const bool ak = s.a_order == MatrixOrder::row_major, bk = s.b_order == MatrixOrder::col_major;
  using AE = typename MmaAtomLanes<Atom>::a_elem;
  if (s.mx_block_scales) {
    if constexpr (std::is_void_v<BGlobal> && AE::bits == 8 && !MmaAtomLanes<Atom>::packed_int4 &&
                  !std::same_as<AE, i8>) {
      if (!ak || !bk)
        throw std::invalid_argument("gemm kernel: MX operands must be k-contiguous");
      return build_body<T, Atom, true, true, void, void, true>(s);
    } else {
      throw std::invalid_argument("gemm kernel: MX block scales need fp8 operands");
    }
  }
  if (ak && bk)
    return build_body<T, Atom, true, true>(s);
  if constexpr (AE::bits == 16) { // m/n-contiguous operands: f16 / bf16 GEMM only
    if (ak)
      return build_body<T, Atom, true, false>(s);
    if (bk)
      return build_body<T, Atom, false, true>(s);
    return build_body<T, Atom, false, false>(s);
  } else {
    throw std::invalid_argument("gemm kernel: 8-bit operands must be k-contiguous (a row-major, "
                                "b column-major)");
  }
}

} // namespace body_detail

// The kernel of `spec` with block tile T (spec.tile must be T).
template <GemmTile T>
ir::Kernel build_gemm_for_tile(const GemmKernelSpec& s) {
  using namespace body_detail;
  using enum DType;
  if (s.tile != T)
    throw std::logic_error("gemm kernel: build_gemm_for_tile called for another tile");
  if (s.a == f16 && s.b == f16)
    return build_ordered<T, atoms::wmma_f32_16x16x16_f16>(s);
  if (s.a == bf16 && s.b == bf16)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf16>(s);
  if (s.a == e4m3 && s.b == e4m3)
    return build_ordered<T, atoms::wmma_f32_16x16x16_fp8_fp8>(s);
  if (s.a == e4m3 && s.b == e5m2)
    return build_ordered<T, atoms::wmma_f32_16x16x16_fp8_bf8>(s);
  if (s.a == e5m2 && s.b == e4m3)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf8_fp8>(s);
  if (s.a == e5m2 && s.b == e5m2)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf8_bf8>(s);
  if (s.a == f16 && s.b == int8) // W8A16
    return build_ordered<T, atoms::wmma_f32_16x16x16_f16, i8>(s);
  if (s.a == bf16 && s.b == int8)
    return build_ordered<T, atoms::wmma_f32_16x16x16_bf16, i8>(s);
  if (s.a == int8 && s.b == int8)
    return build_ordered<T, atoms::wmma_i32_16x16x16_iu8>(s);
  if (is_packed_int4(s.a) && is_packed_int4(s.b)) // signedness per operand (WMMA modifiers)
    return build_ordered<T, atoms::wmma_i32_16x16x32_iu4>(s);
  throw std::invalid_argument("gemm kernel: no WMMA atom for a = " + std::string(dtype_name(s.a)) +
                              ", b = " + std::string(dtype_name(s.b)));
}

} // namespace tw::kernels::gemm_kernel
