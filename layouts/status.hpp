#pragma once
// Why a layout operation failed. The algebra reports a Status instead of throwing so the same
// constexpr code can serve both worlds: a static failure becomes a static_assert sentence
// (static_check below), a dynamic one a LayoutError whose message prints the operands.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tw {

enum class Status : int {
  ok = 0,
  not_congruent,         // shape and stride (or coordinate and shape) nest differently
  coordinate_rank,       // a coordinate has the wrong rank for the layout
  too_large,             // more modes than the fixed capacity of the tree
  nonpositive_shape,     // a shape entry is zero or negative
  stride_not_divisible,  // composition: the stride of B does not divide A's shape
  shape_not_divisible,   // composition: the shape of B does not divide A's shape
  tiler_does_not_divide, // divide: the tiler does not divide the layout
  tiler_rank,            // by-mode tiler has more modes than the layout
  not_injective,         // complement / inverse needs an injective layout
  negative_stride,       // complement / inverse / right operand of composition
  not_a_layout_tiler,    // blocked / raked products take layouts, not by-mode tilers
  bad_swizzle,           // Swizzle<B, M, S>: needs B >= 0, M >= 0, |S| >= B
  integer_overflow,      // an intermediate value does not fit in 64 bits
  too_many_elements,     // an operation that visits every element was given too many
};

constexpr const char* sentence(Status s) {
  switch (s) {
  case Status::ok:
    return "ok";
  case Status::not_congruent:
    return "shape and stride are not congruent (they must nest the same way)";
  case Status::coordinate_rank:
    return "the coordinate does not match the rank of the layout";
  case Status::too_large:
    return "the layout has more modes than tilewave's layout capacity (32 leaves)";
  case Status::nonpositive_shape:
    return "every shape entry must be positive";
  case Status::stride_not_divisible:
    return "composition A o B: a stride of B does not divide the shape of A "
           "(stride divisibility condition)";
  case Status::shape_not_divisible:
    return "composition A o B: a shape of B does not divide the shape of A "
           "(shape divisibility condition)";
  case Status::tiler_does_not_divide:
    return "the tiler does not divide the layout";
  case Status::tiler_rank:
    return "the tiler has more modes than the layout";
  case Status::not_injective:
    return "the layout is not injective (two coordinates map to the same index)";
  case Status::negative_stride:
    return "complement, inverses and the right operand of composition need non-negative strides";
  case Status::not_a_layout_tiler:
    return "blocked_product and raked_product take two layouts, not a tuple of tilers";
  case Status::bad_swizzle:
    return "Swizzle<B, M, S> needs B >= 0, M >= 0 and |S| >= B";
  case Status::integer_overflow:
    return "the layout arithmetic overflows 64-bit integers";
  case Status::too_many_elements:
    return "the layout has too many elements to visit one by one";
  }
  return "unknown layout error";
}

// Thrown by layout functions when run-time values break a rule.
class LayoutError : public std::invalid_argument {
public:
  LayoutError(Status s, const std::string& context)
      : std::invalid_argument(std::string(sentence(s)) + context), status_(s) {}
  Status status() const { return status_; }

private:
  Status status_;
};

// The compile-time face of a Status: exactly one of these fires, with its sentence.
template <Status S>
constexpr void static_check() {
  static_assert(S != Status::not_congruent,
                "tw: shape and stride are not congruent (they must nest the same way)");
  static_assert(S != Status::coordinate_rank,
                "tw: the coordinate does not match the rank of the layout");
  static_assert(S != Status::too_large,
                "tw: the layout has more modes than tilewave's layout capacity (32 leaves)");
  static_assert(S != Status::nonpositive_shape, "tw: every shape entry must be positive");
  static_assert(S != Status::stride_not_divisible,
                "tw: composition A o B: a stride of B does not divide the shape of A");
  static_assert(S != Status::shape_not_divisible,
                "tw: composition A o B: a shape of B does not divide the shape of A");
  static_assert(S != Status::tiler_does_not_divide, "tw: the tiler does not divide the layout");
  static_assert(S != Status::tiler_rank, "tw: the tiler has more modes than the layout");
  static_assert(S != Status::not_injective,
                "tw: the layout is not injective (two coordinates map to the same index)");
  static_assert(S != Status::negative_stride, "tw: complement, inverses and the right operand "
                                              "of composition need non-negative strides");
  static_assert(S != Status::not_a_layout_tiler,
                "tw: blocked_product and raked_product take two layouts, not a tuple of tilers");
  static_assert(S != Status::bad_swizzle, "tw: Swizzle<B, M, S> needs B >= 0, M >= 0, |S| >= B");
  static_assert(S != Status::integer_overflow,
                "tw: the layout arithmetic overflows 64-bit integers");
  static_assert(S != Status::too_many_elements,
                "tw: the layout has too many elements to visit one by one");
}

// Thrown (at run time) by the checked arithmetic below: "<sentence>: <op> x * y". In a
// constant evaluation the call to this non-constexpr function is the compile error.
[[noreturn]] inline void layout_arithmetic_overflows_int64(const char* op, int64_t x, char sign,
                                                           int64_t y) {
  std::string context = ": ";
  context.append(op).append(" ").append(std::to_string(x)).append(1, ' ').append(1, sign);
  context.append(" ").append(std::to_string(y));
  throw LayoutError(Status::integer_overflow, context);
}

namespace detail {
// Overflow-checked arithmetic of the layout algebra; `op` names the operation in the error.
constexpr int64_t checked_mul(int64_t x, int64_t y, const char* op) {
  int64_t r = 0;
  if (__builtin_mul_overflow(x, y, &r))
    layout_arithmetic_overflows_int64(op, x, '*', y);
  return r;
}
constexpr int64_t checked_add(int64_t x, int64_t y, const char* op) {
  int64_t r = 0;
  if (__builtin_add_overflow(x, y, &r))
    layout_arithmetic_overflows_int64(op, x, '+', y);
  return r;
}
constexpr int64_t checked_neg(int64_t x, const char* op) {
  int64_t r = 0;
  if (__builtin_sub_overflow(int64_t(0), x, &r))
    layout_arithmetic_overflows_int64(op, 0, '-', x);
  return r;
}
} // namespace detail

} // namespace tw
