// The linear attention composition (see linear_attn_kernel.hpp), written only with the DSL.
#include <kernels/attention/blocks/attn_sequence.hpp>
#include <kernels/attention/linear_attn_kernel.hpp>
#include <kernels/common/elem_dispatch.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/copy/transpose_load.hpp>
#include <dsl/dsl.hpp>

#include <stdexcept>

namespace tw::kernels::linear_attn_kernel {

using namespace tw::dsl;
using attention_blocks::head_tensor;

namespace {

template <class F>
void with_out_elem(DType t, F&& fn) {
  with_elem_among<bf16, f16, f32>(t, std::forward<F>(fn), [](DType d) {
    return "linear_attn kernel: output dtype " + std::string(dtype_name(d)) +
           " is not bf16, f16 or f32";
  });
}

template <class Atom, int R>
ir::Kernel build_body(const LinearAttnKernelSpec& s) {
  using E = typename MmaAtomLanes<Atom>::a_elem;
  constexpr int Dp = 16 * R;
  // Every product is 16 x 16 tiles on one wave; the state is D x 16 (R atoms down).
  constexpr auto mma = make_tiled_mma(Atom{}, wave_layout<1, 1>, repeat<1, 1>);
  constexpr auto state_mma = make_tiled_mma(Atom{}, wave_layout<1, 1>, repeat<R, 1>);
  const int vt = s.value_tile();

  KernelBuilder kb(s.name(), {32, 1, 1});
  auto [Qp, Kp, Vp, Op, DecayP, S, Hq, Hkv, D, Dv, q_sb, q_ss, q_sh, k_sb, k_ss, k_sh, v_sb, v_ss,
        v_sh, o_sb, o_ss, o_sh, scale, eps] =
      kb.args(gptr<u8>("q"), gptr<u8>("k"), gptr<u8>("v"), gptr<u8>("out"), gptr<f32>("decay"),
              scalar<i64>("seqlen"), scalar<i64>("heads_q"), scalar<i64>("heads_kv"),
              scalar<i64>("head_dim"), scalar<i64>("head_dim_v"), scalar<i64>("q_sb"),
              scalar<i64>("q_ss"), scalar<i64>("q_sh"), scalar<i64>("k_sb"), scalar<i64>("k_ss"),
              scalar<i64>("k_sh"), scalar<i64>("v_sb"), scalar<i64>("v_ss"), scalar<i64>("v_sh"),
              scalar<i64>("o_sb"), scalar<i64>("o_ss"), scalar<i64>("o_sh"), scalar<f32>("scale"),
              scalar<f32>("eps"));
  auto [CuSeqlens] = kb.args(gptr<i32>("cu_seqlens")); // varlen only (0 otherwise)
  const Int64 tile = cast<i64>(block_id(ir::Dim::x)), h = cast<i64>(block_id(ir::Dim::y)),
              b = cast<i64>(block_id(ir::Dim::z));
  const Int64 hk = h / (Hq / Hkv); // GQA: the kv head of query head h
  const Int64 col0 = tile * Int64(vt);
  const Int64 cols = min(Int64(vt), Dv - col0);
  // (clipped: q and k 16-byte aligned, base and rows; V below keeps element alignment: its
  // column offset col0 is not a multiple of 8 with the normalizer, and its loads are
  // element-wise)
  const auto typed = [&](const GlobalPtr<u8>& p) {
    return GlobalPtr<E>(p.ir(), s.clipped ? 16 : elem_bytes<E>());
  };
  // The sequence: batch b at batch strides, or (varlen) tokens cu[b] .. cu[b + 1] - 1.
  const attention_blocks::AttnSequence seq =
      s.varlen ? attention_blocks::varlen_sequence(CuSeqlens, CuSeqlens, cast<i32>(b))
               : attention_blocks::dense_sequence(S, S);
  const Int64 first = seq.q_first, len = seq.sq;
  const Int64 bq = s.varlen ? Int64(0) : b;
  const GlobalTensor<E> q =
      head_tensor(typed(Qp), bq * q_sb + first * q_ss + h * q_sh, len, D, q_ss);
  const GlobalTensor<E> k =
      head_tensor(typed(Kp), bq * k_sb + first * k_ss + hk * k_sh, len, D, k_ss);
  const GlobalTensor<E> v =
      head_tensor(GlobalPtr<E>(Vp.ir(), elem_bytes<E>()),
                  bq * v_sb + first * v_ss + hk * v_sh + col0, len, cols, v_ss);
  // log2(lambda): lambda^n = exp2(n * log2(lambda)); 0 without decay.
  const Float32 log2_decay = s.decay ? log2(DecayP.load(h)) : Float32(0.0f);
  const auto decay_pow = [&](const Float32& n) {
    return s.decay ? exp2(n * log2_decay) : Float32(1.0f);
  };
  const Float32 chunk_decay = decay_pow(Float32(float(chunk)));
  const Int32 chunks = cast<i32>((len + Int64(chunk - 1)) / Int64(chunk));
  const int ones_col = vt; // the normalizer's column (normalize: 15)

  using SAFrag = typename decltype(state_mma)::AFrag;
  auto [state] = for_range(
      Int32(0), chunks, Int32(1), carry(state_mma.make_accumulator(0.0f)),
      [&](const Int32& c, auto st) {
        // P^T = K Q^T (keys x queries) and S^T Q^T (value columns x queries), k step by k step:
        // each Q^T fragment (the B operand of both) is read once and used twice.
        auto pt = mma.make_accumulator(0.0f);
        auto ot = mma.make_accumulator(0.0f);
        const auto qk_products = [&](const auto& q_tile, const auto& k_tile) {
          for (int ks = 0; ks < R; ++ks) {
            const auto qf = mma.load_b(q_tile, ks);
            gemm(mma, mma.load_a(k_tile, ks), qf, pt);
            gemm(mma, accumulator_as_operand<MmaOperand::A>(state_mma, st, mma, ks), qf, ot);
          }
        };
        if (s.clipped)
          qk_products(buffer_clipped_tile<chunk, Dp>(q, c, 0),
                      buffer_clipped_tile<chunk, Dp>(k, c, 0));
        else
          qk_products(local_tile<chunk, Dp>(q, c, 0), local_tile<chunk, Dp>(k, c, 0));
        // scaled, decayed and causal
        pt = map(mma, pt, [&](const Float32& x, const Int32& j, const Int32& i) {
          return select(j <= i, x * scale * decay_pow(cast<f32>(i - j)), Float32(0.0f));
        });
        // V_c as an accumulator (keys x value columns); past the sequence / the tile it reads
        // 0, and the normalizer's column is 1 (rows past the sequence meet zero K rows).
        const auto v_value = [&](const auto& v_tile) {
          return map(
              mma, mma.make_accumulator(0.0f), [&](const Float32&, const Int32& j, const Int32& n) {
                const Float32 x = cast<f32>(Scalar<E>(v_tile.template load_run<1>(j, n).ir()));
                return s.normalize ? select(n == ones_col, Float32(1.0f), x) : x;
              });
        };
        const auto vc = s.clipped ? v_value(buffer_clipped_tile<chunk, 16>(v, c, 0))
                                  : v_value(local_tile<chunk, 16>(v, c, 0));
        // O^T = S^T Q^T * scale * lambda^(i + 1) + V^T P^T (value columns x queries).
        ot = map(mma, ot, [&](const Float32& x, const Int32&, const Int32& i) {
          return x * scale * decay_pow(cast<f32>(i + 1));
        });
        gemm(mma, accumulator_as_operand<MmaOperand::A>(mma, vc, mma, 0),
             accumulator_as_operand<MmaOperand::B>(mma, pt, mma, 0), ot);
        if (s.normalize) {
          const auto den = reduce_cols(map(mma, ot,
                                           [&](const Float32& x, const Int32& r, const Int32&) {
                                             return select(r == ones_col, x, Float32(0.0f));
                                           }),
                                       Reduce::sum);
          ot = broadcast_cols(ot, den,
                              [&](const Float32& x, const Float32& d) { return x / (d + eps); });
        }
        // O^T leaves as O: a lane's values are consecutive value columns of one query.
        with_out_elem(s.out, [&]<class O>(Tag<O>) {
          const GlobalTensor<O> out =
              head_tensor(GlobalPtr<O>(Op.ir(), elem_bytes<O>()),
                          bq * o_sb + first * o_ss + h * o_sh + col0, len, cols, o_ss);
          mma.store_transposed(ot, local_tile<chunk, 16>(out, c, 0));
        });
        // S = lambda^16 S + K^T (lambda^(15 - j) V_c).
        if (s.decay)
          st = map(state_mma, st,
                   [&](const Float32& x, const Int32&, const Int32&) { return x * chunk_decay; });
        const auto vd = s.decay ? map(mma, vc,
                                      [&](const Float32& x, const Int32& j, const Int32&) {
                                        return x * decay_pow(cast<f32>(Int32(chunk - 1) - j));
                                      })
                                : vc;
        // K^T's A operand: head dims x keys. Clipped: one transpose load per tile, clamped
        // into k (no mask): the copies of k's elements it reads past the head's last dim land in
        // state rows that only ever meet Q's zero columns (Q's dims past the head read 0), and
        // those past the last key only in the update after the last chunk, which nothing reads.
        const auto kt = [&] {
          if (!s.clipped)
            return state_mma.load_a(local_tile<Dp, chunk>(k.transposed(), 0, c), 0);
          SAFrag f;
          for (int i = 0; i < R; ++i)
            f.at(i, 0) = load_operand_transposed_clamped<Atom, MmaOperand::A>(
                k, cast<i64>(c) * Int64(chunk), Int64(16 * i));
          return f;
        }();
        gemm(state_mma, kt, accumulator_as_operand<MmaOperand::B>(mma, vd, state_mma, 0), st);
        return carry(st);
      });
  (void)state;
  return kb.finish();
}

template <class Atom>
ir::Kernel build_atom(const LinearAttnKernelSpec& s) {
  switch (s.head_dim_pad) {
  case 32:
    return build_body<Atom, 2>(s);
  case 64:
    return build_body<Atom, 4>(s);
  case 96:
    return build_body<Atom, 6>(s);
  case 128:
    return build_body<Atom, 8>(s);
  case 160:
    return build_body<Atom, 10>(s);
  case 192:
    return build_body<Atom, 12>(s);
  case 224:
    return build_body<Atom, 14>(s);
  case 256:
    return build_body<Atom, 16>(s);
  default:
    throw std::invalid_argument("linear_attn kernel: head_dim_pad " +
                                std::to_string(s.head_dim_pad) +
                                " is not a multiple of 32 from 32 to 256");
  }
}

} // namespace

int padded_head_dim(int64_t d) {
  return static_cast<int>((d + 31) / 32 * 32);
}

std::string LinearAttnKernelSpec::name() const {
  std::string n = "tw_linear_attn_";
  n += dtype_name(dtype);
  n += "_";
  n += dtype_name(out);
  n += "_d" + std::to_string(head_dim_pad);
  if (decay)
    n += "_decay";
  if (normalize)
    n += "_norm";
  if (varlen)
    n += "_varlen";
  if (clipped)
    n += "_clip";
  return n;
}

ir::Kernel build_linear_attn_kernel(const LinearAttnKernelSpec& spec) {
  if (spec.dtype == DType::bf16)
    return build_atom<atoms::wmma_f32_16x16x16_bf16>(spec);
  if (spec.dtype == DType::f16)
    return build_atom<atoms::wmma_f32_16x16x16_f16>(spec);
  throw std::invalid_argument("linear_attn kernel: input dtype " +
                              std::string(dtype_name(spec.dtype)) + " is not bf16 or f16");
}

} // namespace tw::kernels::linear_attn_kernel
