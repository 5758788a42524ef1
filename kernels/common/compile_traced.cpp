#include <kernels/common/compile_traced.hpp>
#include <kernels/gemm/gemm_target.hpp>

#include <emit/compile.hpp>

#include <map>
#include <mutex>

namespace tw::kernels {

emit::CodeObject compile_traced(const std::string& name, const std::function<ir::Kernel()>& build) {
  static std::mutex mu;
  static std::map<std::string, ir::Kernel> traced;
  ir::Kernel kernel;
  {
    std::lock_guard lock(mu);
    auto it = traced.find(name);
    if (it == traced.end())
      it = traced.emplace(name, build()).first;
    kernel = it->second;
  }
  const GemmTarget t = gemm_target();
  return emit::compile(kernel, t.backend, t.arch);
}

runtime::KernelHandle traced_kernel(runtime::Device& device, const std::string& name,
                                    const std::function<ir::Kernel()>& build) {
  const GemmTarget t = gemm_target();
  std::string key = name;
  key += t.backend == emit::Backend::llvm ? "|llvm|" : "|hip|";
  key += arch_name(t.arch);
  return device.cached_kernel(key, [&](runtime::Device& d) {
    const emit::CodeObject co = compile_traced(name, build);
    return d.get_kernel(d.load_code_object(co.elf), co.kernel_name);
  });
}

} // namespace tw::kernels
