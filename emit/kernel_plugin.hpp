#pragma once
// A shared library of a user's kernel builders for the tools: `tilewave emit --plugin LIB.so
// KERNEL --format asm` builds KERNEL with the library's builder. The library defines its one
// entry point with TILEWAVE_KERNEL_PLUGIN and registers entries as the tool does for its own:
//
//   #include <tilewave.hpp>
//   TILEWAVE_KERNEL_PLUGIN(registry) {
//     registry.add({"my_softmax", "row softmax of a rows x cols f32 matrix",
//                   {{"cols", "128", "row length, a multiple of 32"}},
//                   [](const tw::emit::ParamReader& p) { return build_softmax(p.integer("cols"));
//                   },
//                   {}});
//   }
//
// built with add_library(my_kernels MODULE ...) linking tilewave::tilewave, against the same
// tilewave as the tool (the registry's types cross the library boundary).
#include <emit/registry.hpp>

#include <string>

// Defines the entry point `tilewave emit --plugin` calls once with the tool's registry.
#define TILEWAVE_KERNEL_PLUGIN(registry)                                                           \
  extern "C" __attribute__((visibility("default"))) void tilewave_register_kernels(                \
      ::tw::emit::KernelRegistry& registry)

namespace tw::emit {

// The symbol TILEWAVE_KERNEL_PLUGIN defines.
inline constexpr const char* kKernelPluginEntry = "tilewave_register_kernels";

// Loads the shared library at `path` (kept loaded for the process) and calls its entry point
// with `registry`. Throws std::runtime_error naming the path and the loader's reason, or the
// missing entry point.
void load_kernel_plugin(const std::string& path, KernelRegistry& registry);

} // namespace tw::emit
