#include "tilewave/dsl_sample_kernels.hpp"

#include <dsl/samples/gemm_f16.hpp>
#include <dsl/samples/row_reduce.hpp>
#include <dsl/samples/vec_math.hpp>
#include <dsl/samples/vector_add.hpp>
#include <dsl/samples/wmma_tile.hpp>

#include <mutex>

namespace tw::tool {

namespace {

ir::Kernel build_gemm_f16(const emit::ParamReader& p) {
  return samples::build_gemm_f16(static_cast<int>(p.one_of("row_align", {2, 4, 8, 16})));
}

} // namespace

void register_dsl_sample_kernels(emit::KernelRegistry& registry) {
  static std::once_flag once;
  std::call_once(once, [&] {
    // The examples' kernels take their sizes as kernel arguments: only the GEMM has a
    // build-time choice (the alignment promise that decides the load width).
    registry.add({"vector_add",
                  "dsl/samples: c = a + b over n floats, 256 threads per workgroup, ragged tail",
                  {},
                  [](const emit::ParamReader&) { return samples::build_vector_add(); },
                  {}});
    registry.add({"row_reduce",
                  "dsl/samples: row sums (DPP) and maxima (shuffles) of an f32 matrix, a wave "
                  "per row",
                  {},
                  [](const emit::ParamReader&) { return samples::build_row_reduce(); },
                  {}});
    registry.add({"vec_math_f16",
                  "dsl/samples: element-wise Vec<f16, 8> math (packed v_pk_* forms, v_exp_f16, "
                  "v_rcp_f16)",
                  {},
                  [](const emit::ParamReader&) { return samples::build_vec_math<dsl::f16>(); },
                  {}});
    registry.add({"vec_math_bf16",
                  "dsl/samples: element-wise Vec<bf16, 8> math (through f32: gfx12 has no bf16 "
                  "arithmetic)",
                  {},
                  [](const emit::ParamReader&) { return samples::build_vec_math<dsl::bf16>(); },
                  {}});
    registry.add({"wmma_tile",
                  "dsl/samples: one wave, one 16x16x16 f16 tile with v_wmma_f32_16x16x16_f16",
                  {},
                  [](const emit::ParamReader&) { return samples::build_wmma_tile(); },
                  {}});
    registry.add({"gemm_f16",
                  "dsl/samples: f16 GEMM, f32 accumulation (128x128x32 tile, LDS double "
                  "buffering, WMMA)",
                  {{"row_align", "16",
                    "bytes every row of A / column of B is aligned to: 2, 4, 8 or 16 (16: "
                    "128-bit loads)"}},
                  build_gemm_f16,
                  {{{"row_align", "16"}}, {{"row_align", "2"}}}});
  });
}

} // namespace tw::tool
