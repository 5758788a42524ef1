#include <kernels/common/arg_check.hpp>

#include <cstdio>

namespace tw::kernels {

std::string_view order_name(MatrixOrder o) {
  return o == MatrixOrder::row_major ? "row-major" : "column-major";
}

bool has_order(const TensorView& t, MatrixOrder o) {
  if (t.rank() != 2 || t.strides.size() != 2)
    return false;
  const int inner = o == MatrixOrder::row_major ? 1 : 0; // the contiguous dimension
  const int outer = 1 - inner;
  const int64_t inner_extent = t.shape[inner] > 1 ? t.shape[inner] : 1;
  const bool inner_ok = t.shape[inner] <= 1 || t.strides[inner] == 1;
  const bool outer_ok = t.shape[outer] <= 1 || t.strides[outer] >= inner_extent;
  return inner_ok && outer_ok;
}

std::string describe_layout(const TensorView& t) {
  return format_extents(t.shape) + " with strides " + format_extents(t.strides);
}

void ArgChecker::fail(std::string_view arg, std::string_view sentence) const {
  throw ArgumentError(op_ + ": argument '" + std::string(arg) + "' " + std::string(sentence));
}

void ArgChecker::fail_parameter(std::string_view param, std::string_view sentence) const {
  throw ArgumentError(op_ + ": parameter '" + std::string(param) + "' " + std::string(sentence));
}

void ArgChecker::well_formed(const TensorView& t, std::string_view arg) const {
  if (t.strides.size() != t.shape.size())
    fail(arg, "has " + std::to_string(t.strides.size()) + " strides for shape " +
                  format_extents(t.shape) + "; expected one stride per dimension");
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] < 0)
      fail(arg, "has shape " + format_extents(t.shape) + "; expected no negative extent");
    if (t.strides[d] < 0)
      fail(arg, "has strides " + format_extents(t.strides) + "; expected no negative stride");
  }
  if (!t.empty() && t.address() == 0)
    fail(arg, "has a null address and " + std::to_string(t.numel()) +
                  " elements; expected the address of its data");
}

void ArgChecker::rank(const TensorView& t, std::string_view arg, int expected) const {
  if (t.rank() != expected)
    fail(arg, "has rank " + std::to_string(t.rank()) + " (shape " + format_extents(t.shape) +
                  "); expected rank " + std::to_string(expected));
}

void ArgChecker::dtype_in(const TensorView& t, std::string_view arg,
                          std::initializer_list<DType> allowed) const {
  std::string names;
  for (DType d : allowed) {
    if (d == t.dtype)
      return;
    names += (names.empty() ? "" : ", ") + std::string(dtype_name(d));
  }
  fail(arg, "has dtype " + std::string(dtype_name(t.dtype)) + "; expected " +
                (allowed.size() == 1 ? names : "one of " + names));
}

void ArgChecker::same_dtype(const TensorView& t, std::string_view arg, const TensorView& other,
                            std::string_view other_arg) const {
  if (t.dtype != other.dtype)
    fail(arg, "has dtype " + std::string(dtype_name(t.dtype)) + "; expected the dtype of '" +
                  std::string(other_arg) + "' (" + std::string(dtype_name(other.dtype)) + ")");
}

void ArgChecker::extent_matches(const TensorView& t, std::string_view arg, int dim,
                                std::string_view dim_name, const TensorView& other,
                                std::string_view other_arg, int other_dim) const {
  if (t.shape[dim] != other.shape[other_dim])
    fail(arg, "has shape " + format_extents(t.shape) + "; expected dimension " +
                  std::to_string(dim) + " (" + std::string(dim_name) + ") to equal dimension " +
                  std::to_string(other_dim) + " of '" + std::string(other_arg) + "' (shape " +
                  format_extents(other.shape) + "), " + std::to_string(other.shape[other_dim]));
}

void ArgChecker::shape_is(const TensorView& t, std::string_view arg, const Extents& expected,
                          std::string_view why) const {
  if (t.shape != expected)
    fail(arg, "has shape " + format_extents(t.shape) + "; expected " + format_extents(expected) +
                  " (" + std::string(why) + ")");
}

