#pragma once
// MmaFragment<Atom, Operand, RR, RC>: the registers one lane holds for RR x RC atom tiles of
// one operand (A, B or the C/D accumulator). Each atom tile is one Vec of the atom's register
// values in register order; which matrix element value v of lane l is comes from the atom's
// lane map (MmaAtomLanes), never from kernel code.
//
// load_operand / store_operand move one atom tile between registers and any tile view
// (GlobalTile or LdsTile): values that are adjacent in a row of the tile are moved with one
// vector access (e.g. 4 x f16 = one 64-bit load for the f16 A operand).
#include <array>
#include <numeric>
#include <type_traits>

#include <dsl/builder/control.hpp>
#include <dsl/handles/convert.hpp>
#include <dsl/handles/vec.hpp>
#include <dsl/mma/mma_atom.hpp>

namespace tw::dsl {

template <MmaAtomType Atom, MmaOperand Op>
struct MmaOperandTraits {
  using lanes = MmaAtomLanes<Atom>;
  using elem = std::conditional_t<
      Op == MmaOperand::A, typename lanes::a_elem,
      std::conditional_t<Op == MmaOperand::B, typename lanes::b_elem, typename lanes::c_elem>>;
  static constexpr const LaneMap& map = lanes::map(Op);
  static constexpr int values = map.values;
  using vec = Vec<elem, values>;
};

template <MmaAtomType Atom, MmaOperand Op, int RR, int RC>
class MmaFragment : ops::adl_anchor {
  static_assert(RR >= 1 && RC >= 1, "MmaFragment: at least one atom tile");

public:
  using atom = Atom;
  using traits = MmaOperandTraits<Atom, Op>;
  using elem_type = typename traits::elem;
  using vec_type = typename traits::vec;
  static constexpr MmaOperand operand = Op;
  static constexpr int tile_rows = RR, tile_cols = RC;
  static constexpr int values_per_tile = traits::values;

  MmaFragment() = default;

  vec_type& at(int i, int j) { return tiles_[check(i, j)]; }
  const vec_type& at(int i, int j) const { return tiles_[check(i, j)]; }

  // Every register value set to `v` (an accumulator's initial value).
  static MmaFragment filled(const Scalar<elem_type>& v) {
    MmaFragment f;
    const vec_type s = vec_type::splat(v);
    for (vec_type& t : f.tiles_)
      t = s;
    return f;
  }

