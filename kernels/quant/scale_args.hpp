#pragma once
// Argument rules shared by the quantizers' entry points (quant_int8, the 4-bit quantizers).
#include <kernels/common/arg_check.hpp>

#include <string>
#include <string_view>

namespace tw::kernels::quant_args {

// One f32 scale per row: [rows] or [rows, 1], contiguous, in `device`'s memory.
inline void check_per_row_scale(const ArgChecker& check, const TensorView& s, std::string_view arg,
                                int64_t rows, const runtime::Device& device) {
  check.well_formed(s, arg);
  const bool shape_ok = (s.rank() == 1 && s.shape[0] == rows) ||
                        (s.rank() == 2 && s.shape[0] == rows && s.shape[1] == 1);
  if (!shape_ok)
    check.fail(arg, "has shape " + format_extents(s.shape) + "; expected [" + std::to_string(rows) +
                        "] or [" + std::to_string(rows) + ", 1] (one scale per row)");
  if (rows > 1 && s.strides[0] != 1)
    check.fail(arg, "has layout " + describe_layout(s) + "; expected contiguous scales");
  check.dtype_in(s, arg, {DType::f32});
  if (rows > 0)
    check.on_device(s, arg, device);
  check.naturally_aligned(s, arg);
}

} // namespace tw::kernels::quant_args
