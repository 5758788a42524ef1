#pragma once
// The code object of a library kernel for the library's target (gemm_target(): backend and
// arch). Tracing a composition is the costly host step, so each kernel is traced once per name
// and process; emit::compile caches the code object (memory and disk).
#include <dsl/ir/kernel.hpp>
#include <emit/code_object.hpp>
#include <runtime/device.hpp>

#include <functional>
#include <string>

namespace tw::kernels {

// `name` must identify the traced kernel (every code-changing option is part of it).
emit::CodeObject compile_traced(const std::string& name, const std::function<ir::Kernel()>& build);

// The kernel loaded on `device`: compile_traced and load_code_object run once per name,
// target and device (Device::cached_kernel); a later launch is one look-up, with no IR
// printing, hashing or code object load.
runtime::KernelHandle traced_kernel(runtime::Device& device, const std::string& name,
                                    const std::function<ir::Kernel()>& build);

} // namespace tw::kernels
