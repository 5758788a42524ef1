#pragma once
// Registers the kernel library's kernels (kernels/) in emit::kernel_registry() for
// `tilewave emit` and `tilewave aot`. The emit library cannot do it itself: kernels/ depends
// on emit/, so the tool, which links both, is where they meet. Safe to call more than once.
#include <emit/registry.hpp>

namespace tw::tool {

void register_library_kernels(emit::KernelRegistry& registry);

} // namespace tw::tool