  // Carried protocol (for_range / if_).
  void flatten_into(std::vector<ir::Value>& out) const {
    for (const vec_type& t : tiles_)
      out.push_back(t.ir());
  }
  static MmaFragment rebuild(std::span<const ir::Value> vals, std::size_t& pos) {
    MmaFragment f;
    for (vec_type& t : f.tiles_)
      t = vec_type(vals[pos++]);
    return f;
  }
  static void append_types(std::vector<ir::Type>& out) {
    for (int i = 0; i < RR * RC; ++i)
      out.push_back(vec_type::type());
  }

private:
  static int check(int i, int j) {
    if (i < 0 || i >= RR || j < 0 || j >= RC)
      throw std::out_of_range("MmaFragment: atom tile (" + std::to_string(i) + ", " +
                              std::to_string(j) + ") of a " + std::to_string(RR) + " x " +
                              std::to_string(RC) + " fragment");
    return i * RC + j;
  }
  std::array<vec_type, RR * RC> tiles_{};
};

namespace ops {
// f applied to every value of the fragment (an element-wise map over registers).
template <MmaAtomType Atom, MmaOperand Op, int RR, int RC, class F>
MmaFragment<Atom, Op, RR, RC> map(const MmaFragment<Atom, Op, RR, RC>& f, F&& fn) {
  using Frag = MmaFragment<Atom, Op, RR, RC>;
  using E = typename Frag::elem_type;
  static_assert(std::same_as<std::invoke_result_t<F&, Scalar<E>>, Scalar<E>>,
                "map: the function must take and return a scalar of the fragment's element type");
  Frag out;
  for (int i = 0; i < RR; ++i)
    for (int j = 0; j < RC; ++j) {
      std::array<Scalar<E>, Frag::values_per_tile> e;
      for (int v = 0; v < Frag::values_per_tile; ++v)
        e[v] = fn(f.at(i, j)[v]);
      out.at(i, j) = Frag::vec_type::from(e);
    }
  return out;
}
} // namespace ops

namespace detail {

// The lane part of a lane map in IR: sum over thread modes of ((lane / divisor) % extent) * step.
// (Unsigned: lanes are never negative, so power-of-two divisions become shifts and masks.)
inline Int32 lane_part(const LaneMap& m, const Int32& lane, bool rows) {
  const UInt32 l = cast<u32>(lane);
  UInt32 r = 0;
  for (const LaneMap::Mode& mode : m.thread) {
    const int step = rows ? mode.row_step : mode.col_step;
    if (step == 0 || mode.extent == 1)
      continue;
    r = r + (l / mode.divisor) % mode.extent * step;
  }
  return cast<i32>(r);
}
// Every lane part along tile columns is a multiple of this (0: always 0).
constexpr int lane_col_gcd(const LaneMap& m, bool transposed) {
  int g = 0;
  for (const LaneMap::Mode& mode : m.thread)
    if (mode.extent > 1)
      g = std::gcd(g, transposed ? mode.row_step : mode.col_step);
  return g;
}

// Static tile coordinates of value v.
constexpr int value_tile_row(const LaneMap& m, int v, bool transposed) {
  return transposed ? m.value_col[v] : m.value_row[v];
}
constexpr int value_tile_col(const LaneMap& m, int v, bool transposed) {
  return transposed ? m.value_row[v] : m.value_col[v];
}
// Length of the vector run starting at value v (a power of two, at most max_run).
constexpr int run_length(const LaneMap& m, int v, bool transposed, int max_run) {
  const int g = lane_col_gcd(m, transposed);
  int n = 1;
  while (2 * n <= max_run && v % (2 * n) == 0 && v + 2 * n <= m.values &&
         value_tile_col(m, v, transposed) % (2 * n) == 0 && (g == 0 || g % (2 * n) == 0)) {
    bool adjacent = true;
    for (int j = 1; j < 2 * n; ++j)
      adjacent = adjacent &&
                 value_tile_row(m, v + j, transposed) == value_tile_row(m, v, transposed) &&
                 value_tile_col(m, v + j, transposed) == value_tile_col(m, v, transposed) + j;
    if (!adjacent)
      break;
    n *= 2;
  }
  return n;
}

template <class Tile, int N>
auto load_run_n(const Tile& t, const Int32& r, const Int32& c) {
  return t.template load_run<N>(r, c);
}

// The runs of one atom tile of operand Op in register order: f(v, n, dr, dc) for the n-value
// run starting at value v, at tile offset (dr, dc) from the lane's origin (n = 1 for a tile
// without contiguous rows).
template <MmaAtomType Atom, MmaOperand Op, class Tile, class F>
void for_each_operand_run(const Tile& tile, bool transposed, F&& f) {
  using Tr = MmaOperandTraits<Atom, Op>;
  constexpr const LaneMap& m = Tr::map;
  constexpr int max_run =
      16 / elem_bytes<typename Tr::elem>() > 0 ? 16 / elem_bytes<typename Tr::elem>() : 1;
  for (int v = 0; v < Tr::values;) {
    const int n = tile.rows_contiguous() ? run_length(m, v, transposed, max_run) : 1;
    f(v, n, value_tile_row(m, v, transposed), value_tile_col(m, v, transposed));
    v += n;
  }
}

// The registers of one atom tile of operand Op, run by run in register order:
// fetch(std::integral_constant<int, N>{}, dr, dc) returns the N-element run at tile offset
// (dr, dc) from the lane's origin.
template <MmaAtomType Atom, MmaOperand Op, class Tile, class Fetch>
typename MmaOperandTraits<Atom, Op>::vec gather_operand(const Tile& tile, bool transposed,
                                                        Fetch&& fetch) {
  using Tr = MmaOperandTraits<Atom, Op>;
  using E = typename Tr::elem;
  std::array<Scalar<E>, Tr::values> e;
  std::vector<ir::Value> runs;
  bool all_vector_runs = true;
  for_each_operand_run<Atom, Op>(tile, transposed, [&](int v, int n, int dr, int dc) {
    const auto take = [&]<int N>(std::integral_constant<int, N> len) {
      const Vec<E, N> x = fetch(len, dr, dc);
      runs.push_back(x.ir());
      for (int j = 0; j < N; ++j)
        e[v + j] = N == 1 ? Scalar<E>(x.ir()) : x[j];
    };
    switch (n) {
    case 8:
      take(std::integral_constant<int, 8>{});
      break;
    case 4:
      take(std::integral_constant<int, 4>{});
      break;
    case 2:
      take(std::integral_constant<int, 2>{});
      break;
    default:
      take(std::integral_constant<int, 1>{});
      all_vector_runs = false;
      break;
    }
  });
  if (runs.size() == 1)
    return typename Tr::vec(runs[0]);
  if (all_vector_runs)
    return typename Tr::vec(KernelBuilder::current("load_operand").ops().concat(runs));
  return Tr::vec::from(e);
}
} // namespace detail

// The registers of operand Op for the atom tile whose top-left element, in operand coordinates
// (A: (m, k), B: (k, n), C: (m, n)), is (row0, col0) of `tile`. When `transposed` is true the
// tile stores operand element (i, j) at tile (j, i) (B kept as N x K with k contiguous).
template <MmaAtomType Atom, MmaOperand Op, class Tile>
typename MmaOperandTraits<Atom, Op>::vec load_operand(const Tile& tile, const Int32& row0,
                                                      const Int32& col0, bool transposed) {
  using Tr = MmaOperandTraits<Atom, Op>;
  using E = typename Tr::elem;
  static_assert(std::same_as<typename Tile::elem_type, E>,
                "load_operand: the tile's element type is not the atom operand's element type");
  constexpr const LaneMap& m = Tr::map;
  const Int32 lane = lane_id();
  const Int32 lr = detail::lane_part(m, lane, true), lc = detail::lane_part(m, lane, false);
  const Int32 tr0 = transposed ? col0 + lc : row0 + lr;
  const Int32 tc0 = transposed ? row0 + lr : col0 + lc;
  // An unswizzled LDS tile and a constant atom origin: the lane's address once (lane part
  // only), every run a constant step from it (ds_load immediate offsets; LdsTile::load_run_at).
  bool steps = false;
  ir::Value at{};
  int dr0 = 0, dc0 = 0;
  constexpr bool lds_steps = requires(const Tile& t, ir::Value a) {
    t.constant_steps();
    t.template load_run_at<1>(a, 0, 0);
  };
  if constexpr (lds_steps) {
    steps = tile.constant_steps() && row0.is_constant() && col0.is_constant();
    if (steps) {
      const int r0 = static_cast<int>(row0.constant_value()),
                c0 = static_cast<int>(col0.constant_value());
      dr0 = transposed ? c0 : r0;
      dc0 = transposed ? r0 : c0;
      at = tile.address(transposed ? lc : lr, transposed ? lr : lc);
    }
  }
  return detail::gather_operand<Atom, Op>(
      tile, transposed, [&]<int N>(std::integral_constant<int, N>, int dr, int dc) {
        Vec<E, N> x;
        if constexpr (lds_steps)
          if (steps)
            x = tile.template load_run_at<N>(at, dr0 + dr, dc0 + dc);
        if (!steps)
          x = tile.template load_run<N>(tr0 + dr, tc0 + dc);
        return x;
      });
}

// Atom tiles 0, 1, ... of operand Op whose origins step by `step` rows of `tile`: tile i at
// operand coordinates (row0 + i * step, col0), or (row0, col0 + i * step) when `transposed`
// (B kept n-major: its n runs along the tile's rows). On an LDS tile where such a step is a
// constant offset (LdsTile::constant_row_step: unswizzled, or a step the swizzle keeps) the
// lane's address of each run is computed once, here, and every tile's runs are ds_loads at
// immediate offsets from it (one address register per run, not one per tile); otherwise
// load(i) is load_operand at tile i's origin. load(i) issues tile i's loads where it is called
// (fragment_pipeline.hpp issues the next fragment's ahead of the current WMMAs).
template <MmaAtomType Atom, MmaOperand Op, class Tile>
class SteppedOperandTiles {
public:
  using vec = typename MmaOperandTraits<Atom, Op>::vec;

