#pragma once
// Run-time evaluation of layout expressions written in CuTe notation, the language of
// `tilewave layout`. Every function evaluates with the same core algebra as the typed API.
//   literal      4   (2,(3,4))   (4,2):(2,1)   <3:3,(2,4):(1,8)>   (2:1,4:2)   Sw<3,3,3>
//   composition  A o B   Sw<B,M,S> o L   composition(A, B)
//   functions    coalesce(L[, profile])  complement(L[, bound])  right_inverse(L)
//                left_inverse(L)  logical_divide / zipped_divide / tiled_divide /
//                flat_divide(L, tiler)  logical_product / zipped_product / tiled_product /
//                flat_product(L, tiler)  blocked_product(L, L)  raked_product(L, L)
//                make_layout(shape[, stride]) or make_layout(L, L, ...)
//                make_ordered_layout(shape, order)  size / cosize / rank / depth(L)
// A tiler is a layout, a shape, or a tuple of tilers (in <...>, or (...) of layouts).
// Errors are ExpressionError with the 0-based character position they refer to.
#include <layouts/layouts.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tw {

class ExpressionError : public std::runtime_error {
public:
  ExpressionError(size_t position, const std::string& message)
      : std::runtime_error("at character " + std::to_string(position + 1) + ": " + message),
        position_(position) {}
  size_t position() const { return position_; }

private:
  size_t position_;
};

// The value of an expression.
struct LayoutValue {
  enum class Kind { tuple, layout, composed, tiler, swizzle, integer };
  Kind kind = Kind::tuple;
  DynTuple tuple;   // Kind::tuple (a shape or an int tuple)
  DynLayout layout; // Kind::layout, and the inner layout of Kind::composed
  DynSwizzle swizzle;
  DynTiler tiler;
  int64_t integer = 0;

  // Index of the element at flat position i, swizzled for composed layouts.
  int64_t operator()(int64_t i) const {
    return kind == Kind::composed ? swizzle(layout(i)) : layout(i);
  }
  int64_t at(int64_t m, int64_t n) const {
    const int64_t idx = layout(dyn_tuple({dyn_int(m), dyn_int(n)}));
    return kind == Kind::composed ? swizzle(idx) : idx;
  }
  bool is_layout() const { return kind == Kind::layout || kind == Kind::composed; }
};

std::string to_string(const LayoutValue& v);

// Parses and evaluates `text`; throws ExpressionError (with the position) on any error.
LayoutValue evaluate_layout_expression(std::string_view text);

} // namespace tw
