// Static quality of the main f16 GEMM config (128 x 128 block tile, 4 waves, 16-byte aligned
// operands), from the resource report and the assembly of both backends: no scratch, LDS
// within 64 KiB, VGPRs allowing >= 2 waves per SIMD, 128-bit global loads, WMMA in the K
// loop (one loop body of 2 k steps x 16 atoms per wave), LDS double buffering (2 stages).
#include <kernels/gemm/gemm_kernel.hpp>

#include <emit/compile.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

using namespace tw;
using namespace tw::kernels;

namespace {
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}
} // namespace

TEST_CASE("gemm static quality: main f16 config on both backends") {
  gemm_kernel::GemmKernelSpec spec;
  spec.a = spec.b = DType::f16;
  spec.out = DType::f32;
  spec.a_vec_aligned = spec.b_vec_aligned = true;
  const ir::Kernel k = gemm_kernel::build_gemm_kernel(spec);
  CHECK(k.flat_workgroup_size() == 128);
  // 2 stages x (128 + 128 rows) x (32 + 8) f16.
  CHECK(k.lds_bytes == 2 * 256 * 40 * 2);
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const emit::CompileArtifacts art = emit::compile_with_artifacts(k, b, Arch::gfx1201);
    const emit::ResourceReport& r = art.code_object.resources;
    const int wmma = count(art.assembly, "v_wmma_f32_16x16x16_f16");
    const int b128 = count(art.assembly, "global_load_b128");
    std::printf("gemm f16 128x128x32 (%s): %d VGPRs, %d SGPRs, %lld B LDS, %lld B scratch, %d "
                "waves/SIMD, %d v_wmma, %d global_load_b128 in the assembly\n",
                std::string(emit::backend_name(b)).c_str(), r.vgprs, r.sgprs,
                static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                r.waves_per_simd, wmma, b128);
    CHECK(r.scratch_bytes == 0);
    CHECK(r.lds_bytes <= 65536);
    CHECK(r.waves_per_simd >= 2);
    CHECK(b128 >= 8); // 4 passes each for A and B per K tile (prologue and loop)
    CHECK(wmma >= 32);
    CHECK(count(art.assembly, "s_barrier") >= 2);
    CHECK(count(art.assembly, "s_cbranch") >= 1);
  }
}
