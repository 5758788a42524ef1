// The GEMM entry points: validate everything, return on an empty problem, otherwise hand
// over to the launch step (kernels/gemm/gemm_launch.hpp).
#include <kernels/gemm/gemm_api.hpp>
#include <kernels/gemm/gemm_launch.hpp>

#include <algorithm>

namespace tw::kernels {

namespace {
template <class Args>
void run(runtime::Device& device, const Args& args,
         GemmProblem (*validate)(const runtime::Device&, const Args&)) {
  const GemmProblem p = validate(device, args);
  if (!p.empty())
    gemm_launch::launch(device, args, p);
}
} // namespace

void gemm(runtime::Device& d, const GemmArgs& a) {
  run(d, a, validate_gemm);
}
void scaled_mm(runtime::Device& d, const ScaledMmArgs& a) {
  run(d, a, validate_scaled_mm);
}
void scaled_mm_fused_quant(runtime::Device& d, const ScaledMmFusedQuantArgs& a) {
  run(d, a, validate_scaled_mm_fused_quant);
}
void w8a16(runtime::Device& d, const W8A16Args& a) {
  run(d, a, validate_w8a16);
}
void int8_linear(runtime::Device& d, const Int8LinearArgs& a) {
  run(d, a, validate_int8_linear);
}
void int8_linear_fused(runtime::Device& d, const Int8LinearFusedArgs& a) {
  run(d, a, validate_int8_linear_fused);
}
void iu4_gemm(runtime::Device& d, const Iu4GemmArgs& a) {
  run(d, a, validate_iu4_gemm);
}
void mxfp8_gemm(runtime::Device& d, const Mxfp8GemmArgs& a) {
  run(d, a, validate_mxfp8_gemm);
}

void scaled_mm_multi(runtime::Device& d, const ScaledMmMultiArgs& a) {
  const std::vector<GemmProblem> ps = validate_scaled_mm_multi(d, a);
  if (std::any_of(ps.begin(), ps.end(), [](const GemmProblem& p) { return !p.empty(); }))
    gemm_launch::launch(d, a, ps);
}

} // namespace tw::kernels
