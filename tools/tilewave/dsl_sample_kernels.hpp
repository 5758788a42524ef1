#pragma once
// Registers the DSL sample kernels (dsl/samples/: the kernels of examples 02-05) in
// emit::kernel_registry() for `tilewave emit` and `tilewave aot`. Safe to call more than once.
#include <emit/registry.hpp>

namespace tw::tool {

void register_dsl_sample_kernels(emit::KernelRegistry& registry);

} // namespace tw::tool
