#pragma once
// The overflow policy of a narrowing conversion. OCP fp8 leaves it to the caller whether a
// value past the largest finite one clamps (saturate) or becomes the format's special
// value (inf for e5m2, NaN for e4m3fn, which has no inf).
namespace tw::num {

enum class Saturate : bool { no, yes };

} // namespace tw::num
