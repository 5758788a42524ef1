#pragma once
// Numeric references of the quantization kernels (issue 12), in float64 on the exactly decoded
// inputs; integer codes are exact.
#include "../oracles.hpp"

namespace tw::oracle {} // namespace tw::oracle
