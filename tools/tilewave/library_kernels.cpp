#include "tilewave/library_kernels.hpp"

#include <kernels/common/dtype.hpp>
#include <kernels/gemm/gemm_kernel.hpp>

#include <mutex>

namespace tw::tool {

namespace {

using kernels::gemm_kernel::GemmKernelSpec;

bool flag(const emit::ParamReader& p, const std::string& name) {
  return p.one_of(name, {0, 1}) == 1;
}

kernels::MatrixOrder order(const emit::ParamReader& p, const std::string& name) {
  const std::string& v = p.str(name);
  if (v == "row")
    return kernels::MatrixOrder::row_major;
  if (v == "col")
    return kernels::MatrixOrder::col_major;
  p.reject(name, "must be row or col");
}

kernels::DType dtype(const emit::ParamReader& p, const std::string& name) {
  if (auto d = kernels::try_parse_dtype(p.str(name)))
    return *d;
  p.reject(name, "is not a dtype name (f32, f16, bf16, e4m3, e5m2, int8, ...)");
}

ir::Kernel build_gemm(const emit::ParamReader& p) {
  GemmKernelSpec s;
  s.a = dtype(p, "a");
  s.b = dtype(p, "b");
  s.out = dtype(p, "out");
  s.a_order = order(p, "a_order");
  s.b_order = order(p, "b_order");
  s.a_vec_aligned = flag(p, "a_aligned");
  s.b_vec_aligned = flag(p, "b_aligned");
  s.alpha_beta = flag(p, "alpha_beta");
  s.has_c = flag(p, "c");
  s.has_bias = flag(p, "bias");
  return kernels::gemm_kernel::build_gemm_kernel(s); // rejects unsupported combinations
}

} // namespace

void register_library_kernels(emit::KernelRegistry& registry) {
  static std::once_flag once;
  std::call_once(once, [&] {
    registry.add({"gemm",
                  "kernels/gemm: out = A * B (128x128 tile, 4 waves, LDS double buffering, WMMA)",
                  {{"a", "f16", "A storage dtype"},
                   {"b", "f16", "B storage dtype"},
                   {"out", "f32", "output dtype"},
                   {"a_order", "row", "row or col"},
                   {"b_order", "col", "row or col"},
                   {"a_aligned", "1", "1: A rows 16-byte aligned (128-bit loads), 0: any"},
                   {"b_aligned", "1", "1: B columns 16-byte aligned (128-bit loads), 0: any"},
                   {"alpha_beta", "0", "0 or 1"},
                   {"c", "0", "0 or 1: add beta * C"},
                   {"bias", "0", "0 or 1"}},
                  build_gemm,
                  {{}, {{"a", "bf16"}, {"b", "bf16"}}}});
  });
}

} // namespace tw::tool
