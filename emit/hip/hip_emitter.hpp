#pragma once
// HIP backend: kernel IR -> readable HIP C++ source for clang-22 (-x hip -nogpuinc -nogpulib).
// The source needs no HIP headers: it defines the vector types and attributes it uses, and
// declares one extern "C" kernel whose parameters give exactly ir::kernarg_layout(k).
#include <dsl/ir/kernel.hpp>
#include <string>

namespace tw::emit::hip {

// Verifies `k` (ir::verify) and returns the source of its one kernel function.
std::string emit_source(const ir::Kernel& k);

} // namespace tw::emit::hip
