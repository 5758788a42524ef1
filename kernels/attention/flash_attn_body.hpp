#pragma once
// The flash attention composition's kernel body (see flash_attn_kernel.hpp), written only with
// the DSL. Per workgroup: one query tile (block_q rows) of one (sequence, query head[, split]).
// Included by one flash_attn_body_<dtype>.cpp per WMMA atom (the instantiations compile in
// parallel); flash_attn_kernel.cpp dispatches on the spec's dtype.
#include <kernels/attention/blocks/alibi.hpp>
#include <kernels/attention/blocks/attn_products.hpp>
#include <kernels/attention/blocks/attn_sequence.hpp>
#include <kernels/attention/blocks/bias_mask.hpp>
#include <kernels/attention/blocks/dropout.hpp>
#include <kernels/attention/blocks/gqa_packing.hpp>
#include <kernels/attention/blocks/kv_source.hpp>
#include <kernels/attention/blocks/online_softmax.hpp>
#include <kernels/attention/blocks/softcap.hpp>
#include <kernels/attention/blocks/visible_keys.hpp>
#include <kernels/attention/flash_attn_kernel.hpp>
#include <kernels/common/elem_dispatch.hpp>

#include <dsl/dsl.hpp>
#include <dsl/mma/scale_cols.hpp>
#include <dsl/tensor/whole_tile.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace tw::kernels::flash_attn_kernel {

using namespace tw::dsl;
using namespace tw::kernels::attention_blocks;

