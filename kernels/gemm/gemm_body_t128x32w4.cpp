// The GEMM body for the t128x32w4 block tile (gemm_body.hpp; one translation unit per tile).
#include <kernels/gemm/gemm_body.hpp>

namespace tw::kernels::gemm_kernel {
template ir::Kernel build_gemm_for_tile<GemmTile::t128x32w4>(const GemmKernelSpec& spec);
} // namespace tw::kernels::gemm_kernel
