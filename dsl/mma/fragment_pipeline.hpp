#pragma once
// gemm_read_ahead: C += A * B over whole LDS operand tiles (like the tile gemm of
// tiled_mma.hpp), with the operand fragments software-pipelined in registers. The WMMAs run in
// groups per k step, each group the repeat_n WMMAs of each of its A row tiles: one row tile
// per group for 128-bit A fragments (f16 / bf16), two for 64-bit ones (fp8, int8, int4: the
// two row tiles' loads pair up into one ds_load_2addr). The loads of the next group's
// fragments (its A row tiles, and at a k step's last group the next k step's B fragments) are
// issued before the current group's WMMAs, so each group waits only for fragments loaded one
// group earlier (s_wait_dscnt with the next group's loads still in flight, no full LDS drain
// per group). Two fragment sets are live at a time (the current and the next): 2 sets of A
// row tiles and, across a k step boundary, 2 sets of B fragments.
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
  using AVec = typename SteppedOperandTiles<Atom, MmaOperand::A, TA>::vec;
  // A row tiles per group: 128 bits of A fragments.
  constexpr int a_bits = AVec::size * TA::elem_type::bits;
  constexpr int rows = a_bits >= 128 || rm % (128 / a_bits) != 0 ? 1 : 128 / a_bits;
  constexpr int groups = rm / rows;
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
  using BVec = typename BCols::vec;
  // What may cross the fences: scalar and vector ALU (address and loop arithmetic), not the
  // LDS loads and not the WMMAs.
  constexpr std::uint32_t movable = ir::sched_kind::salu | ir::sched_kind::valu;
  const auto load_b = [&](int ks) {
    std::array<BVec, rn> f;
    for (int j = 0; j < rn; ++j)
      f[j] = b_cols[ks].load(j);
    return f;
  };
  const auto load_a = [&](int ks, int g) {
    std::array<AVec, rows> f;
    for (int r = 0; r < rows; ++r)
      f[r] = a_rows[ks].load(g * rows + r);
    return f;
  };
  ir::OpBuilder& ops = KernelBuilder::current("gemm_read_ahead").ops();
  std::array<BVec, rn> b_cur = load_b(0);
  // B's fragments before A's first row tile: LDS loads return in order, so the first group
  // waits once (for its A row tile) instead of once per B fragment.
  sched_barrier(movable);
  std::array<AVec, rows> a_cur = load_a(0, 0);
  for (int ks = 0; ks < k_steps; ++ks)
    for (int g = 0; g < groups; ++g) {
      // The next group's fragments, ahead of this group's WMMAs.
      std::optional<std::array<AVec, rows>> a_next;
      std::optional<std::array<BVec, rn>> b_next;
      if (g + 1 < groups) {
        a_next = load_a(ks, g + 1);
      } else if (ks + 1 < k_steps) {
        b_next = load_b(ks + 1);
        a_next = load_a(ks + 1, 0);
      }
      sched_barrier(movable);
      for (int r = 0; r < rows; ++r)
        for (int j = 0; j < rn; ++j) {
          const int i = g * rows + r;
          c.at(i, j) = typename FC::vec_type(
              ops.wmma(Lanes::mnemonic, detail::mma_input<Lanes>(a_cur[r]),
                       detail::mma_input<Lanes>(b_cur[j]), c.at(i, j).ir(), mods));
        }
      sched_barrier(movable);
      if (a_next)
        a_cur = *a_next;
      if (b_next)
        b_cur = *b_next;
    }
}

} // namespace tw::dsl
