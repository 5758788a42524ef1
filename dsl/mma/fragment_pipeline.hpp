#pragma once
// gemm_read_ahead: C += A * B over whole LDS operand tiles (like the tile gemm of
// tiled_mma.hpp), with the operand fragments software-pipelined in registers one k step
// ahead. A k step's fragments (its repeat_n B fragments and repeat_m A row tiles) are one
// set; the WMMAs of k step ks run while the set of ks + 1 loads:
//   load set 0
//   for each k step ks:  wait_lds<0>   (set ks has arrived: one s_wait_dscnt per k step)
//                        load set ks + 1 (if any)
//                        the repeat_m x repeat_n WMMAs of set ks (no wait between them)
// The wait comes before the next set's loads, so it counts no load of that set and holds
// however the compiler pairs loads (64-bit fragments into one ds_load_2addr): the WMMAs of a
// k step need no wait of their own (the compilers' waitcnt insertion adds none that the
// explicit wait covers). Two fragment sets are live at a time (f16 128 x 128 tile, 4 waves:
// 2 x 32 VGPRs).
// The schedulers of both compilers move LDS loads down to their first use (fewer live
// registers) and scalar instructions, waits included, up; sched_barrier fences (no machine
// code) between the load block and the WMMA block, and before each k step's wait, keep the
// order as written. Each operand's fragment loads use SteppedOperandTiles: one
// LDS address per run and k step, the row tiles at immediate offsets.
//   gemm_read_ahead(mma, lds_a_tile, lds_bt_tile, acc);             // f16 / bf16 / fp8
//   gemm_read_ahead(mma, lds_a_tile, lds_bt_tile, acc, int8_mods);  // with WMMA modifiers
#include <dsl/builder/ids.hpp>
#include <dsl/mma/fragment.hpp>
#include <dsl/mma/tiled_mma.hpp>
#include <dsl/ops/wait_counters.hpp>

#include <array>
#include <vector>

namespace tw::dsl {

template <TiledMmaType TM, TileView TA, TileView TB, MmaFragmentType FC>
void gemm_read_ahead(const TM&, const TA& a, const TB& bt, FC& c, const ir::MmaMods& mods = {}) {
  using Atom = typename TM::atom;
  using Lanes = typename TM::lanes;
  static_assert(std::same_as<FC, typename TM::CFrag>,
                "gemm_read_ahead: the accumulator does not fit the TiledMMA (make it with "
                "tiled_mma.make_accumulator)");
  static_assert(TA::rows == TM::tile_m && TB::rows == TM::tile_n,
                "gemm_read_ahead: A must be tile_m x BK and B (n-major) tile_n x BK");
  static_assert(TA::cols == TB::cols && TA::cols % TM::tile_k_storage == 0,
                "gemm_read_ahead: the A and B tiles must have the same K extent, a multiple of "
                "the atom's K");
  static_assert(std::same_as<typename TA::elem_type, typename TM::a_elem> &&
                    std::same_as<typename TB::elem_type, typename TM::b_elem>,
                "gemm_read_ahead: the tiles' element types are not the atom's operand types");
  constexpr int k_steps = TA::cols / TM::tile_k_storage, rm = TM::repeat_m, rn = TM::repeat_n;
  const auto [wm, wn] = TM::wave_coord();
  using ARows = SteppedOperandTiles<Atom, MmaOperand::A, TA>;
  using BCols = SteppedOperandTiles<Atom, MmaOperand::B, TB>;
  using AVec = typename ARows::vec;
  using BVec = typename BCols::vec;
  std::vector<ARows> a_rows;
  std::vector<BCols> b_cols;
  for (int ks = 0; ks < k_steps; ++ks) {
    const Int32 k0(ks * Lanes::k_storage);
    a_rows.emplace_back(a, wm * TM::wave_tile_m, k0, Lanes::M, false);
    b_cols.emplace_back(bt, k0, wn * TM::wave_tile_n, Lanes::N, true);
  }
  // What may cross the fences: scalar and vector ALU (address and loop arithmetic), not the
  // LDS loads and not the WMMAs.
  constexpr std::uint32_t movable = ir::sched_kind::salu | ir::sched_kind::valu;
  struct Set {
    std::array<BVec, rn> b;
    std::array<AVec, rm> a;
  };
  const auto load_set = [&](int ks) { // B's fragments first, then A's row tiles
    Set f;
    for (int j = 0; j < rn; ++j)
      f.b[j] = b_cols[ks].load(j);
    for (int i = 0; i < rm; ++i)
      f.a[i] = a_rows[ks].load(i);
    return f;
  };
  ir::OpBuilder& ops = KernelBuilder::current("gemm_read_ahead").ops();
  Set cur = load_set(0);
  for (int ks = 0; ks < k_steps; ++ks) {
    // Set ks is in registers (no later LDS access is counted). The wait is a scalar
    // instruction, and SALU may cross the other fences: fences that nothing crosses keep it
    // below the previous k step's WMMAs and above this k step's (at the last k step no LDS
    // load follows to hold it up).
    sched_barrier();
    wait_lds<0>();
    sched_barrier();
    Set next;
    if (ks + 1 < k_steps)
      next = load_set(ks + 1);
    sched_barrier(movable);
    for (int i = 0; i < rm; ++i)
      for (int j = 0; j < rn; ++j)
        c.at(i, j) = typename FC::vec_type(
            ops.wmma(Lanes::mnemonic, detail::mma_input<Lanes>(cur.a[i]),
                     detail::mma_input<Lanes>(cur.b[j]), c.at(i, j).ir(), mods));
    sched_barrier(movable);
    if (ks + 1 < k_steps)
      cur = next;
  }
}

} // namespace tw::dsl
