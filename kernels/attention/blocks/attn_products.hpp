#pragma once
// Attention block: the KV loop's two products for the dtype of the WMMA atom,
//   S^T = K Q^T          and          O^T += V^T P^T,
// and where the f32 values between them live. Float atoms (bf16, f16, e4m3, e5m2) accumulate
// in f32: the scores, P and O are the atom's own accumulators and P becomes the PV operand by
// rounding (accumulator_as_operand). The iu8 atom (int8 attention) accumulates in i32 and reads
// signed operands: S^T is converted to f32 once per block; P in [0, 1] is quantized to int8 as
// round_half_even(127 * p) (ties to even; docs/kernels.md "int8 attention"), the block's
// V^T P^T is summed exactly in i32 and added to an f32 O, and 1 / 127 is folded into the
// epilogue's scale (v_descale / (127 l)). l stays the sum of the unquantized p.
//   using Pr = AttnProducts<Atom, waves, kb, Dvp>;
//   auto st = Pr::scores(sK fragments, Q fragments);  // f32, the C layout of Pr::s_f32
//   Pr::accumulate_pv(o, load_vt, p);                 // o: f32, the C layout of Pr::o_f32
//   Pr::rescale_and_accumulate_pv(o, t, alpha, vt, p, p_scale); // a KV block's whole O update
//   Pr::rescale_and_accumulate_pv_passes<64>(o, t, alpha, vt0, load_pass, p, p_scale);
//                                          // the same, V^T read 64 value dims at a time
#include <dsl/dsl.hpp>
#include <dsl/mma/scale_cols.hpp>

#include <concepts>
#include <stdexcept>

namespace tw::kernels::attention_blocks {

namespace detail {
// An atom with an f32 accumulator whose C layout is that of `Atom` (all gfx12 16x16 atoms
// place C alike; the static_asserts below prove it for the views made from it).
template <class Atom>
using f32_c_atom =
    std::conditional_t<std::same_as<typename dsl::MmaAtomLanes<Atom>::c_elem, dsl::f32>, Atom,
                       atoms::wmma_f32_16x16x16_fp8_fp8>;
} // namespace detail

template <class Atom, int Waves, int KeysPerBlock, int ValueDims>
struct AttnProducts {
  using Lanes = dsl::MmaAtomLanes<Atom>;
  static constexpr bool integer = std::same_as<typename Lanes::c_elem, dsl::i32>;
  static_assert(!integer || std::same_as<typename Lanes::a_elem, dsl::i8>,
                "AttnProducts: an integer attention atom must be the iu8 WMMA (packed int4 "
                "attention is not supported)");
  // S^T = K Q^T: keys x queries, one 16-query column of atoms per wave.
  static constexpr auto s_mma =
      dsl::make_tiled_mma(Atom{}, dsl::wave_layout<1, Waves>, dsl::repeat<KeysPerBlock / 16, 1>);
  // O^T = V^T P^T: value dims x queries.
  static constexpr auto o_mma =
      dsl::make_tiled_mma(Atom{}, dsl::wave_layout<1, Waves>, dsl::repeat<ValueDims / 16, 1>);
  // Where scores / P and O live in f32 (the products' own TiledMMAs for float atoms).
  static constexpr auto s_f32 = dsl::make_tiled_mma(
      detail::f32_c_atom<Atom>{}, dsl::wave_layout<1, Waves>, dsl::repeat<KeysPerBlock / 16, 1>);
  static constexpr auto o_f32 = dsl::make_tiled_mma(
      detail::f32_c_atom<Atom>{}, dsl::wave_layout<1, Waves>, dsl::repeat<ValueDims / 16, 1>);
  // O^T's products over `Dims` of the value dims (a pass of rescale_and_accumulate_pv_passes).
  template <int Dims>
  static constexpr auto o_mma_dims = dsl::make_tiled_mma(Atom{}, dsl::wave_layout<1, Waves>,
                                                         dsl::repeat<Dims / 16, 1>);
  template <int Dims>
  static constexpr auto o_f32_dims = dsl::make_tiled_mma(detail::f32_c_atom<Atom>{},
                                                         dsl::wave_layout<1, Waves>,
                                                         dsl::repeat<Dims / 16, 1>);
  using SMma = std::remove_cvref_t<decltype(s_mma)>;
  using OMma = std::remove_cvref_t<decltype(o_mma)>;
  using SF32 = std::remove_cvref_t<decltype(s_f32)>;
  using OF32 = std::remove_cvref_t<decltype(o_f32)>;
  static_assert(dsl::detail::same_c_placement<SMma, SF32>() &&
                    dsl::detail::same_c_placement<OMma, OF32>(),
                "AttnProducts: the f32 views must place C like the products' accumulators");
  // int8: the scale P is quantized with, undone in the epilogue: 127, or 127 (1 - p) with
  // dropout so that the kept probabilities, scaled by 1 / (1 - p), still lie in [0, 127].
  static dsl::Float32 p_quant_scale(bool dropout, const dsl::Float32& inv_keep) {
    static_assert(integer, "AttnProducts: only int8 attention quantizes P");
    return dropout ? dsl::Float32(127.0f) * rcp(inv_keep) : dsl::Float32(127.0f);
  }

