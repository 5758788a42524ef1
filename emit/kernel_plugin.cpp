// Loading a shared library of kernel builders (see kernel_plugin.hpp).
#include <emit/kernel_plugin.hpp>

#include <dlfcn.h>
#include <stdexcept>

namespace tw::emit {

void load_kernel_plugin(const std::string& path, KernelRegistry& registry) {
  // A name without '/' would be searched on the library path: a plugin is a file the user
  // names, so make a bare name relative to the working directory.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw std::runtime_error("--plugin '" + path + "': cannot load it (" +
                             (why ? why : "unknown reason") + ")");
  }
  using Entry = void (*)(KernelRegistry&);
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, kKernelPluginEntry));
  if (!entry)
    throw std::runtime_error("--plugin '" + path + "' defines no " + kKernelPluginEntry +
                             " (write TILEWAVE_KERNEL_PLUGIN(registry) { ... } in it)");
  entry(registry);
}

} // namespace tw::emit
