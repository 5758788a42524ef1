#pragma once
// Attention block: where the keys and values of one (sequence, kv head) are. Dense and varlen
// sequences keep a head's rows equally spaced (a GlobalTensor, head_tensor); a paged KV cache
// scatters them over pages of page_size tokens named by a block table (a RowGatheredTensor
// with the PagedRows row map, dsl/tensor/gathered_rows.hpp). Pools are
// [num_pages, page_size, Hkv, D]: page stride, token stride, head stride.
// The block table of sequence b is its own row of a dense [B, max_blocks] table, or its
// slice indices[indptr[b] ..] of the CSR form; the sequence's key count is seqlens_k[b].
// The KV loop asks only for the copy registers of one K block (load_k) and the PV operand
// tiles of one V block (load_vt): nothing else in the kernel depends on where the rows are.
#include <kernels/attention/blocks/attn_sequence.hpp>

#include <dsl/copy/buffer_clipped_tile.hpp>
#include <dsl/copy/buffer_global_tile.hpp>
#include <dsl/copy/transpose_load.hpp>
#include <dsl/tensor/gathered_rows.hpp>
#include <dsl/tensor/whole_tile.hpp>

#include <optional>
#include <tuple>
#include <utility>

namespace tw::kernels::attention_blocks {

// The pages of one sequence and its key count.
struct PagedSequence {
  GlobalPtr<i32> pages; // the sequence's block table row
  Int64 sk;
};

// `csr`: table holds the indices of the CSR form (row b starts at indptr[b]); otherwise it is
// the dense [B, max_blocks] table with row stride table_stride.
inline PagedSequence paged_sequence(bool csr, const GlobalPtr<i32>& table,
                                    const GlobalPtr<i32>& indptr, const Int64& table_stride,
                                    const GlobalPtr<i32>& seqlens_k, const Int32& b) {
  const Int64 first = csr ? cast<i64>(indptr.load(b)) : cast<i64>(b) * table_stride;
  return {table.offset(first), cast<i64>(seqlens_k.load(b))};
}

// The sequence of a paged problem: queries dense (Sq each) or varlen (cu_q), keys from its pages.
inline AttnSequence paged_attn_sequence(bool varlen, const GlobalPtr<i32>& cu_q, const Int64& sq,
                                        const PagedSequence& pages, const Int32& b) {
  if (!varlen)
    return {Int64(0), Int64(0), sq, pages.sk};
  const Int64 q0 = cast<i64>(cu_q.load(b)), q1 = cast<i64>(cu_q.load(b + 1));
  return {q0, Int64(0), q1 - q0, pages.sk};
}

template <ElemType T>
class KvSource {
public:
  using Paged = RowGatheredTensor<T, PagedRows>;

  // Rows equally spaced (dense or varlen).
  static KvSource contiguous(GlobalTensor<T> k, GlobalTensor<T> v) {
    KvSource s;
    s.k_ = std::move(k);
    s.v_ = std::move(v);
    return s;
  }
  // A paged cache: `k_head` / `v_head` point at the kv head's first element of page 0 (the
  // base plus head * head stride); strides in elements.
  static KvSource paged(const PagedSequence& seq, const Int32& page_size,
                        const GlobalPtr<T>& k_head, const Int64& k_page_stride,
                        const Int64& k_token_stride, const Int64& d, const GlobalPtr<T>& v_head,
                        const Int64& v_page_stride, const Int64& v_token_stride, const Int64& dv) {
    KvSource s;
    s.pk_map_.emplace(PagedRows{seq.pages, page_size, k_page_stride, k_token_stride});
    s.pk_.emplace(k_head, seq.sk, d, *s.pk_map_);
    s.pv_map_.emplace(PagedRows{seq.pages, page_size, v_page_stride, v_token_stride});
    s.pv_.emplace(v_head, seq.sk, dv, *s.pv_map_);
    return s;
  }

  // The copy registers of K block `block` (rows block * R .., R x C; rows past the sequence
  // and columns past the head read 0). `clipped` (contiguous rows that meet
  // buffer_clipped_tile's requirements, checked on the host): every block, the edge and the
  // ones past the sequence included, through one clipped buffer descriptor: no mask, no
  // branch, no 64-bit VALU address (dsl/copy/buffer_clipped_tile.hpp). Otherwise contiguous
  // rows whose starts are 16-byte aligned (the copy's 128-bit runs): a whole block through a
  // buffer resource at its first row (dsl/copy/buffer_global_tile.hpp), an edge block masked.
  template <int R, int C, class Copy>
  auto load_k(const Copy& copy, const Int32& block, bool clipped = false) const {
    if (pk_)
      return copy.load(local_tile<R, C>(*pk_, block, 0));
    if (clipped)
      return copy.load(buffer_clipped_tile<R, C>(k_, block, 0));
    if (k_.ptr().align() >= 16)
      return copy.load(buffer_local_tile<R, C>(k_, block, 0));
    return copy.load(local_tile<R, C>(k_, block, 0));
  }

