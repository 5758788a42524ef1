#pragma once
// The quantization rules shared by the kernels that produce codes (quant_int8, qk_norm_quant):
// the abs-max scale and the code of a scaled value, traced into the current kernel.
#include <dsl/dsl.hpp>
#include <kernels/common/dtype.hpp>

namespace tw::kernels::quant_rules {

// The largest code magnitude of a quantized dtype: 127 (int8), 448 (e4m3), 57344 (e5m2).
float code_max(DType codes);

// s = amax / code_max (f32 division), or 1 for an all-zero tensor / row.
dsl::Float32 absmax_scale(const dsl::Float32& amax, float code_max = 127.0f);

// The int8 code of y = x / s (f32): round half to even, then clamp to [-128, 127].
dsl::Float32 int8_code(const dsl::Float32& y);

// The value to store into a `codes` tensor for y = x / s: int8_code(y) for int8; y itself for
// e4m3 / e5m2 (the typed store rounds to nearest even and saturates to the finite range).
dsl::Float32 code_of(DType codes, const dsl::Float32& y);

} // namespace tw::kernels::quant_rules
