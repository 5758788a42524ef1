#pragma once
// The launch step of each GEMM entry point, called after validation with a non-empty
// problem: pick a tile config, build the kernel through the compile cache, launch.
//
// All launch on the GEMM composition (kernels/gemm/gemm_kernel.hpp): launch_gemm.cpp, and
// gemm_launch.cpp for iu4_gemm.
#include <kernels/gemm/gemm_api.hpp>

namespace tw::kernels::gemm_launch {

void launch(runtime::Device& device, const GemmArgs& args, const GemmProblem& problem);
void launch(runtime::Device& device, const ScaledMmArgs& args, const GemmProblem& problem);
void launch(runtime::Device& device, const ScaledMmFusedQuantArgs& args,
            const GemmProblem& problem);
void launch(runtime::Device& device, const ScaledMmMultiArgs& args,
            const std::vector<GemmProblem>& problems);
void launch(runtime::Device& device, const W8A16Args& args, const GemmProblem& problem);
void launch(runtime::Device& device, const Int8LinearArgs& args, const GemmProblem& problem);
void launch(runtime::Device& device, const Int8LinearFusedArgs& args, const GemmProblem& problem);
void launch(runtime::Device& device, const Iu4GemmArgs& args, const GemmProblem& problem);
void launch(runtime::Device& device, const Mxfp8GemmArgs& args, const GemmProblem& problem);

} // namespace tw::kernels::gemm_launch
