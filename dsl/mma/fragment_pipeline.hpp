#pragma once
// gemm_read_ahead: C += A * B over whole LDS operand tiles (like the tile gemm of
// tiled_mma.hpp), with the operand fragments software-pipelined in registers. The WMMAs run in
// groups, one per A row tile and k step (repeat_n WMMAs that share one A fragment); the loads
// of the next group's fragments (its A row tile, and at a k step's last group the next k
// step's B fragments) are issued before the current group's WMMAs, so each group waits only
// for fragments loaded one group earlier (s_wait_dscnt with the next group's loads still in
// flight, no full LDS drain per group). Two fragment sets are live at a time (the current and
// the next): 2 A row tiles and, across a k step boundary, 2 sets of B fragments.
// The schedulers of both compilers move LDS loads down to their first use (fewer live
// registers); sched_barrier fences (no machine code) between the load block and the WMMA
// block of every group keep the order as written. Each operand's fragment loads use
// SteppedOperandTiles: one LDS address per run and k step, the row tiles at immediate
// offsets.
//   gemm_read_ahead(mma, lds_a_tile, lds_bt_tile, acc);             // f16 / bf16 / fp8
//   gemm_read_ahead(mma, lds_a_tile, lds_bt_tile, acc, int8_mods);  // with WMMA modifiers
#include <dsl/builder/ids.hpp>
#include <dsl/mma/fragment.hpp>
#include <dsl/mma/tiled_mma.hpp>

#include <optional>
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
  std::vector<ARows> a_rows;
  std::vector<BCols> b_cols;
  for (int ks = 0; ks < k_steps; ++ks) {
    const Int32 k0(ks * Lanes::k_storage);
    a_rows.emplace_back(a, wm * TM::wave_tile_m, k0, Lanes::M, false);
    b_cols.emplace_back(bt, k0, wn * TM::wave_tile_n, Lanes::N, true);
  }
  using AVec = typename ARows::vec;
  using BVec = typename BCols::vec;
  const auto load_b = [&](int ks) {
    std::array<BVec, rn> f;
    for (int j = 0; j < rn; ++j)
      f[j] = b_cols[ks].load(j);
    return f;
  };
  ir::OpBuilder& ops = KernelBuilder::current("gemm_read_ahead").ops();
  // What may cross the fences: scalar and vector ALU (address and loop arithmetic), not the
  // LDS loads and not the WMMAs.
  constexpr std::uint32_t movable = ir::sched_kind::salu | ir::sched_kind::valu;
  std::array<BVec, rn> b_cur = load_b(0);
  AVec a_cur = a_rows[0].load(0);
  for (int ks = 0; ks < k_steps; ++ks)
    for (int i = 0; i < rm; ++i) {
      // The next group's fragments, ahead of this group's WMMAs.
      std::optional<AVec> a_next;
      std::optional<std::array<BVec, rn>> b_next;
      if (i + 1 < rm) {
        a_next = a_rows[ks].load(i + 1);
      } else if (ks + 1 < k_steps) {
        b_next = load_b(ks + 1);
        a_next = a_rows[ks + 1].load(0);
      }
      sched_barrier(movable);
      for (int j = 0; j < rn; ++j)
        c.at(i, j) = typename FC::vec_type(
            ops.wmma(Lanes::mnemonic, detail::mma_input<Lanes>(a_cur),
                     detail::mma_input<Lanes>(b_cur[j]), c.at(i, j).ir(), mods));
      sched_barrier(movable);
      if (a_next)
        a_cur = *a_next;
      if (b_next)
        b_cur = *b_next;
    }
}

} // namespace tw::dsl