  // C += A B with the atom's signedness (int8 operands are signed).
  template <class TM, class FA, class FB, class FC>
  static void product(const TM& mma, const FA& a, const FB& b, FC& c) {
    if constexpr (integer)
      dsl::gemm_with_mods(mma, a, b, c, ir::MmaMods{.a_signed = true, .b_signed = true});
    else
      gemm(mma, a, b, c);
  }

  // S^T of one KV block in f32: sum over the head's k steps of load_k(ks) x q[ks].
  template <class LoadK, class QFrags>
  static typename SF32::CFrag scores(LoadK&& load_k, const QFrags& q) {
    auto st = s_mma.make_accumulator(0);
    for (std::size_t ks = 0; ks < q.size(); ++ks)
      product(s_mma, load_k(static_cast<int>(ks)), q[ks], st);
    if constexpr (integer)
      return to_f32<typename SF32::CFrag>(st); // exact: |S| <= 128^2 * 256 < 2^24
    else
      return st;
  }

  // O^T += V^T P^T over the block's KeysPerBlock / 16 k steps; load_vt(ks) is V^T's A operand.
  // p_scale: int8 only (p_quant_scale); float atoms round P to their operand type.
  // Dims: the value dims o holds (all of them, or one pass's).
  template <int Dims = ValueDims, class LoadVt>
  static void accumulate_pv(typename std::remove_cvref_t<decltype(o_f32_dims<Dims>)>::CFrag& o,
                            LoadVt&& load_vt, const typename SF32::CFrag& p,
                            const dsl::Float32& p_scale) {
    constexpr auto mma = o_mma_dims<Dims>;
    if constexpr (integer) {
      // p_scale p rounds to nearest even in accumulator_as_operand; the block's sum is exact in
      // i32 (|sum| <= 127 * 128 * KeysPerBlock).
      const auto pq = scaled(p, p_scale);
      auto pv = mma.make_accumulator(0);
      for (int ks = 0; ks < KeysPerBlock / 16; ++ks)
        product(mma, load_vt(ks),
                dsl::accumulator_as_operand<dsl::MmaOperand::B>(s_f32, pq, mma, ks), pv);
      const auto pv_f = to_f32<std::remove_cvref_t<decltype(o)>>(pv);
      o = add(o, pv_f);
    } else {
      // P rounds without a NaN check: a NaN p is also summed into l (unrounded), so its query's
      // l, O and lse are NaN whatever P's rounding made of it (docs/kernels.md).
      (void)p_scale;
      for (int ks = 0; ks < KeysPerBlock / 16; ++ks)
        product(mma, load_vt(ks),
                dsl::accumulator_as_operand<dsl::MmaOperand::B>(
                    s_mma, p, mma, ks, dsl::OperandRounding::nan_unchecked),
                o);
    }
  }

  // VGPRs of one lane's operand tile (8 elements).
  static constexpr int operand_vgprs = 8 * Lanes::a_elem::bits / 32;

  // The value dims of one pass over the keys (a composition's O slice): the whole value head
  // when a wave's Q fragments (dp / 16 B tiles) and O (ValueDims / 16 f32 tiles) take at most
  // 160 of its 256 VGPRs, otherwise the widest multiple of 16 dividing the head that does: the
  // K fetch, the scores, V^T's tiles, the softmax and the addresses need the rest (bf16 D = 128:
  // 32 + 64; D = 256: 64 + 128 would leave 64, and spilled, so it takes two passes of 128, each
  // recomputing S).
  static constexpr int o_pass_dims(int dp) {
    const int q = dp / 16 * operand_vgprs;
    for (int pass = ValueDims; pass > 16; pass -= 16)
      if (ValueDims % pass == 0 && q + pass / 16 * 8 <= 160)
        return pass;
    return 16;
  }

