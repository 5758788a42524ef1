#pragma once
// Numeric formats: exact conversions between f32 and f16, bf16, OCP fp8 (e4m3fn, e5m2),
// e8m0 (MX scales), packed int4 and int8. The single source of numeric truth for the
// oracles, the emulator and host code. Namespace tw::num.
#include <atoms/formats/bf16.hpp>
#include <atoms/formats/e8m0.hpp>
#include <atoms/formats/f16.hpp>
#include <atoms/formats/format_info.hpp>
#include <atoms/formats/fp8.hpp>
#include <atoms/formats/int4.hpp>
#include <atoms/formats/int8.hpp>
#include <atoms/formats/integer_rounding.hpp>
#include <atoms/formats/minifloat.hpp>
#include <atoms/formats/rounding.hpp>
#include <atoms/formats/saturate.hpp>
