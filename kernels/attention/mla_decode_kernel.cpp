// The MLA decode composition (see mla_decode_kernel.hpp): the kernel body, written only with the
// DSL, and its spec name, compile and launch steps.
#include <kernels/attention/blocks/attn_products.hpp>
#include <kernels/attention/blocks/attn_sequence.hpp>
#include <kernels/attention/blocks/gqa_packing.hpp>
#include <kernels/attention/blocks/kv_source.hpp>
#include <kernels/attention/blocks/online_softmax.hpp>
#include <kernels/attention/blocks/visible_keys.hpp>
#include <kernels/attention/mla_decode_kernel.hpp>
#include <kernels/common/compile_traced.hpp>
#include <kernels/common/elem_dispatch.hpp>

#include <dsl/dsl.hpp>
#include <dsl/mma/scale_cols.hpp>
#include <dsl/mma/wave_private.hpp>

#include <limits>
#include <stdexcept>

namespace tw::kernels::mla_decode_kernel {

using namespace tw::dsl;
using namespace tw::kernels::attention_blocks;

namespace {

constexpr double log2e = 1.4426950408889634;
constexpr double ln2 = 0.6931471805599453;
constexpr int qk_steps = int(mla_qk_dim) / 16 / waves; // k steps of S^T per wave (9)
constexpr int v_slice = int(mla_v_dim) / waves;        // value dims per wave (128)
static_assert(qk_steps * 16 * waves == mla_qk_dim && v_slice * waves == mla_v_dim);

template <class Atom>
ir::Kernel build_body(const MlaDecodeKernelSpec& s) {
  using Lanes = MmaAtomLanes<Atom>;
  using E = typename Lanes::a_elem; // what the WMMA reads (bf16, f16, e4m3, e5m2, i8)
  // fp8 codes move through memory as i8 (like flash attention); Q is read as E.
  using LE = std::conditional_t<E::bits == 8, i8, E>;
  constexpr int kb = E::bits == 8 ? 64 : 32;
  // One-wave products (every wave runs them on its own slices): S^T partial (kb keys x 16
  // queries over 144 dims) and O^T (128 value dims x 16 queries).
  using Products = AttnProducts<Atom, 1, kb, v_slice>;
  constexpr auto s_mma = Products::s_mma;
  constexpr auto o_mma = Products::o_mma;
  constexpr auto s_f32 = Products::s_f32;
  using OAtom = typename Products::OF32::atom;
  static_assert(s_mma.tile_n == block_rows && o_mma.tile_n == block_rows);
  constexpr auto plan = lds_plan(lds_buffer<f32>("sS", waves * block_rows, kb, stages(2)));

  KernelBuilder kb_(s.name(), {threads, 1, 1});
  const int align = s.vec_aligned ? 16 : elem_bytes<LE>();
  auto [Qp, KVp, Op, LseP, OPart, MPart, LPart, PageTable, PageIndptr, SeqlensK] =
      kb_.args(gptr<u8>("q"), gptr<u8>("kv"), gptr<u8>("out"), gptr<f32>("lse"),
               gptr<f32>("o_part"), gptr<f32>("m_part"), gptr<f32>("l_part"),
               gptr<i32>("block_table"), gptr<i32>("block_table_indptr"), gptr<i32>("seqlens_k"));
  auto [B, Sq, Hq, q_sb, q_ss, q_sh, kv_sp, kv_ss, o_sb, o_ss, o_sh, lse_sb, lse_sh, table_stride,
        num_splits] =
      kb_.args(scalar<i64>("batch"), scalar<i64>("seqlen_q"), scalar<i64>("heads_q"),
               scalar<i64>("q_sb"), scalar<i64>("q_ss"), scalar<i64>("q_sh"), scalar<i64>("kv_sp"),
               scalar<i64>("kv_ss"), scalar<i64>("o_sb"), scalar<i64>("o_ss"), scalar<i64>("o_sh"),
               scalar<i64>("lse_sb"), scalar<i64>("lse_sh"), scalar<i64>("block_table_stride"),
               scalar<i64>("num_splits"));
  auto [page_size, sm_scale, q_descale, k_descale, v_descale] =
      kb_.args(scalar<i32>("page_size"), scalar<f32>("sm_scale"), scalar<f32>("q_descale"),
               scalar<f32>("k_descale"), scalar<f32>("v_descale"));

  const Int32 qt = block_id(ir::Dim::x), bz = block_id(ir::Dim::z);
  const Int32 splits = cast<i32>(num_splits);
  const Int32 b = s.split ? bz / splits : bz;
  const Int32 split = s.split ? bz % splits : Int32(0);
  const PagedSequence pages =
      paged_sequence(s.csr, PageTable, PageIndptr, table_stride, SeqlensK, b);
  const AttnSequence seq = paged_attn_sequence(false, SeqlensK, Sq, pages, b);
  // MQA: the tile rows are (query head, query) pairs of the one latent head (G = Hq)
  const PackedQueryRows packed{cast<i32>(Hq), Int32(0), cast<i32>(seq.sq)};
  const Int32 row0 = qt * Int32(block_rows);
  if_(cast<i64>(row0) < packed.rows(), [&] {
    const Int32 w = wave_id();
    const auto typed = [&]<class T>(const GlobalPtr<u8>& p, Tag<T>) {
      return GlobalPtr<T>(p.ir(), align);
    };
    const Int64 bq = cast<i64>(b);
    // Q's slice of this wave: the B operand of its 9 k steps
    const auto q_tile = local_tile<block_rows, 16 * qk_steps>(
        packed.tensor(typed(Qp, Tag<E>{}), bq * q_sb, Int64(mla_qk_dim), q_ss, q_sh), qt, w);
    std::array<typename decltype(s_mma)::BFrag, qk_steps> qf;
    for (int ks = 0; ks < qk_steps; ++ks)
      qf[static_cast<std::size_t>(ks)].at(0, 0) =
          load_operand<Atom, MmaOperand::B>(q_tile, Int32(16 * ks), Int32(0), true);

    // K (the whole row) and V (its first 512 dims) from the same pages
    const GlobalPtr<LE> kv_ptr = typed(KVp, Tag<LE>{});
    const KvSource<LE> kv =
        KvSource<LE>::paged(pages, page_size, kv_ptr, kv_sp, kv_ss, Int64(mla_qk_dim), kv_ptr,
                            kv_sp, kv_ss, Int64(mla_v_dim));

    const Int32 sq32 = cast<i32>(seq.sq), sk32 = cast<i32>(seq.sk);
    VisibleKeys vis{s.causal, s.split, Int32(-1), Int32(0), sq32, sk32, Int32(0), sk32};
    if (s.split) {
      const Int32 per = ceil_div(sk32, splits);
      vis.kv_lo = split * per;
      vis.kv_hi = min(sk32, vis.kv_lo + per);
    }
    // (every tile row is one of the sequence's sq <= 16 queries)
    const auto [first_block, num_blocks] = vis.blocks(Int32(0), block_rows, kb);

    // Raw products; the softmax step scales them into the log2 domain (online_softmax.hpp)
    const Float32 s_to_log2 = sm_scale * q_descale * k_descale * Float32(log2e);
    const Float32 neg_inf(-std::numeric_limits<float>::infinity());
    const Float32 p_scale = [&]() -> Float32 {
      if constexpr (Products::integer)
        return Products::p_quant_scale(false, Float32(1.0f));
      else
        return Float32(1.0f);
    }();

    auto lds = use_lds<plan>(kb_);
    using OFrag = typename Products::OF32::CFrag;
    using Row = RegTensor<f32, 1, 1>;
    const auto [o_acc, m_fin, l_fin] = for_range(
        Int32(0), num_blocks, Int32(1),
        carry(Products::o_f32.make_accumulator(0.0f), Row::filled(neg_inf), Row::filled(0.0f)),
        [&](const Int32& t, OFrag o, Row m, Row l) {
          const Int32 block = first_block + t;
          const auto kf = kv.template load_k_operands<Atom, kb, qk_steps>(block, w);
          const auto part = Products::scores([&](int ks) { return kf[size_t(ks)]; }, qf);
          const auto st = sum_over_waves(s_f32, part, lds.template tile<"sS">(t & 1));
          const Int32 key0 = block * kb;
          const auto scores = [&](bool masked) {
            return map_in_wave(s_f32, st, [&](const Float32& x, const Int32& r, const Int32& c) {
              return masked ? select(vis.visible(packed.query(row0 + c), key0 + r), x, neg_inf) : x;
            });
          };
          const auto sc = if_(
              vis.whole_block(Int32(0), block_rows, key0, kb), [&] { return scores(false); },
              [&] { return scores(true); });
          const auto sm = online_softmax_step(sc, s_to_log2, m, l);
          // V^T's tiles of this wave's value dims (loaded after the reduction and the softmax:
          // in flight across them they held 64 more VGPRs where K's tiles and S^T live)
          const auto vt = kv.template load_vt<Atom, kb, v_slice>(block, s.vec_aligned, w);
          Products::rescale_and_accumulate_pv(o, t, sm.alpha, vt, sm.p, p_scale);
          return carry(o, sm.m, sm.l);
        });

    // ---- epilogue: this wave's 128 value dims of O (or of the split's partial), m / l / lse
    const Float32 pv_scale = [&]() -> Float32 {
      if constexpr (Products::integer)
        return v_descale * rcp(p_scale);
      else
        return v_descale;
    }();
    const Float32 zero(0.0f);
    const auto store_slice = [&](const OFrag& o, const auto& tensor, const auto& convert) {
      const auto tile = local_tile<block_rows, v_slice>(tensor, qt, w);
      for (int i = 0; i < v_slice / 16; ++i)
        store_operand<OAtom, MmaOperand::C>(tile, o.at(i, 0), Int32(16 * i), Int32(0), true,
                                            convert);
    };
    if (!s.split) {
      RegTensor<f32, 1, 1> inv_l;
      inv_l(0, 0) = select(l_fin(0, 0) == zero, zero, pv_scale * rcp(l_fin(0, 0)));
      const OFrag o_n =
          broadcast_cols(o_acc, inv_l, [](const Float32& x, const Float32& a) { return x * a; });
      with_elem_among<bf16, f16>(
          s.out,
          [&]<class O>(Tag<O>) {
            store_slice(o_n,
                        packed.tensor(GlobalPtr<O>(Op.ir(), s.vec_aligned ? 16 : elem_bytes<O>()),
                                      bq * o_sb, Int64(mla_v_dim), o_ss, o_sh),
                        QuietNanBf16Convert{});
          },
          [](DType d) {
            return "mla_decode kernel: output dtype " + std::string(dtype_name(d)) +
                   " is not bf16 or f16";
          });
    } else {
      // o_part [S, B, Hq, Sq, 512]: the unnormalized O (times v_descale) of this split
      const OFrag o_s = broadcast_cols(o_acc, RegTensor<f32, 1, 1>::filled(pv_scale),
                                       [](const Float32& x, const Float32& a) { return x * a; });
      const Int64 sb = (cast<i64>(split) * B + bq) * Hq;
      store_slice(o_s,
                  packed.tensor(OPart, sb * Sq * Int64(mla_v_dim), Int64(mla_v_dim),
                                Int64(mla_v_dim), Sq * Int64(mla_v_dim)),
                  CastConvert{});
    }
    // Per query row (the first half-wave of wave 0; every wave holds the same m and l)
    const Int32 lane = lane_id();
    const Int32 p = row0 + (lane & 15);
    if_(w == 0 && lane < 16 && cast<i64>(p) < packed.rows(), [&] {
      const Int32 head = packed.head(p);
      const Int64 i = cast<i64>(packed.query(p));
      const Float32 m_nat = m_fin(0, 0) * Float32(ln2);
      if (s.split) {
        const Int64 row = ((cast<i64>(split) * B + bq) * Hq + cast<i64>(head)) * Sq + i;
        MPart.store(row, m_nat);
        LPart.store(row, l_fin(0, 0));
      } else if (s.lse) {
        const Float32 lse =
            select(l_fin(0, 0) == zero, neg_inf, m_nat + log2(l_fin(0, 0)) * Float32(ln2));
        LseP.store(bq * lse_sb + cast<i64>(head) * lse_sh + i, lse);
      }
    });
  });
  return kb_.finish();
}

} // namespace

int kv_block(DType dtype) {
  return dtype_bits(dtype) == 8 ? 64 : 32;
}

std::string MlaDecodeKernelSpec::name() const {
  std::string n = "tw_mla_decode_";
  n += dtype_name(dtype);
  n += "_";
  n += dtype_name(out);
  n += vec_aligned ? "_v" : "_s";
  if (causal)
    n += "_causal";
  if (lse)
    n += "_lse";
  if (split)
    n += "_split";
  n += csr ? "_pagedcsr" : "_paged";
  return n;
}

ir::Kernel build_mla_decode_kernel(const MlaDecodeKernelSpec& s) {
  switch (s.dtype) {
  case DType::bf16:
    return build_body<atoms::wmma_f32_16x16x16_bf16>(s);
  case DType::f16:
    return build_body<atoms::wmma_f32_16x16x16_f16>(s);
  case DType::e4m3:
    return build_body<atoms::wmma_f32_16x16x16_fp8_fp8>(s);
  case DType::e5m2:
    return build_body<atoms::wmma_f32_16x16x16_bf8_bf8>(s);
  case DType::int8:
    return build_body<atoms::wmma_i32_16x16x16_iu8>(s);
  default:
    throw std::invalid_argument("mla_decode kernel: dtype " + std::string(dtype_name(s.dtype)) +
                                " has no MLA composition");
  }
}

emit::CodeObject compile_mla_decode_kernel(const MlaDecodeKernelSpec& spec) {
  return compile_traced(spec.name(), [&] { return build_mla_decode_kernel(spec); });
}

runtime::KernelArgs mla_decode_kernel_args(const MlaDecodeLaunchArgs& g) {
  runtime::KernelArgs a;
  for (runtime::DevicePtr p : {g.q, g.kv, g.out, g.lse, g.o_part, g.m_part, g.l_part, g.block_table,
                               g.block_table_indptr, g.seqlens_k})
    a.ptr(p);
  for (int64_t x : {g.batch, g.seqlen_q, g.heads_q, g.q_sb, g.q_ss, g.q_sh, g.kv_sp, g.kv_ss,
                    g.o_sb, g.o_ss, g.o_sh, g.lse_sb, g.lse_sh, g.block_table_stride, g.num_splits})
    a.add<int64_t>(x);
  a.add<int32_t>(g.page_size);
  for (float x : {g.sm_scale, g.q_descale, g.k_descale, g.v_descale})
    a.add<float>(x);
  return a;
}

runtime::Dim3 mla_decode_grid(const MlaDecodeLaunchArgs& g) {
  return {static_cast<uint32_t>((g.heads_q * g.seqlen_q + block_rows - 1) / block_rows), 1u,
          static_cast<uint32_t>(g.batch * g.num_splits)};
}

void run_mla_decode_kernel(runtime::Device& device, const MlaDecodeKernelSpec& spec,
                           const MlaDecodeLaunchArgs& g) {
  const runtime::Dim3 grid = mla_decode_grid(g);
  if (grid.x == 0 || grid.z == 0)
    return;
  const runtime::KernelHandle kernel =
      traced_kernel(device, spec.name(), [&] { return build_mla_decode_kernel(spec); });
  const runtime::KernelArgs args = mla_decode_kernel_args(g);
  device.launch(kernel, grid, {static_cast<uint32_t>(threads)}, args.span());
  device.synchronize();
}

} // namespace tw::kernels::mla_decode_kernel