MatrixOrder ArgChecker::order(const TensorView& t, std::string_view arg, OrderSet accepted) const {
  rank(t, arg, 2);
  std::optional<MatrixOrder> got;
  for (MatrixOrder o : {MatrixOrder::row_major, MatrixOrder::col_major})
    if (accepted.accepts(o) && has_order(t, o)) {
      got = o;
      break;
    }
  if (!got) {
    std::string rules;
    if (accepted.row_major)
      rules = "row-major (strides [ld, 1] with ld >= " +
              std::to_string(t.shape[1] > 1 ? t.shape[1] : 1) + ")";
    if (accepted.col_major)
      rules += std::string(rules.empty() ? "" : " or ") +
               "column-major (strides [1, ld] with ld >= " +
               std::to_string(t.shape[0] > 1 ? t.shape[0] : 1) + ")";
    std::string given = "is neither row- nor column-major";
    if (has_order(t, MatrixOrder::row_major))
      given = "is row-major";
    else if (has_order(t, MatrixOrder::col_major))
      given = "is column-major";
    fail(arg, "has shape " + describe_layout(t) + ", which " + given + "; expected " + rules);
  }
  if (is_packed_int4(t.dtype)) {
    const int outer = *got == MatrixOrder::row_major ? 0 : 1;
    if (t.shape[outer] > 1 && t.strides[outer] % 2 != 0)
      fail(arg, "is packed " + std::string(dtype_name(t.dtype)) + " with leading stride " +
                    std::to_string(t.strides[outer]) +
                    " (odd); expected an even leading stride so every " +
                    (outer == 0 ? "row" : "column") + " starts on a byte");
  }
  return *got;
}

void ArgChecker::contiguous_vector(const TensorView& t, std::string_view arg) const {
  rank(t, arg, 1);
  if (t.shape[0] > 1 && t.strides[0] != 1)
    fail(arg, "has stride " + std::to_string(t.strides[0]) +
                  "; expected a contiguous vector (stride 1)");
}

void ArgChecker::aligned(const TensorView& t, std::string_view arg, int64_t bytes) const {
  if (bytes > 1 && t.address() % uint64_t(bytes) != 0)
    fail(
        arg, "starts at address 0x" +
                 [&] {
                   char buf[32];
                   std::snprintf(buf, sizeof buf, "%llx",
                                 static_cast<unsigned long long>(t.address()));
                   return std::string(buf);
                 }() +
                 ", which is not a multiple of " + std::to_string(bytes) +
                 " bytes; expected an address aligned to " + std::to_string(bytes) + " bytes");
}

void ArgChecker::naturally_aligned(const TensorView& t, std::string_view arg) const {
  aligned(t, arg, dtype_bits(t.dtype) >= 8 ? dtype_bits(t.dtype) / 8 : 1);
}

void ArgChecker::on_device(const TensorView& t, std::string_view arg,
                           const runtime::Device& device) const {
  if (t.device == &device)
    return;
  if (t.device == nullptr)
    fail(arg, "is in host memory; expected memory of the launch device (" + device.name() + ")");
  fail(arg, "is in memory of another device (" + t.device->name() +
                "); expected memory of the launch device (" + device.name() + ")");
}

void ArgChecker::no_overlap(const TensorView& out, std::string_view out_arg, const TensorView& in,
                            std::string_view in_arg, bool allow_same) const {
  if (out.empty() || in.empty() || out.device != in.device)
    return;
  if (allow_same && out.address() == in.address() && out.dtype == in.dtype &&
      out.shape == in.shape && out.strides == in.strides)
    return;
  const uint64_t out_lo = out.address(), out_hi = out_lo + uint64_t(out.span_bytes());
  const uint64_t in_lo = in.address(), in_hi = in_lo + uint64_t(in.span_bytes());
  if (out_lo < in_hi && in_lo < out_hi)
    fail(out_arg, std::string("overlaps the memory of input '") + std::string(in_arg) +
                      "'; expected " +
                      (allow_same ? "either the very same view (in place) or disjoint memory"
                                  : "disjoint memory"));
}

} // namespace tw::kernels