  SteppedOperandTiles(const Tile& tile, const Int32& row0, const Int32& col0, int step,
                      bool transposed)
      : tile_(tile), row0_(row0), col0_(col0), step_(step), transposed_(transposed) {
    if constexpr (lds_rows)
      stepped_ = tile.rows_contiguous() && tile.constant_row_step(step);
    if (!stepped_)
      return;
    constexpr const LaneMap& m = MmaOperandTraits<Atom, Op>::map;
    const Int32 lane = lane_id();
    const Int32 lr = detail::lane_part(m, lane, true), lc = detail::lane_part(m, lane, false);
    const Int32 tr0 = transposed ? col0 + lc : row0 + lr;
    const Int32 tc0 = transposed ? row0 + lr : col0 + lc;
    // The runs' addresses of tile 0, in run order (the order gather_operand asks for them).
    detail::for_each_operand_run<Atom, Op>(tile, transposed, [&](int, int, int dr, int dc) {
      at_.push_back(tile.address(tr0 + dr, tc0 + dc));
    });
  }

  vec load(int i) const {
    if (!stepped_)
      return load_operand<Atom, Op>(tile_, transposed_ ? row0_ : row0_ + i * step_,
                                    transposed_ ? col0_ + i * step_ : col0_, transposed_);
    std::size_t run = 0;
    return detail::gather_operand<Atom, Op>(
        tile_, transposed_, [&]<int N>(std::integral_constant<int, N>, int, int) {
          return tile_.template load_run_at<N>(at_[run++], i * step_, 0);
        });
  }

private:
  static constexpr bool lds_rows = requires(const Tile& t, ir::Value a) {
    t.constant_row_step(1);
    t.template load_run_at<1>(a, 0, 0);
  };
  Tile tile_;
  Int32 row0_, col0_;
  int step_;
  bool transposed_;
  bool stepped_ = false;
  std::vector<ir::Value> at_;
};

// store_operand's default conversion of a value to the tile's element type: cast<Out>.
struct CastConvert {
  template <ElemType Out, ElemType In>
  Scalar<Out> operator()(std::type_identity<Out>, const Scalar<In>& x) const {
    return cast<Out>(x);
  }
};

// A conversion for store_operand that rounds f32 -> bf16 with to_bf16_rne_quiet_nan (NaN kept
// as the quiet NaN, one VALU per value less than cast<bf16>) and casts everything else.
struct QuietNanBf16Convert {
  template <ElemType Out, ElemType In>
  Scalar<Out> operator()(std::type_identity<Out>, const Scalar<In>& x) const {
    if constexpr (std::same_as<Out, bf16> && std::same_as<In, f32>)
      return to_bf16_rne_quiet_nan(x);
    else
      return cast<Out>(x);
  }
};

// Writes the registers of one atom tile of operand Op (usually C) to `tile` (masked for global
// tiles: elements past the tensor are not written). Values are converted to the tile's type
// by `convert(std::type_identity<Out>{}, x)`: cast<Out> unless another conversion is given
// (e.g. to_bf16_rne_quiet_nan, dsl/handles/convert.hpp).
// When `transposed` is true the tile receives the atom tile transposed (operand element (i, j)
// at tile (j, i)): a D accumulator, whose lane holds consecutive rows of one column, then
// leaves as vector runs along a row of the tile (one 128-bit store per 8 x bf16 run).
template <MmaAtomType Atom, MmaOperand Op, class Tile, class Convert = CastConvert>
void store_operand(const Tile& tile, const typename MmaOperandTraits<Atom, Op>::vec& x,
                   const Int32& row0, const Int32& col0, bool transposed = false,
                   const Convert& convert = {}) {
  using Tr = MmaOperandTraits<Atom, Op>;
  using Out = typename Tile::elem_type;
  constexpr const LaneMap& m = Tr::map;
  const Int32 lane = lane_id();
  const Int32 lr = detail::lane_part(m, lane, true), lc = detail::lane_part(m, lane, false);
  const Int32 tr0 = transposed ? col0 + lc : row0 + lr;
  const Int32 tc0 = transposed ? row0 + lr : col0 + lc;
  constexpr int max_run = 16 / elem_bytes<Out>() > 0 ? 16 / elem_bytes<Out>() : 1;
  for (int v = 0; v < Tr::values;) {
    const int n = tile.rows_contiguous() ? detail::run_length(m, v, transposed, max_run) : 1;
    const Int32 r = tr0 + detail::value_tile_row(m, v, transposed);
    const Int32 c = tc0 + detail::value_tile_col(m, v, transposed);
    const auto put = [&]<int N>(std::integral_constant<int, N>) {
      if constexpr (N == 1) {
        tile.store(r, c, convert(std::type_identity<Out>{}, x[v]));
      } else {
        std::array<Scalar<Out>, N> e;
        for (int j = 0; j < N; ++j)
          e[j] = convert(std::type_identity<Out>{}, x[v + j]);
        tile.template store_run<N>(r, c, Vec<Out, N>::from(e));
      }
    };
    switch (n) {
    case 16:
      put(std::integral_constant<int, 16>{});
      break;
    case 8:
      put(std::integral_constant<int, 8>{});
      break;
    case 4:
      put(std::integral_constant<int, 4>{});
      break;
    case 2:
      put(std::integral_constant<int, 2>{});
      break;
    default:
      put(std::integral_constant<int, 1>{});
      break;
    }
    v += n;
  }
}

} // namespace tw::dsl
