#pragma once
// The validation toolkit of the host entry points. Every rule failure throws ArgumentError
// with one sentence of the form
//     "<op>: argument '<name>' <what was given>; expected <the rule>"
// e.g. "gemm: argument 'b' has dtype bf16; expected the dtype of 'a' (f16)". Entry points
// run all their checks before touching the device, so nothing is launched on bad input.
#include <kernels/common/tensor.hpp>

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tw::kernels {

class ArgumentError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

// Memory order of a rank-2 operand. Row-major: strides [ld, 1] with ld >= columns;
// column-major: strides [1, ld] with ld >= rows. A dimension of extent 1 may have any stride.
enum class MatrixOrder { row_major, col_major };
std::string_view order_name(MatrixOrder o);

struct OrderSet {
  bool row_major = false;
  bool col_major = false;
  bool accepts(MatrixOrder o) const { return o == MatrixOrder::row_major ? row_major : col_major; }
};
inline constexpr OrderSet row_major_only{true, false};
inline constexpr OrderSet col_major_only{false, true};
inline constexpr OrderSet any_order{true, true};

// Whether a view is a rank-2 matrix in that order (a 1x1 matrix is in both).
bool has_order(const TensorView& t, MatrixOrder o);

class ArgChecker {
public:
  // `op` starts every message: the kernel name, or e.g. "scaled_mm_multi: problem 2".
  explicit ArgChecker(std::string op) : op_(std::move(op)) {}
  const std::string& op() const { return op_; }

  [[noreturn]] void fail(std::string_view arg, std::string_view sentence) const;
  // For rules about plain parameters (alpha, block sizes, ...): "<op>: parameter 'x' ...".
  [[noreturn]] void fail_parameter(std::string_view param, std::string_view sentence) const;

  // Strides as many as dimensions, no negative extent or stride, an address when not empty.
  void well_formed(const TensorView& t, std::string_view arg) const;
  void rank(const TensorView& t, std::string_view arg, int expected) const;
  void dtype_in(const TensorView& t, std::string_view arg,
                std::initializer_list<DType> allowed) const;
  void same_dtype(const TensorView& t, std::string_view arg, const TensorView& other,
                  std::string_view other_arg) const;
  // Dimension `dim` (called `dim_name`, e.g. "K") of t must equal `expected`, which is
  // dimension `other_dim` of `other_arg` (both shapes are named in the message).
  void extent_matches(const TensorView& t, std::string_view arg, int dim, std::string_view dim_name,
                      const TensorView& other, std::string_view other_arg, int other_dim) const;
  // The whole shape must be `expected`; `why` says where it comes from ("[M, N] of the output").
  void shape_is(const TensorView& t, std::string_view arg, const Extents& expected,
                std::string_view why) const;
  // A rank-2 operand in one of the accepted orders; returns the one it has (row-major
  // preferred when both apply). Packed int4 operands also need an even leading stride so
  // every row (or column) starts on a byte.
  MatrixOrder order(const TensorView& t, std::string_view arg, OrderSet accepted) const;
  // A rank-1 view whose elements are adjacent (stride 1 when it has more than one).
  void contiguous_vector(const TensorView& t, std::string_view arg) const;
  // The start address must be a multiple of `bytes` (e.g. the element size).
  void aligned(const TensorView& t, std::string_view arg, int64_t bytes) const;
  // The element size for byte-or-wider dtypes, 1 for packed int4.
  void naturally_aligned(const TensorView& t, std::string_view arg) const;
  // In device memory of `device` (the one the kernel launches on).
  void on_device(const TensorView& t, std::string_view arg, const runtime::Device& device) const;
  // Written `out` must not share bytes with input `in`, except being exactly the same view
  // when `allow_same` (in-place update, e.g. C of gemm with beta).
  void no_overlap(const TensorView& out, std::string_view out_arg, const TensorView& in,
                  std::string_view in_arg, bool allow_same = false) const;

private:
  std::string op_;
};

// "[4, 12] with strides [12, 1]"
std::string describe_layout(const TensorView& t);

} // namespace tw::kernels
