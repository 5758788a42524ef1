#pragma once
// Tensors in global memory: a pointer plus a layout.
//   GlobalPtr<T>      a 1-D array: load(i), store(i, v), masked forms (reads 0, never writes)
//   GlobalTensor<T>   rows x cols with strides (row-major, column-major or explicit); the
//                     shape is run-time (Int64 handles), strides fold when they are constants
// Index math is 64-bit (a tensor may exceed 2^31 elements).
#include <dsl/builder/control.hpp>
#include <dsl/handles/vec.hpp>

namespace tw::dsl {

namespace detail {
// Any integer handle or literal as a 64-bit index.
template <class I>
Int64 as_index(const I& i) {
  if constexpr (std::is_integral_v<I>)
    return Int64(static_cast<std::int64_t>(i));
  else {
    static_assert(ScalarHandle<I> && IntElem<typename I::elem_type>,
                  "tw::dsl: an index must be an integer handle (Int32, Int64, ...) or literal");
    return cast<i64>(i);
  }
}
inline Int32 as_i32(const Int64& i) {
  return cast<i32>(i);
}
} // namespace detail

template <ElemType T>
class GlobalPtr {
public:
  using elem_type = T;
  GlobalPtr() = default;
  // `align` is the byte alignment the host guarantees for the base pointer.
  explicit GlobalPtr(ir::Value ptr, int align = elem_bytes<T>()) : ptr_(ptr), align_(align) {}

  // The pointer whose 64-bit address is `address` (read from a table of pointers, e.g. the
  // problem list of a grouped GEMM); `align` is the byte alignment the table's writer promises.
  static GlobalPtr from_address(const Int64& address, int align = elem_bytes<T>()) {
    return GlobalPtr(ops().int_to_ptr(address.ir()), align);
  }

  ir::Value ir() const { return ptr_; }
  int align() const { return align_; }

  // The pointer to element `i`.
  template <class I>
  ir::Value address(const I& i) const {
    const Int64 bytes = detail::as_index(i) * Int64(elem_bytes<T>());
    if (bytes.is_constant() && bytes.constant_value() == 0)
      return ptr_;
    return ops().ptr_add(ptr_, bytes.ir());
  }
  // This pointer advanced by `i` elements (alignment drops to the element's).
  template <class I>
  GlobalPtr offset(const I& i) const {
    return GlobalPtr(address(i), elem_bytes<T>());
  }

  template <class I>
  Scalar<T> load(const I& i) const {
    return Scalar<T>(ops().load(ir_type<T>(), address(i)));
  }
  template <class I>
  void store(const I& i, const Scalar<T>& v) const {
    ops().store(address(i), v.ir());
  }
  // N consecutive elements; `align` is the byte alignment of element i's address.
  template <int N, class I>
  Vec<T, N> load_vec(const I& i, int align) const {
    return Vec<T, N>(ops().load(Vec<T, N>::type(), address(i), static_cast<std::uint32_t>(align)));
  }
  template <int N, class I>
  void store_vec(const I& i, const Vec<T, N>& v, int align) const {
    ops().store(address(i), v.ir(), static_cast<std::uint32_t>(align));
  }

  // Masked: when `in_range` is false the load reads 0 and touches no memory.
  template <class I>
  Scalar<T> load(const I& i, const Bool& in_range) const {
    return if_(
        in_range, [&] { return load(i); }, [&] { return Scalar<T>(0); });
  }
  // Masked: when `in_range` is false nothing is written.
  template <class I>
  void store(const I& i, const Scalar<T>& v, const Bool& in_range) const {
    if_(in_range, [&] { store(i, v); });
  }

private:
  static ir::OpBuilder& ops() { return KernelBuilder::current("global memory access").ops(); }
  ir::Value ptr_{};
  int align_ = elem_bytes<T>();
};

// Element (r, c) of a rows x cols tensor is at ptr + r * row_stride + c * col_stride.
template <ElemType T>
class GlobalTensor {
public:
  using elem_type = T;
  GlobalTensor() = default;
  GlobalTensor(GlobalPtr<T> ptr, Int64 rows, Int64 cols, Int64 row_stride, Int64 col_stride)
      : ptr_(ptr), rows_(rows), cols_(cols), row_stride_(row_stride), col_stride_(col_stride) {}

  const GlobalPtr<T>& ptr() const { return ptr_; }
  const Int64& rows() const { return rows_; }
  const Int64& cols() const { return cols_; }
  const Int64& row_stride() const { return row_stride_; }
  const Int64& col_stride() const { return col_stride_; }
  // True when the columns of a row are adjacent in memory (col_stride is the constant 1).
  bool rows_contiguous() const {
    return col_stride_.is_constant() && col_stride_.constant_value() == 1;
  }

  template <class R, class C>
  Int64 offset(const R& r, const C& c) const {
    return detail::as_index(r) * row_stride_ + detail::as_index(c) * col_stride_;
  }
  // The transposed view (cols x rows): no data moves.
  GlobalTensor transposed() const { return {ptr_, cols_, rows_, col_stride_, row_stride_}; }

private:
  GlobalPtr<T> ptr_;
  Int64 rows_, cols_, row_stride_, col_stride_;
};

// How a 2-D tensor argument is stored: row-major (a row is contiguous) or column-major.
enum class Major { row, col };
struct RowMajorTag {
  static constexpr Major major = Major::row;
};
struct ColMajorTag {
  static constexpr Major major = Major::col;
};
inline constexpr RowMajorTag row_major{};
inline constexpr ColMajorTag col_major{};

// A compact rows x cols tensor over `ptr` with the given storage order (leading dimension =
// cols for row-major, rows for column-major unless `ld` is given).
template <ElemType T>
GlobalTensor<T> make_tensor(GlobalPtr<T> ptr, Major major, Int64 rows, Int64 cols) {
  if (major == Major::row)
    return {ptr, rows, cols, cols, Int64(1)};
  return {ptr, rows, cols, Int64(1), rows};
}
template <ElemType T>
GlobalTensor<T> make_tensor(GlobalPtr<T> ptr, Major major, Int64 rows, Int64 cols, Int64 ld) {
  if (major == Major::row)
    return {ptr, rows, cols, ld, Int64(1)};
  return {ptr, rows, cols, Int64(1), ld};
}

} // namespace tw::dsl