namespace body {

inline constexpr double log2e = 1.4426950408889634;
inline constexpr double ln2 = 0.6931471805599453;

// Stage bytes of the K LDS tile of one KV block (rows padded by 16 bytes). V does not pass
// through LDS: its PV operand tiles come straight from global memory (KvSource::load_vt).
template <class LE>
constexpr int stage_bytes(int kb, int dp) {
  const int pad = 16 / elem_bytes<LE>();
  return kb * (dp + pad) * elem_bytes<LE>();
}

// Calls fn(Tag<O>{}) with the DSL element type of the output dtype.
template <class F>
void with_out_elem(DType t, F&& fn) {
  with_elem_among<bf16, f16>(t, std::forward<F>(fn), [](DType d) {
    return "flash_attn kernel: output dtype " + std::string(dtype_name(d)) + " is not bf16 or f16";
  });
}

// The largest power of two that divides n (threads along one row of a copy).
constexpr int row_threads(int n) {
  return n & -n;
}

// The widest K copy run (128 or 64 bits) whose thread layout (`threads` over rows of Dp
// elements, a row split over row_threads(Dp / run) threads) tiles a block of kb keys: 256
// threads (8 waves) take 64-bit runs where 128-bit ones would need more rows than kb.
template <class LE>
constexpr int k_copy_bits(int threads, int kb, int dp) {
  for (int bits : {128, 64}) {
    const int per_row = row_threads(dp / (bits / LE::bits));
    if (threads % per_row == 0 && kb % (threads / per_row) == 0)
      return bits;
  }
  return 0;
}

template <class Atom, int Dp, int Dvp, int Waves>
ir::Kernel build_body(const FlashAttnKernelSpec& s) {
  static_assert(Waves == 4 || Waves == 8,
                "flash_attn body: a query tile is 4 or 8 waves (64 or 128 rows)");
  constexpr int waves = Waves, block_q = 16 * waves, threads = 32 * waves;
  using Lanes = MmaAtomLanes<Atom>;
  using E = typename Lanes::a_elem; // what the WMMA reads (bf16, f16, e4m3, e5m2, i8)
  // fp8 codes move through global memory and LDS as i8 (like the GEMM); Q is read as E.
  using LE = std::conditional_t<E::bits == 8, i8, E>;
  constexpr int kb = E::bits == 8 ? 64 : 32; // keys per KV block
  constexpr int n_stages = 2 * stage_bytes<LE>(kb, Dp) <= 65536 ? 2 : 1;
  constexpr int row_pad = 16 / elem_bytes<LE>();
  // S^T = K Q^T (keys x queries, one 16-query column of atoms per wave) and O^T = V^T P^T;
  // scores, P and O live in f32 in the C layouts of s_f32 / o_f32 (int8: see attn_products).
  // A wide head passes over the keys once per slice of o_dims value dims (o_pass_dims: D = 256
  // takes two passes of 128, each recomputing S), so that Q's fragments and O fit in the
  // registers beside the K fetch, the scores and V^T's tiles (no spills).
  constexpr int o_dims = AttnProducts<Atom, waves, kb, Dvp>::o_pass_dims(Dp);
  using Products = AttnProducts<Atom, waves, kb, o_dims>;
  constexpr auto s_mma = Products::s_mma;
  constexpr auto o_mma = Products::o_mma;
  constexpr auto s_f32 = Products::s_f32;
  constexpr auto o_f32 = Products::o_f32;
  static_assert(s_mma.tile_n == block_q && o_mma.tile_n == block_q);
  // Within a pass V^T is read in passes of pv_pass value dims (the whole pass up to D = 192;
  // D = 256: 64 of each 128), so that the V^T tiles in flight fit as well
  constexpr int pv_pass = Products::pv_pass_dims(Dp, o_dims < Dvp);
  constexpr int pv_per_o = o_dims / pv_pass; // V^T passes per pass over the keys
  constexpr auto plan = lds_plan(lds_buffer<LE>("sK", kb, Dp, stages(n_stages), pad(row_pad)));
  // 128-bit accesses (64-bit where 8 waves would outnumber a block's 128-bit runs,
  // k_copy_bits); a row of the head is split over the largest power of two of threads that
  // divides it (96 = 3 x 32: 4 threads per pass over a 32-wide slice).
  constexpr int copy_bits = k_copy_bits<LE>(threads, kb, Dp);
  static_assert(copy_bits != 0, "flash_attn body: no K copy run tiles a KV block");
  constexpr int vec = copy_bits / LE::bits;
  constexpr int tc_k = row_threads(Dp / vec);
  using KCopyAtom =
      std::conditional_t<copy_bits == 128, atoms::global_load_b128, atoms::global_load_b64>;
  constexpr auto copy_k = make_tiled_copy<LE>(KCopyAtom{}, thread_layout<threads / tc_k, tc_k>);
  static_assert(kb % (threads / tc_k) == 0);

  KernelBuilder kb_(s.name(), {threads, 1, 1});
  const int align = s.vec_aligned ? 16 : elem_bytes<LE>();
  auto [Qp, Kp, Vp, Op, LseP, BiasP, SlopesP, CuQ, CuK, OPart, MPart, LPart, B, Sq, Sk, Hq, Hkv, D,
        Dv, q_sb, q_ss, q_sh, k_sb, k_ss, k_sh, v_sb, v_ss, v_sh, o_sb, o_ss, o_sh, lse_sb, lse_sh,
        bias_sh, bias_sq, bias_sk, win_left, win_right, num_splits, sm_scale, softcap, inv_softcap,
        alibi_slope, q_descale, k_descale, v_descale, drop_seed, drop_offset, drop_threshold,
        drop_inv_keep] =
      kb_.args(gptr<u8>("q"), gptr<u8>("k"), gptr<u8>("v"), gptr<u8>("out"), gptr<f32>("lse"),
               gptr<u8>("bias"), gptr<f32>("alibi_slopes"), gptr<i32>("cu_seqlens_q"),
               gptr<i32>("cu_seqlens_k"), gptr<f32>("o_part"), gptr<f32>("m_part"),
               gptr<f32>("l_part"), scalar<i64>("batch"), scalar<i64>("seqlen_q"),
               scalar<i64>("seqlen_k"), scalar<i64>("heads_q"), scalar<i64>("heads_kv"),
               scalar<i64>("head_dim"), scalar<i64>("head_dim_v"), scalar<i64>("q_sb"),
               scalar<i64>("q_ss"), scalar<i64>("q_sh"), scalar<i64>("k_sb"), scalar<i64>("k_ss"),
               scalar<i64>("k_sh"), scalar<i64>("v_sb"), scalar<i64>("v_ss"), scalar<i64>("v_sh"),
               scalar<i64>("o_sb"), scalar<i64>("o_ss"), scalar<i64>("o_sh"), scalar<i64>("lse_sb"),
               scalar<i64>("lse_sh"), scalar<i64>("bias_sh"), scalar<i64>("bias_sq"),
               scalar<i64>("bias_sk"), scalar<i64>("window_left"), scalar<i64>("window_right"),
               scalar<i64>("num_splits"), scalar<f32>("sm_scale"), scalar<f32>("softcap"),
               scalar<f32>("inv_softcap"), scalar<f32>("alibi_slope"), scalar<f32>("q_descale"),
               scalar<f32>("k_descale"), scalar<f32>("v_descale"), scalar<i64>("dropout_seed"),
               scalar<i64>("dropout_offset"), scalar<i32>("dropout_threshold"),
               scalar<f32>("dropout_inv_keep"));
  // Paged KV (appended arguments; unused without s.paging).
  auto [PageTable, PageIndptr, SeqlensK, page_table_stride, page_size] =
      kb_.args(gptr<i32>("block_table"), gptr<i32>("block_table_indptr"), gptr<i32>("seqlens_k"),
               scalar<i64>("block_table_stride"), scalar<i32>("page_size"));
  const bool paged = s.paging != FlashAttnKernelSpec::KvPaging::none;
  const Int32 qt = block_id(ir::Dim::x), h = block_id(ir::Dim::y);
  const Int32 bz = block_id(ir::Dim::z);
  const Int32 splits = cast<i32>(num_splits);
  const Int32 b = s.split ? bz / splits : bz;
  const Int32 split = s.split ? bz % splits : Int32(0);
  // GQA / MQA: the kv head of query head h (GQA packing: grid y is the kv head itself)
  const Int32 group = cast<i32>(Hq / Hkv);
  const Int32 hk = s.gqa_packed ? h : h / group;

  // ---- KV source block: the sequence of this workgroup ----
  const std::optional<PagedSequence> pages =
      paged ? std::optional(paged_sequence(s.paging == FlashAttnKernelSpec::KvPaging::csr,
                                           PageTable, PageIndptr, page_table_stride, SeqlensK, b))
            : std::nullopt;
  // Paged: the queries are dense or varlen (cu_seqlens_q), the keys the sequence's pages.
  const AttnSequence seq = paged      ? paged_attn_sequence(s.varlen, CuQ, Sq, *pages, b)
                           : s.varlen ? varlen_sequence(CuQ, CuK, b)
                                      : dense_sequence(Sq, Sk);
  // GQA packing: the tile rows are (query head of the group, query) pairs (gqa_packing.hpp)
  const std::optional<PackedQueryRows> packed =
      s.gqa_packed ? std::optional(PackedQueryRows{group, hk, cast<i32>(seq.sq)}) : std::nullopt;
  const Int64 row0 = cast<i64>(qt) * Int64(block_q);
  if_(row0 < (packed ? packed->rows() : seq.sq), [&] {
    const auto typed = [&]<class T>(const GlobalPtr<u8>& p, Tag<T>) {
      return GlobalPtr<T>(p.ir(), align);
    };
    const Int64 bq = s.varlen ? Int64(0) : cast<i64>(b);
    const GlobalTensor<E> q = head_tensor(
        typed(Qp, Tag<E>{}), bq * q_sb + seq.q_first * q_ss + cast<i64>(h) * q_sh, seq.sq, D, q_ss);
    // ---- KV source block: contiguous rows, or pages (k_sb / v_sb are the page strides) ----
    const auto head_ptr = [&](const GlobalPtr<u8>& p, const Int64& stride) {
      const GlobalPtr<LE> t = typed(p, Tag<LE>{});
      return GlobalPtr<LE>(t.offset(cast<i64>(hk) * stride).ir(), t.align());
    };
    const KvSource<LE> kv =
        paged ? KvSource<LE>::paged(*pages, page_size, head_ptr(Kp, k_sh), k_sb, k_ss, D,
                                    head_ptr(Vp, v_sh), v_sb, v_ss, Dv)
              : KvSource<LE>::contiguous(
                    head_tensor(typed(Kp, Tag<LE>{}),
                                bq * k_sb + seq.k_first * k_ss + cast<i64>(hk) * k_sh, seq.sk, D,
                                k_ss),
                    head_tensor(typed(Vp, Tag<LE>{}),
                                bq * v_sb + seq.k_first * v_ss + cast<i64>(hk) * v_sh, seq.sk, Dv,
                                v_ss));

    // ---- visible keys block: causal / window / split range ----
    const Int32 sq32 = cast<i32>(seq.sq), sk32 = cast<i32>(seq.sk), row0_32 = cast<i32>(row0);
    VisibleKeys vis{s.windowed, s.split, cast<i32>(win_left), cast<i32>(win_right), sq32, sk32,
                    Int32(0),   sk32};
    if (s.split) {
      const Int32 per = ceil_div(sk32, splits);
      vis.kv_lo = split * per;
      vis.kv_hi = min(sk32, vis.kv_lo + per);
    }
    // (packed: every tile row is one of the sequence's sq <= block_q queries)
    const Int32 vis_row0 = packed ? Int32(0) : row0_32;
    const auto [first_block, num_blocks] = vis.blocks(vis_row0, block_q, kb);

    // ---- Q in registers: the B operand of S^T = K Q^T for every k step of the head ----
    // (an interior tile, the usual case, loads without masks: one uniform branch)
    const auto q_tile = local_tile<block_q, Dp>(q, qt, 0);
    using QFrags = MmaFragment<Atom, MmaOperand::B, Dp / 16, 1>; // row ks: k step ks
    const auto load_q = [&](const auto& tile) {
      QFrags f;
      for (int ks = 0; ks < Dp / 16; ++ks)
        f.at(ks, 0) = s_mma.load_b(tile, ks).at(0, 0);
      return f;
    };
    const QFrags q_all = packed ? load_q(local_tile<block_q, Dp>(
                                      packed->tensor(typed(Qp, Tag<E>{}),
                                                     bq * q_sb + seq.q_first * q_ss, D, q_ss, q_sh),
                                      qt, 0))
                                : if_(
                                      q_tile.whole(), [&] { return load_q(assume_whole(q_tile)); },
                                      [&] { return load_q(q_tile); });
    std::array<typename decltype(s_mma)::BFrag, Dp / 16> qf;
    for (int ks = 0; ks < Dp / 16; ++ks)
      qf[static_cast<std::size_t>(ks)].at(0, 0) = q_all.at(ks, 0);

    auto lds = use_lds<plan>(kb_);
    // K of block first_block + t: global -> registers (fetch) -> LDS (commit), pipelined.
    // The pipeline's last iteration fetches the block after the last one: a uniform branch
    // skips it (zeros), instead of a tile wholly past the keys taking the masked copy path.
    // (Clamping the index to the last block instead makes it non-affine in t, and LLVM then
    // hoists every per-element pointer of the masked path out of the loop: VGPR spills.)
    // A clipped K (s.k_clipped) needs neither: the block after the last reads zeros through
    // its descriptor (num_records 0), with the same loads as every other block.
    const auto fetch = [&](const Int32& t) {
      using Regs = decltype(kv.template load_k<kb, Dp>(copy_k, first_block + t));
      if (s.k_clipped && !paged)
        return kv.template load_k<kb, Dp>(copy_k, first_block + t, true);
      return if_(
          t < num_blocks, [&] { return kv.template load_k<kb, Dp>(copy_k, first_block + t); },
          [&] {
            using Part = typename decltype(Regs::parts)::value_type;
            Regs zeros;
            for (Part& part : zeros.parts)
              part = Part::zeros();
            return zeros;
          });
    };
    const auto commit = [&](const auto& regs, const Int32& stage) {
      copy_k.store(regs, lds.template tile<"sK">(stage));
    };

    // ---- score modifiers: scale, softcap, ALiBi, bias / mask, visibility (log2 domain) ----
    const Float32 qk_scale = sm_scale * q_descale * k_descale;
    const bool plain =
        !s.softcap && s.alibi == FlashAttnProblem::Alibi::none && s.bias == AttnBiasKind::none;
    // Plain scores stay raw products: the softmax step scales them by s_to_log2 inside its
    // exp2 argument (one fma) and its maximum once per query (online_softmax.hpp; > 0 since
    // sm_scale and the descales are validated > 0).
    const Float32 s_to_log2 = plain ? qk_scale * Float32(log2e) : qk_scale;
    const Float32 slope =
        s.alibi == FlashAttnProblem::Alibi::per_head ? SlopesP.load(h) : alibi_slope;
    // (the bias of query head `head`: the workgroup's h, or a packed row's own head)
    const auto bias_at = [&](const Int32& i32, const Int32& j32, const Int32& head) {
      const Int64 i = cast<i64>(i32), j = cast<i64>(j32);
      Float32 r(0.0f);
      const auto of = [&]<class T>(Tag<T>) {
        const BiasSource<T> src{GlobalPtr<T>(BiasP.offset(Int64(0)).ir(), elem_bytes<T>())
                                    .offset(cast<i64>(head) * bias_sh),
                                bias_sq, bias_sk, Sq, Sk};
        r = src.value(i, j);
      };
      switch (s.bias_dtype) {
      case DType::f32:
        of(Tag<f32>{});
        break;
      case DType::f16:
        of(Tag<f16>{});
        break;
      case DType::bf16:
        of(Tag<bf16>{});
        break;
      case DType::uint8:
        of(Tag<u8>{});
        break;
      case DType::int8:
        of(Tag<i8>{});
        break;
      default:
        throw std::invalid_argument("flash_attn kernel: bias dtype " +
                                    std::string(dtype_name(s.bias_dtype)) + " is not supported");
      }
      return r;
    };
    const Float32 neg_inf(-std::numeric_limits<float>::infinity());
    // Scores of one block in the log2 domain; `masked`: hide the keys a row does not see.
    const auto scores = [&](const auto& acc, const Int32& key0, bool masked) {
      return map(s_f32, acc, [&](const Float32& x, const Int32& r, const Int32& c) {
        const Int32 p = row0_32 + c, j = key0 + r;
        const Int32 i = packed ? packed->query(p) : p;
        Float32 sc = plain ? x : x * s_to_log2;
        if (!plain) {
          if (s.softcap)
            sc = softcap_score(sc, inv_softcap, softcap);
          if (s.alibi != FlashAttnProblem::Alibi::none)
            sc = sc + alibi_term(packed && s.alibi == FlashAttnProblem::Alibi::per_head
                                     ? SlopesP.load(packed->head(p))
                                     : slope,
                                 i, j, sq32, sk32);
          Bool keep_mask(true);
          const auto bias = [&] { return bias_at(i, j, packed ? packed->head(p) : h); };
          if (s.bias == AttnBiasKind::additive)
            sc = sc + bias();
          else if (s.bias == AttnBiasKind::bool_mask)
            keep_mask = bias() != Float32(0.0f);
          sc = select(keep_mask, sc * Float32(log2e), neg_inf);
        }
        return masked ? select(vis.visible(i, j), sc, neg_inf) : sc;
      });
    };

    const Dropout dropout{(cast<i64>(b) * Hq + cast<i64>(packed ? hk * group : h)) * Sq,
                          Sk,
                          cast<u64>(drop_seed),
                          cast<u64>(drop_offset),
                          cast<u32>(drop_threshold),
                          drop_inv_keep};

    // int8: P's quantization scale (attn_products.hpp), undone in the epilogue
    const Float32 p_scale = [&]() -> Float32 {
      if constexpr (Products::integer)
        return Products::p_quant_scale(s.dropout, drop_inv_keep);
      else
        return Float32(1.0f);
    }();

    // Lazy rescaling (online_softmax.hpp): the reference maximum moves only when a block's
    // maximum exceeds it by more than 8 (log2 units), so P <= 2^8 and O's rescale is skipped
    // by every wave none of whose maxima jumped that far. Not for int8 (P's quantization rule
    // needs P <= 1) nor with dropout (P / (1 - p) would approach f16 / fp8 overflow).
    const float rescale_slack = Products::integer || s.dropout ? 0.0f : 8.0f;

    // The first query (tile column) of this wave's 16 in S^T.
    const Int32 wave_q0 = s_f32.wave_coord().second * Int32(16);

    // The blocks that need no mask (per wave: its own 16 queries; packed rows: the whole
    // tile), bounds computed once before the loop.
    const VisibleKeys::WholeBlocks whole = packed ? vis.whole_blocks(vis_row0, block_q, kb)
                                                  : vis.whole_blocks(vis_row0 + wave_q0, 16, kb);

    using OFrag = typename decltype(o_f32)::CFrag;
    using Row = RegTensor<f32, 1, 1>;
    // ---- epilogue block: normalized O (each pass's slice) and lse, or the split's partials ----
    const Float32 pv_scale = [&]() -> Float32 {
      if constexpr (Products::integer)
        return v_descale * rcp(p_scale);
      else
        return v_descale;
    }();
    const Float32 zero(0.0f);
    // O^T leaves as O (an interior tile without masks: one uniform branch)
    // A bf16 O rounds in a lane whose values are all finite without a NaN check
    // (to_bf16_rne_nan_unchecked, exact for every non-NaN f32: 2.5 VALU per value with the
    // packing), and in the other lanes with NaN kept as the quiet NaN (QuietNanBf16Convert:
    // 4.5 VALU and a VCC wait per value). The lane's probe fma(x, 0, p) over its values is NaN
    // exactly when one of them is NaN or infinite (x * 0 is +-0 for every finite x).
    const QuietNanBf16Convert out_convert;
    const auto unchecked_convert = []<ElemType Out, ElemType In>(std::type_identity<Out>,
                                                                 const Scalar<In>& x) {
      if constexpr (std::same_as<Out, bf16> && std::same_as<In, f32>)
        return to_bf16_rne_nan_unchecked(x);
      else
        return cast<Out>(x);
    };
    const auto all_finite = [](const OFrag& o) {
      std::array<Float32, 4> probe{Float32(0.0f), Float32(0.0f), Float32(0.0f), Float32(0.0f)};
      int n = 0;
      for (int i = 0; i < OFrag::tile_rows; ++i)
        for (int j = 0; j < OFrag::tile_cols; ++j)
          for (int v = 0; v < OFrag::values_per_tile; ++v, ++n)
            probe[n % 4] = fma(o.at(i, j)[v], Float32(0.0f), probe[n % 4]);
      return (probe[0] + probe[1]) + (probe[2] + probe[3]) == Float32(0.0f);
    };
    const auto store_with = [&](const OFrag& o, const auto& tile, const auto& convert) {
      if_(
          tile.whole(), [&] { o_f32.store_transposed(o, assume_whole(tile), convert); },
          [&] { o_f32.store_transposed(o, tile, convert); });
    };
    const auto store_tile = [&](const OFrag& o, const auto& tile) {
      using Out = typename std::remove_cvref_t<decltype(tile)>::elem_type;
      if constexpr (std::same_as<Out, bf16>)
        if_(
            all_finite(o), [&] { store_with(o, tile, unchecked_convert); },
            [&] { store_with(o, tile, out_convert); });
      else
        store_with(o, tile, out_convert);
    };
    // ---- the KV loop: the algorithm ----
    Row m_fin, l_fin;
    for (int vp = 0; vp < Dvp / o_dims; ++vp) { // passes over the keys (one but for D = 256)
      const auto [o_acc, m_pass, l_pass, blocks_done] = pipeline<n_stages>(
          num_blocks,
          carry(o_f32.make_accumulator(0.0f), Row::filled(neg_inf), Row::filled(0.0f), Int32(0)),
          fetch, commit, [&](const Int32& stage, OFrag o, Row m, Row l, Int32 t) {
            const auto sK = lds_view<E, kb, Dp>(lds.template tile<"sK">(stage));
            const auto st = Products::scores([&](int ks) { return s_mma.load_a(sK, ks); }, qf);
            // V^T's operand tiles (of the pass's first pv_pass value dims), in flight while the
            // softmax is computed
            const auto vt = kv.template load_vt<Atom, kb, pv_pass>(
                first_block + t, s.v_transpose_loads, Int32(vp * pv_per_o));
            const Int32 key0 = (first_block + t) * kb;
            // Interior blocks take the unmasked path; only the edges pay for the mask. The test
            // is per wave (its own 16 queries; packed rows: the whole tile): on the causal
            // diagonal a wave whose queries see the whole block skips the mask (wave-uniform).
            const auto sc = if_(
                whole.contains(key0), [&] { return scores(st, key0, false); },
                [&] { return scores(st, key0, true); });
            auto sm =
                online_softmax_step(sc, plain ? s_to_log2 : Float32(1.0f), m, l, rescale_slack);
            if (s.dropout) // P of P V only (m and l keep every probability)
              sm.p = map(s_f32, sm.p, [&](const Float32& p, const Int32& r, const Int32& c) {
                const Int32 row = row0_32 + c; // packed: (group head, query) -> g * Sq + i
                return dropout.apply(
                    p, packed ? packed->group_head(row) * cast<i32>(Sq) + packed->query(row) : row,
                    key0 + r);
              });
            Products::template rescale_and_accumulate_pv_passes<pv_pass>(
                o, t, sm.alpha, vt,
                [&](int pass) {
                  return kv.template load_vt<Atom, kb, pv_pass>(
                      first_block + t, s.v_transpose_loads, Int32(vp * pv_per_o + pass));
                },
                sm.p, p_scale);
            return carry(o, sm.m, sm.l, t + 1);
          });
      (void)blocks_done;
      m_fin = m_pass; // the same in every pass
      l_fin = l_pass;

      if (!s.split) {
        RegTensor<f32, 1, 1> inv_l;
        inv_l(0, 0) = select(l_fin(0, 0) == zero, zero, pv_scale * rcp(l_fin(0, 0)));
        const OFrag o_n =
            broadcast_cols(o_acc, inv_l, [](const Float32& x, const Float32& a) { return x * a; });
        with_out_elem(s.out, [&]<class O>(Tag<O>) {
          if (packed) {
            o_f32.store_transposed(
                o_n,
                local_tile<block_q, o_dims>(packed->tensor(GlobalPtr<O>(Op.ir(), elem_bytes<O>()),
                                                           bq * o_sb + seq.q_first * o_ss, Dv, o_ss,
                                                           o_sh),
                                            qt, vp),
                out_convert);
            return;
          }
          const GlobalTensor<O> out =
              head_tensor(GlobalPtr<O>(Op.ir(), elem_bytes<O>()),
                          bq * o_sb + seq.q_first * o_ss + cast<i64>(h) * o_sh, seq.sq, Dv, o_ss);
          store_tile(o_n, local_tile<block_q, o_dims>(out, qt, vp));
        });
      }
      if (s.split) {
        // o_part [S, B, Hq, Sq, Dv]: the unnormalized O (times v_descale) of this split.
        const OFrag o_s = broadcast_cols(o_acc, RegTensor<f32, 1, 1>::filled(pv_scale),
                                         [](const Float32& x, const Float32& a) { return x * a; });
        const Int64 sb = (cast<i64>(split) * B + cast<i64>(b)) * Hq;
        if (packed) {
          o_f32.store_transposed(
              o_s, local_tile<block_q, o_dims>(packed->tensor(OPart, sb * Sq * Dv, Dv, Dv, Sq * Dv),
                                               qt, vp));
        } else {
          const Int64 base = (sb + cast<i64>(h)) * Sq * Dv;
          const GlobalTensor<f32> part = head_tensor(OPart, base, seq.sq, Dv, Dv);
          store_tile(o_s, local_tile<block_q, o_dims>(part, qt, vp));
        }
      }
    }
    // Per query (lanes of the first half-wave): lse, or m and l of the split.
    const auto [wm, wn] = o_f32.wave_coord();
    (void)wm;
    const Int32 lane = lane_id();
    const Int64 p = row0 + cast<i64>(wn * 16 + (lane & 15));
    if_(lane < 16 && p < (packed ? packed->rows() : seq.sq), [&] {
      // the row's query head and query (packed: from the tile row)
      const Int32 row_head = packed ? packed->head(cast<i32>(p)) : h;
      const Int64 i = packed ? cast<i64>(packed->query(cast<i32>(p))) : p;
      const Float32 m_nat = m_fin(0, 0) * Float32(ln2);
      if (s.split) {
        const Int64 row =
            ((cast<i64>(split) * B + cast<i64>(b)) * Hq + cast<i64>(row_head)) * Sq + i;
        MPart.store(row, m_nat);
        LPart.store(row, l_fin(0, 0));
      } else if (s.lse) {
        const Float32 lse =
            select(l_fin(0, 0) == zero, neg_inf, m_nat + log2(l_fin(0, 0)) * Float32(ln2));
        LseP.store(cast<i64>(b) * lse_sb + cast<i64>(row_head) * lse_sh + seq.q_first + i, lse);
      }
    });
  });
  return kb_.finish();
}

// Head dims the composition is instantiated for (multiples of 32; 160 and 224 pad to the next).
template <class F>
void with_head_pad(int pad, const char* what, F&& fn) {
  switch (pad) {
  case 32:
    return fn(std::integral_constant<int, 32>{});
  case 64:
    return fn(std::integral_constant<int, 64>{});
  case 96:
    return fn(std::integral_constant<int, 96>{});
  case 128:
    return fn(std::integral_constant<int, 128>{});
  case 192:
    return fn(std::integral_constant<int, 192>{});
  case 256:
    return fn(std::integral_constant<int, 256>{});
  default:
    throw std::invalid_argument(std::string("flash_attn kernel: ") + what + " padded to " +
                                std::to_string(pad) + " is not an instantiated head width");
  }
}

// One head width for Q/K and V (the larger of the two padded dims): 6 instantiations per atom
// and query tile instead of 36 (compile time); a narrower V head costs zero columns of PV, not
// correctness.
template <class Atom>
ir::Kernel build_atom(const FlashAttnKernelSpec& s) {
  if (s.head_dim_pad != s.head_dim_v_pad)
    throw std::invalid_argument("flash_attn kernel: head_dim_pad and head_dim_v_pad must be "
                                "equal (spec_of pads both to the larger)");
  if (s.waves != 4 && s.waves != 8)
    throw std::invalid_argument("flash_attn kernel: waves is " + std::to_string(s.waves) +
                                "; expected 4 (64-row query tiles) or 8 (128-row ones)");
  ir::Kernel k;
  with_head_pad(s.head_dim_pad, "head_dim", [&](auto dp) {
    constexpr int d = decltype(dp)::value;
    k = s.waves == 8 ? build_body<Atom, d, d, 8>(s) : build_body<Atom, d, d, 4>(s);
  });
  return k;
}

} // namespace body

} // namespace tw::kernels::flash_attn_kernel
