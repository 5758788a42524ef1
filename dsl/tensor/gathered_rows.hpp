#pragma once
// Row-gathered tensors: a rows x cols view whose rows are not equally spaced. Row r starts at
// element row_map(r) of a base pointer and its columns are contiguous. The row map is any
// callable Int32 -> Int64 (element offset), e.g.
//   PagedRows: a paged KV cache, row r is slot r % page_size of page table[r / page_size]
//              (vLLM / FlashInfer block tables);
// local_tile<R, C> cuts an R x C GatheredTile out of it, which TiledCopy loads like a
// GlobalTile (runs of 128 bits, a uniform branch to unmasked loads for a whole tile).
//   const RowGatheredTensor k(ptr, seqlen, head_dim, PagedRows{table, page_size, page_stride,
//                                                              token_stride});
//   auto regs = copy_k.load(local_tile<32, 128>(k, block, 0));
// The row map is evaluated only for rows that exist (r < rows): a table is never read past
// its sequence's last row. A GatheredTile is also written like a GlobalTile (store, store_run:
// masked, elements past the tensor are not written), e.g. by TiledMMA::store_transposed; other
// row maps: FoldedRows (dsl/tensor/folded_rows.hpp).
#include <numeric>

#include <dsl/tensor/global_tensor.hpp>

namespace tw::dsl {

// A paged row map: logical row r lives in page table[r / page_size] at slot r % page_size;
// element offset page * page_stride + slot * row_stride. `table` is the sequence's own row of
// the block table (its first entry is the page of rows 0 .. page_size - 1).
struct PagedRows {
  GlobalPtr<i32> table;
  Int32 page_size;
  Int64 page_stride, row_stride;

  Int64 operator()(const Int32& r) const {
    // Unsigned: a row and a page size are never negative, and a power-of-two page size
    // then folds to a shift when it is a constant.
    const UInt32 ur = cast<u32>(r), ups = cast<u32>(page_size);
    const Int32 page = table.load(cast<i32>(ur / ups));
    return cast<i64>(page) * page_stride + cast<i64>(cast<i32>(ur % ups)) * row_stride;
  }
};

// rows x cols; element (r, c) at ptr + row_map(r) + c.
template <ElemType T, class RowMap>
class RowGatheredTensor {
public:
  using elem_type = T;
  RowGatheredTensor(GlobalPtr<T> ptr, Int64 rows, Int64 cols, RowMap row_map)
      : ptr_(ptr), rows_(rows), cols_(cols), map_(std::move(row_map)) {}

  const GlobalPtr<T>& ptr() const { return ptr_; }
  const Int64& rows() const { return rows_; }
  const Int64& cols() const { return cols_; }
  // Element offset of row r's first column (r must be < rows).
  Int64 row_offset(const Int32& r) const { return map_(r); }

private:
  GlobalPtr<T> ptr_;
  Int64 rows_, cols_;
  RowMap map_;
};

// An R x C window of a RowGatheredTensor (see GlobalTile for the contract TiledCopy uses).
template <ElemType T, int R, int C, class RowMap>
class GatheredTile {
  static_assert(R > 0 && C > 0, "local_tile: a tile has at least one row and one column");

public:
  using elem_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr bool is_lds = false;

  GatheredTile(const RowGatheredTensor<T, RowMap>& t, const Int64& row0, const Int64& col0)
      : t_(t), row0_(cast<i32>(row0)), col0_(col0),
        rows_left_(cast<i32>(min(t.rows() - row0, Int64(R)))),
        cols_left_(cast<i32>(min(t.cols() - col0, Int64(C)))) {}

  const Int32& rows_left() const { return rows_left_; }
  const Int32& cols_left() const { return cols_left_; }
  bool rows_contiguous() const { return true; }
  Bool whole() const { return (rows_left_ == R) && (cols_left_ == C); }
  Bool in_range(const Int32& r, const Int32& c) const {
    return (r < rows_left_) && (c < cols_left_);
  }

  Scalar<T> load(const Int32& r, const Int32& c) const {
    return if_(
        in_range(r, c), [&] { return t_.ptr().load(element(r, c)); }, [&] { return Scalar<T>(0); });
  }

  // N elements (r, c .. c + N - 1) of one row (c a multiple of N): one vector load when the
  // run exists, element-wise at the column edge, zeros (and no table read) past the last row.
  template <int N>
  Vec<T, N> load_run(const Int32& r, const Int32& c) const {
    const auto zeros = [&] {
      std::array<Scalar<T>, N> e;
      for (int j = 0; j < N; ++j)
        e[j] = Scalar<T>(0);
      return Vec<T, N>::from(e);
    };
    return if_(
        r < rows_left_,
        [&] {
          const Int64 at = element(r, c);
          if constexpr (N == 1)
            return load_run_at<N>(at);
          else
            return if_(
                c + N <= cols_left_, [&] { return load_run_at<N>(at); },
                [&] {
                  std::array<Scalar<T>, N> e;
                  for (int j = 0; j < N; ++j)
                    e[j] = t_.ptr().load(at + Int64(j), c + j < cols_left_);
                  return Vec<T, N>::from(e);
                });
        },
        zeros);
  }
  // As load_run, for a tile known to be whole().
  template <int N>
  Vec<T, N> load_run_unmasked(const Int32& r, const Int32& c) const {
    return load_run_at<N>(element(r, c));
  }

  // Masked writes: nothing past the tensor is written (nor is the row map evaluated there).
  void store(const Int32& r, const Int32& c, const Scalar<T>& v) const {
    if_(in_range(r, c), [&] { t_.ptr().store(element(r, c), v); });
  }
  // N elements (r, c .. c + N - 1) of one row: one vector store when the whole run exists,
  // element-wise at the column edge.
  template <int N>
  void store_run(const Int32& r, const Int32& c, const Vec<T, N>& v) const {
    if constexpr (N == 1) {
      store(r, c, v[0]);
    } else {
      if_(r < rows_left_, [&] {
        const Int64 at = element(r, c);
        if_(
            c + N <= cols_left_,
            [&] {
              t_.ptr().template store_vec<N>(at, v,
                                             std::gcd(t_.ptr().align(), N * elem_bytes<T>()));
            },
            [&] {
              for (int j = 0; j < N; ++j)
                if_(c + j < cols_left_, [&] { t_.ptr().store(at + Int64(j), v[j]); });
            });
      });
    }
  }

private:
  Int64 element(const Int32& r, const Int32& c) const {
    return t_.row_offset(row0_ + r) + col0_ + cast<i64>(c);
  }
  template <int N>
  Vec<T, N> load_run_at(const Int64& at) const {
    if constexpr (N == 1)
      return Vec<T, N>::from(std::array<Scalar<T>, N>{t_.ptr().load(at)});
    else // the host promises ptr().align() for the base and every row start
      return t_.ptr().template load_vec<N>(at, std::gcd(t_.ptr().align(), N * elem_bytes<T>()));
  }

  RowGatheredTensor<T, RowMap> t_;
  Int32 row0_;
  Int64 col0_;
  Int32 rows_left_, cols_left_;
};

// The (tile_row, tile_col)-th R x C tile of a row-gathered tensor.
template <int R, int C, ElemType T, class RowMap, class TR, class TC>
GatheredTile<T, R, C, RowMap> local_tile(const RowGatheredTensor<T, RowMap>& t, const TR& tile_row,
                                         const TC& tile_col) {
  return GatheredTile<T, R, C, RowMap>(t, detail::as_index(tile_row) * Int64(R),
                                       detail::as_index(tile_col) * Int64(C));
}

} // namespace tw::dsl
