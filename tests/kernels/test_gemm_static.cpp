// Static quality of the main f16 GEMM config (128 x 128 block tile, 4 waves, 16-byte aligned
// operands), from the resource report and the assembly of both backends: no scratch, LDS
// within 64 KiB, VGPRs allowing >= 2 waves per SIMD, 128-bit global loads, WMMA in the K
// loop (one loop body of 2 k steps x 16 atoms per wave), LDS double buffering (2 stages).
#include <kernels/gemm/gemm_kernel.hpp>

#include <emit/compile.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <regex>
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

int llvm_occupancy(const std::string& assembly) {
  std::smatch m;
  const std::regex occ(R"(; Occupancy: (\d+))");
  REQUIRE(std::regex_search(assembly, m, occ));
  return std::stoi(m[1]);
}
} // namespace

TEST_CASE("gemm static quality: main f16 config on both backends") {
  gemm_kernel::GemmKernelSpec spec;
  spec.a = spec.b = DType::f16;
  spec.out = DType::f32;
  spec.a_vec_aligned = spec.b_vec_aligned = true;
  const ir::Kernel k = gemm_kernel::build_gemm_kernel(spec);
  CHECK(k.flat_workgroup_size() == 128);
  // 2 stages x (128 + 128 rows) x 32 f16: swizzled, not padded (4 workgroups per WGP).
  CHECK(k.lds_bytes == 2 * 256 * 32 * 2);
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const emit::CompileArtifacts art = emit::compile_with_artifacts(k, b, Arch::gfx1201);
    const emit::ResourceReport& r = art.code_object.resources;
    const int wmma = count(art.assembly, "v_wmma_f32_16x16x16_f16");
    const int b128 = count(art.assembly, "global_load_b128");
    const int buffer_b128 = count(art.assembly, "buffer_load_b128");
    std::printf("gemm f16 128x128x32 (%s): %d VGPRs, %d SGPRs, %lld B LDS, %lld B scratch, %d "
                "waves/SIMD, %d v_wmma, %d buffer_load_b128 and %d global_load_b128 in the "
                "assembly\n",
                std::string(emit::backend_name(b)).c_str(), r.vgprs, r.sgprs,
                static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                r.waves_per_simd, wmma, buffer_b128, b128);
    CHECK(r.scratch_bytes == 0);
    CHECK(r.lds_bytes <= 65536);
    CHECK(r.waves_per_simd >= 4);
    CHECK(r.waves_per_simd == llvm_occupancy(art.assembly)); // LDS, VGPRs and workgroup size
    // 4 passes each for A and B per K tile (the prologue's tile and the loop's one: with masked
    // copies the K loop is pipeline<2> with the plain tile gemm, gemm_body.hpp): buffer loads
    // on the whole-tile path (dsl/copy/buffer_global_tile.hpp), 128-bit global loads on the
    // edge-tile path.
    CHECK(buffer_b128 == 16);
    CHECK(b128 >= 8);
    CHECK(wmma >= 32);
    CHECK(count(art.assembly, "s_barrier") >= 2);
    CHECK(count(art.assembly, "s_cbranch") >= 1);
  }
}

// The same config with clipped edges (what a launch with 16-byte aligned operands, K a multiple
// of 8 and ldo >= N runs): every tile of A and B through clipped buffer descriptors and the
// output through clipped buffer stores, so no global load or store and no per-element branch
// is left: one straight block of buffer loads per K tile, the K-edge tile's included.
TEST_CASE("gemm static quality: main f16 config with clipped edges on both backends") {
  gemm_kernel::GemmKernelSpec spec;
  spec.a = spec.b = DType::f16;
  spec.out = DType::f32;
  spec.a_vec_aligned = spec.b_vec_aligned = true;
  spec.a_clipped = spec.b_clipped = spec.out_clipped = true;
  const ir::Kernel k = gemm_kernel::build_gemm_kernel(spec);
  for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
    CAPTURE(emit::backend_name(b));
    const emit::CompileArtifacts art = emit::compile_with_artifacts(k, b, Arch::gfx1201);
    const emit::ResourceReport& r = art.code_object.resources;
    const int buffer_b128 = count(art.assembly, "buffer_load_b128");
    const int execz = count(art.assembly, "s_cbranch_execz");
    std::printf("gemm f16 128x128x32 clipped (%s): %d VGPRs, %lld B scratch, %d waves/SIMD, %d "
                "buffer_load_b128, %d buffer_store_b32, %d s_cbranch_execz\n",
                std::string(emit::backend_name(b)).c_str(), r.vgprs,
                static_cast<long long>(r.scratch_bytes), r.waves_per_simd, buffer_b128,
                count(art.assembly, "buffer_store_b32"), execz);
    CHECK(r.scratch_bytes == 0);
    CHECK(r.waves_per_simd >= 4);
    CHECK(count(art.assembly, "global_load") == 0);
    CHECK(count(art.assembly, "global_store") == 0);
    // 8 runs per K tile (4 of A, 4 of B), for the prologue and the loop's two K tiles.
    CHECK(buffer_b128 == 24);
    CHECK(count(art.assembly, "buffer_store_b32") == 128); // the 128 f32 values of a lane
    CHECK(count(art.assembly, "v_wmma_f32_16x16x16_f16") >= 32);
  }
}

