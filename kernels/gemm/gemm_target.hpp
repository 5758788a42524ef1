#pragma once
// Which backend and arch the GEMM launches compile for. Default: TILEWAVE_BACKEND (hip | llvm,
// else llvm) for gfx1201. Tests switch it to run every kernel through both emitters.
#include <atoms/arch.hpp>
#include <emit/backend.hpp>

namespace tw::kernels {

struct GemmTarget {
  emit::Backend backend = emit::Backend::llvm;
  Arch arch = Arch::gfx1201;
};
GemmTarget gemm_target();
void set_gemm_target(GemmTarget target);

} // namespace tw::kernels
