// gemm, scaled_mm, int8_linear and w8a16 launch in launch_gemm.cpp (the GEMM composition).
// PLACEHOLDER launches for the rest: the GEMM kernel bodies are not written yet (issue 6). Each
// launch throws so that no caller can mistake a validated call for a computed result.
#include <kernels/gemm/gemm_launch.hpp>

#include <stdexcept>

namespace tw::kernels::gemm_launch {

namespace {
[[noreturn]] void not_implemented(const GemmProblem& p) {
  throw std::logic_error("gemm kernel bodies not implemented yet: " + p.kernel +
                         " (M=" + std::to_string(p.m) + ", N=" + std::to_string(p.n) + ", K=" +
                         std::to_string(p.k) + ") passed validation but cannot be launched");
}
} // namespace

void launch(runtime::Device&, const Iu4GemmArgs&, const GemmProblem& p) {
  not_implemented(p);
}

} // namespace tw::kernels::gemm_launch