  // K of block `block` (keys block * KB ..) as the A operand tiles of S^T = K Q^T for the KS k
  // steps of head dims dim_tile * 16 KS .. (a wave that owns one slice of the head's width,
  // MLA), read straight into registers (runs of up to 16 bytes per lane; keys past the sequence
  // read 0). A whole block (every key in the sequence) takes one uniform branch to unmasked
  // loads (assume_whole's WholeTile): with no per-run branch, the KS runs of one row share its
  // row offset (pages: one block-table read per row instead of one per run).
  template <class Atom, int KB, int KS>
  std::array<MmaFragment<Atom, MmaOperand::A, KB / 16, 1>, KS>
  load_k_operands(const Int32& block, const Int32& dim_tile) const {
    using E = typename MmaOperandTraits<Atom, MmaOperand::A>::elem;
    using Frag = MmaFragment<Atom, MmaOperand::A, KB / 16, 1>;
    const GlobalPtr<E> p(k_ptr().ir(), k_ptr().align());
    const auto read = [&](const auto& k) {
      const auto tile = local_tile<KB, 16 * KS>(k, block, dim_tile);
      // the KS fragments as a tuple (what if_ yields), step ks from tile view t
      const auto steps = [&](const auto& t) {
        return [&]<std::size_t... S>(std::index_sequence<S...>) {
          const auto step = [&](int ks) {
            Frag f;
            for (int i = 0; i < KB / 16; ++i)
              f.at(i, 0) =
                  load_operand<Atom, MmaOperand::A>(t, Int32(16 * i), Int32(16 * ks), false);
            return f;
          };
          return std::tuple{step(int(S))...}; // braced: steps traced in order
        }
        (std::make_index_sequence<KS>{});
      };
      using Tile = std::remove_cvref_t<decltype(tile)>;
      const auto got = if_(
          tile.whole(), [&] { return steps(WholeTile<Tile>(tile)); }, [&] { return steps(tile); });
      std::array<Frag, KS> f;
      [&]<std::size_t... S>(std::index_sequence<S...>) {
        ((f[S] = std::get<S>(got)), ...);
      }
      (std::make_index_sequence<KS>{});
      return f;
    };
    if (pk_)
      return read(RowGatheredTensor<E, PagedRows>(p, pk_->rows(), pk_->cols(), *pk_map_));
    return read(GlobalTensor<E>(p, k_.rows(), k_.cols(), k_.row_stride(), k_.col_stride()));
  }

  // V^T of KV block `block` (keys block * KB ..) as the A operand tiles of O^T = V^T P^T:
  // value dims x keys, DVP / 16 x KB / 16 atom tiles, read straight into registers (V never
  // passes through LDS). `transpose_loads`: gfx12 transpose loads, one per tile (the host
  // promises 16-byte aligned rows and a value head a multiple of 8 wide; pages: each lane's row
  // through the block table). The edge block (past the last key or the value head) takes their
  // clamped form: its missing elements are copies of real V elements, which is exact here
  // because keys past the sequence have P = 0 (masked scores) and value dims past the head only
  // make O columns that are never stored. Otherwise element-wise loads (unaligned V), which
  // read the missing elements as 0.
  // `dim_tile`: value dims dim_tile * DVP .. of the head (a wave that owns one slice of the
  // value head, MLA; 0 otherwise).
  template <class Atom, int KB, int DVP>
  MmaFragment<Atom, MmaOperand::A, DVP / 16, KB / 16>
  load_vt(const Int32& block, bool transpose_loads, const Int32& dim_tile = Int32(0)) const {
    using E = typename MmaOperandTraits<Atom, MmaOperand::A>::elem; // e4m3 / e5m2 of i8 codes
    using Frag = MmaFragment<Atom, MmaOperand::A, DVP / 16, KB / 16>;
    const GlobalPtr<E> p(v_ptr().ir(), v_ptr().align());
    const auto read = [&](const auto& v) {
      if (!transpose_loads) { // tile: KB keys x DVP dims in V's own order
        const auto tile = local_tile<KB, DVP>(v, block, dim_tile);
        Frag f;
        for (int i = 0; i < DVP / 16; ++i)
          for (int ks = 0; ks < KB / 16; ++ks)
            f.at(i, ks) =
                load_operand<Atom, MmaOperand::A>(tile, Int32(16 * i), Int32(16 * ks), true);
        return f;
      }
      const Int64 key0 = cast<i64>(block) * Int64(KB), c0 = cast<i64>(dim_tile) * Int64(DVP);
      const auto transposed = [&](bool edge) {
        Frag f;
        for (int i = 0; i < DVP / 16; ++i)
          for (int ks = 0; ks < KB / 16; ++ks) {
            const Int64 k0 = key0 + Int64(16 * ks), d0 = c0 + Int64(16 * i);
            f.at(i, ks) = edge ? load_operand_transposed_clamped<Atom, MmaOperand::A>(v, k0, d0)
                               : load_operand_transposed<Atom, MmaOperand::A>(v, k0, d0);
          }
        return f;
      };
      // (the columns compared in 32 bits: one SALU compare, where a 64-bit <= is a VALU one)
      const Bool whole =
          (key0 + Int64(KB) <= v.rows()) && (cast<i32>(c0) + Int32(DVP) <= cast<i32>(v.cols()));
      return if_(
          whole, [&] { return transposed(false); }, [&] { return transposed(true); });
    };
    if (pv_)
      return read(RowGatheredTensor<E, PagedRows>(p, pv_->rows(), pv_->cols(), *pv_map_));
    return read(GlobalTensor<E>(p, v_.rows(), v_.cols(), v_.row_stride(), v_.col_stride()));
  }

private:
  const GlobalPtr<T>& v_ptr() const { return pv_ ? pv_->ptr() : v_.ptr(); }
  const GlobalPtr<T>& k_ptr() const { return pk_ ? pk_->ptr() : k_.ptr(); }

  GlobalTensor<T> k_, v_;
  std::optional<Paged> pk_, pv_;
  std::optional<PagedRows> pk_map_, pv_map_;
};

} // namespace tw::kernels::attention_blocks