TEST_CASE("gemm resource report occupancy agrees with LLVM's Occupancy comment") {
  using gemm_kernel::GemmKernelSpec;
  GemmKernelSpec fp8; // 8-bit operands: K tile 64, the same LDS bytes
  fp8.a = fp8.b = DType::e4m3;
  fp8.out = DType::bf16;
  fp8.a_vec_aligned = fp8.b_vec_aligned = true;
  fp8.scale_a = fp8.scale_b = gemm_kernel::ScaleKind::rowwise;
  GemmKernelSpec fused = fp8; // the quantizing prologue adds LDS rows; LoRA adds VGPRs
  fused.act_quant = gemm_kernel::ActQuant::dynamic_rowwise;
  fused.scale_a = gemm_kernel::ScaleKind::none;
  fused.x = DType::bf16;
  fused.lora = true;
  GemmKernelSpec iu4;
  iu4.a = iu4.b = DType::int4;
  iu4.out = DType::i32;
  iu4.a_vec_aligned = iu4.b_vec_aligned = true;
  for (const GemmKernelSpec& spec : {fp8, fused, iu4}) {
    const ir::Kernel k = gemm_kernel::build_gemm_kernel(spec);
    for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
      CAPTURE(spec.name());
      CAPTURE(emit::backend_name(b));
      const emit::CompileArtifacts art = emit::compile_with_artifacts(k, b, Arch::gfx1201);
      const emit::ResourceReport& r = art.code_object.resources;
      std::printf("%s (%s): %d VGPRs, %lld B LDS, %lld B scratch, %d waves/SIMD (%s)\n",
                  spec.name().c_str(), std::string(emit::backend_name(b)).c_str(), r.vgprs,
                  static_cast<long long>(r.lds_bytes), static_cast<long long>(r.scratch_bytes),
                  r.waves_per_simd, std::string(r.occupancy_limiter).c_str());
      CHECK(r.waves_per_simd == llvm_occupancy(art.assembly));
    }
  }
}

// int8_linear_fused with LoRA as `tilewave aot --all` ships it: the LoRA product accumulates
// onto the main term in the main accumulator's registers (764-804 B of scratch when the two
// accumulators were live together), and the operands move through clipped buffer copies (48-60
// B of scratch with the masked GlobalTile copies' 64-bit addresses: docs/kernels.md).
TEST_CASE("gemm static quality: the LoRA kernel keeps one accumulator live") {
  gemm_kernel::GemmKernelSpec spec;
  spec.a = spec.b = DType::int8;
  spec.out = DType::bf16;
  spec.a_vec_aligned = spec.b_vec_aligned = true;
  spec.scale_b = gemm_kernel::ScaleKind::rowwise;
  spec.act_quant = gemm_kernel::ActQuant::dynamic_rowwise;
  spec.x = DType::bf16;
  spec.lora = spec.lora_vec_aligned = true;
  spec.a_clipped = spec.b_clipped = spec.out_clipped = true;
  const ir::Kernel k = gemm_kernel::build_gemm_kernel(spec);
  for (Arch arch : {Arch::gfx1200, Arch::gfx1201})
    for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
      CAPTURE(emit::backend_name(b));
      CAPTURE(arch_name(arch));
      const emit::ResourceReport r = emit::compile(k, b, arch).resources;
      std::printf("%s (%s, %s): %d VGPRs, %lld B scratch\n", spec.name().c_str(),
                  std::string(emit::backend_name(b)).c_str(), std::string(arch_name(arch)).c_str(),
                  r.vgprs, static_cast<long long>(r.scratch_bytes));
      CHECK(r.scratch_bytes == 0);
    }
}