  // The value dims of one pass of O's update (rescale_and_accumulate_pv_passes) for an O of
  // ValueDims: all of them when Q's fragments, O, the V^T tiles of the pass and (int8) its i32
  // sum take at most `budget` VGPRs, otherwise the widest multiple of 16 dividing ValueDims
  // that does. A composition whose head fits in one pass over the keys allows 224 (every head
  // up to 128 reads its V^T at once, 235-254 VGPRs without spills); one that splits the head
  // (o_pass_dims) 160, the other 96 being the K fetch's, the scores' and the softmax's (bf16
  // D = 256: 64 + 64 + 32, V^T 64 dims at a time).
  static constexpr int pv_pass_dims(int dp, bool split_head) {
    const int budget = split_head ? 160 : 224;
    const int fixed = dp / 16 * operand_vgprs + ValueDims / 16 * 8;
    for (int pass = ValueDims; pass > 16; pass -= 16)
      if (ValueDims % pass == 0 &&
          fixed + pass / 16 * (KeysPerBlock / 16 * operand_vgprs + (integer ? 8 : 0)) <= budget)
        return pass;
    return 16;
  }

  // One KV block's update of O, as the loop body of every attention composition: O's rescale
  // by alpha, skipped by waves whose queries' maxima did not move (alpha exactly 1) and at the
  // first block (block == 0), where O is still 0 (alpha is 0 there: the maxima start at -inf
  // and max ignores NaN; 1 makes every wave skip the multiplies); then O^T += V^T P^T with
  // V^T's A operands vt.at(i, ks) and P^T straight from registers.
  template <class Alpha, class Vt>
  static void rescale_and_accumulate_pv(typename OF32::CFrag& o, const dsl::Int32& block,
                                        const Alpha& alpha, const Vt& vt,
                                        const typename SF32::CFrag& p,
                                        const dsl::Float32& p_scale) {
    rescale_and_accumulate_pv_passes<ValueDims>(
        o, block, alpha, vt,
        [](int) -> Vt { throw std::logic_error("AttnProducts: one pass has no second"); }, p,
        p_scale);
  }

  // The same update with V^T's tiles in passes of PassDims value dims, so that only one pass's
  // tiles are live (a wide head: pv_pass_dims): vt0 holds the first pass's (loaded ahead of the
  // softmax, as one pass's would be); load_pass(pass) returns the A operands of value dims
  // pass * PassDims .. (pass >= 1) and is called right before that pass's products.
  template <int PassDims, class Alpha, class Vt, class LoadPass>
  static void rescale_and_accumulate_pv_passes(typename OF32::CFrag& o, const dsl::Int32& block,
                                               const Alpha& alpha, const Vt& vt0,
                                               LoadPass&& load_pass, const typename SF32::CFrag& p,
                                               const dsl::Float32& p_scale) {
    static_assert(PassDims % 16 == 0 && ValueDims % PassDims == 0,
                  "AttnProducts: a pass covers a multiple of 16 value dims that divides the head");
    Alpha applied;
    applied(0, 0) = select(block == dsl::Int32(0), dsl::Float32(1.0f), alpha(0, 0));
    o = dsl::scale_cols_unless_one(o, applied);
    constexpr int atoms = PassDims / 16;
    using Part = typename std::remove_cvref_t<decltype(o_f32_dims<PassDims>)>::CFrag;
    using PartA = typename std::remove_cvref_t<decltype(o_mma_dims<PassDims>)>::AFrag;
    for (int pass = 0; pass < ValueDims / PassDims; ++pass) {
      const Vt vt = pass == 0 ? vt0 : load_pass(pass);
      Part part;
      for (int i = 0; i < atoms; ++i)
        part.at(i, 0) = o.at(pass * atoms + i, 0);
      accumulate_pv<PassDims>(
          part,
          [&](int ks) {
            PartA a;
            for (int i = 0; i < atoms; ++i)
              a.at(i, 0) = vt.at(i, ks);
            return a;
          },
          p, p_scale);
      for (int i = 0; i < atoms; ++i)
        o.at(pass * atoms + i, 0) = part.at(i, 0);
    }
  }

private:
  template <class To, class From>
  static To to_f32(const From& x) {
    To out;
    for (int i = 0; i < To::tile_rows; ++i)
      for (int j = 0; j < To::tile_cols; ++j) {
        std::array<dsl::Float32, To::values_per_tile> e;
        for (int v = 0; v < To::values_per_tile; ++v)
          e[static_cast<std::size_t>(v)] = dsl::cast<dsl::f32>(x.at(i, j)[v]);
        out.at(i, j) = To::vec_type::from(e);
      }
    return out;
  }
  template <class F>
  static F scaled(const F& x, const dsl::Float32& k) {
    F out;
    for (int i = 0; i < F::tile_rows; ++i)
      for (int j = 0; j < F::tile_cols; ++j)
        out.at(i, j) = x.at(i, j) * F::vec_type::splat(k);
    return out;
  }
  template <class F>
  static F add(const F& x, const F& y) {
    F out;
    for (int i = 0; i < F::tile_rows; ++i)
      for (int j = 0; j < F::tile_cols; ++j)
        out.at(i, j) = x.at(i, j) + y.at(i, j);
    return out;
  }
};

} // namespace tw::kernels::attention_blocks
