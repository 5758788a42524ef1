#pragma once
// The split-K blocks of the GEMM composition: the partial pass stores its raw accumulator into
// the workspace (instead of an epilogue), the reduce pass sums the partials of its output tile
// (instead of a main loop) and runs the epilogue. The workspace holds the partial accumulators
// in the fragments' own layout: per split and output tile a block of block_m * block_n values;
// in it, chunk q (4 values) of atom a of thread t at ((a * chunks + q) * threads + t) * 4
// (128-bit accesses, the lanes of a wave side by side: coalesced, no masks, one address per
// lane).
#include <dsl/dsl.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace tw::kernels::gemm_kernel {

// L: the body's BodyLayout.
template <class L>
class SplitKWorkspace {
  using CFrag = typename L::CFrag;
  using AccE = typename CFrag::elem_type;
  using AtomVec = typename CFrag::vec_type;
  static constexpr auto mma = L::mma;
  static constexpr int atom_values = CFrag::values_per_tile, chunks = atom_values / 4;
  static_assert(atom_values % 4 == 0, "split-K: whole 128-bit chunks of accumulator values");

public:
  // workspace: the kernel argument; m, n: the problem; tile_m / tile_n: the output tile.
  SplitKWorkspace(const dsl::GlobalPtr<dsl::u8>& workspace, const dsl::Int64& m,
                  const dsl::Int64& n, const dsl::Int32& tile_m, const dsl::Int32& tile_n)
      : ws_(workspace.ir(), 16), m_(m), n_(n), bm_(tile_m), bn_(tile_n) {}

  // Reduce pass: the partials of the tile summed in split order 0, 1, ... (deterministic).
  CFrag sum(const dsl::Int64& split_count) const {
    using namespace tw::dsl;
    const auto add_split = [&](Int32 split, CFrag sum) {
      std::array<std::array<Scalar<AccE>, atom_values>, mma.repeat_m * mma.repeat_n> e;
      for_each_chunk(split, [&](int i, int j, int q, const Int64& at) {
        const Vec<AccE, 4> part = ws_.template load_vec<4>(at, 16);
        for (int v = 0; v < 4; ++v)
          e[std::size_t(i * mma.repeat_n + j)][std::size_t(q * 4 + v)] =
              sum.at(i, j)[q * 4 + v] + part[v];
      });
      for (int i = 0; i < mma.repeat_m; ++i)
        for (int j = 0; j < mma.repeat_n; ++j)
          sum.at(i, j) = AtomVec::from(e[std::size_t(i * mma.repeat_n + j)]);
      return carry(sum);
    };
    return std::get<0>(for_range(Int32(0), cast<i32>(split_count), Int32(1),
                                 carry(mma.make_accumulator(0)), add_split));
  }

  // Partial pass: the raw accumulator of split block_id(z).
  void store(const CFrag& acc) const {
    using namespace tw::dsl;
    for_each_chunk(block_id(ir::Dim::z), [&](int i, int j, int q, const Int64& at) {
      std::array<Scalar<AccE>, 4> e;
      for (int v = 0; v < 4; ++v)
        e[std::size_t(v)] = acc.at(i, j)[q * 4 + v];
      ws_.template store_vec<4>(at, Vec<AccE, 4>::from(e), 16);
    });
  }

private:
  // Calls fn(i, j, q, offset): every chunk of the lane's accumulator and its element offset in
  // the block of split `split`.
  template <class F>
  void for_each_chunk(const dsl::Int32& split, F&& fn) const {
    using namespace tw::dsl;
    const Int64 tiles_m = ceil_div(m_, Int64(L::block_m)),
                tiles_n = ceil_div(n_, Int64(L::block_n));
    const Int64 tile = (cast<i64>(split) * tiles_m + cast<i64>(bm_)) * tiles_n + cast<i64>(bn_);
    const Int64 base = tile * Int64(L::block_m * L::block_n) + cast<i64>(thread_id()) * Int64(4);
    for (int i = 0; i < mma.repeat_m; ++i)
      for (int j = 0; j < mma.repeat_n; ++j)
        for (int q = 0; q < chunks; ++q)
          fn(i, j, q, base + Int64(int64_t{(i * mma.repeat_n + j) * chunks + q} * L::threads * 4));
  }

  dsl::GlobalPtr<AccE> ws_;
  dsl::Int64 m_, n_;
  dsl::Int32 bm_, bn_;
};

} // namespace tw::kernels::gemm_kernel
