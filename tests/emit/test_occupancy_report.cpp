// The resource report's occupancy (atoms/occupancy.hpp: VGPRs, LDS per WGP, workgroup size) is
// the "; Occupancy: N" LLVM prints in the assembly, on both backends, for kernels limited by
// each of the rules: none (16 waves), LDS with small and large workgroups, the wave slots of a
// 1024-lane workgroup.
#include <emit/compile.hpp>
#include <emit/sample_kernels.hpp>

#include <doctest/doctest.h>

#include <regex>
#include <string>

using namespace tw;

namespace {

int llvm_occupancy(const std::string& assembly) {
  std::smatch m;
  const std::regex occ(R"(; Occupancy: (\d+))");
  REQUIRE(std::regex_search(assembly, m, occ));
  return std::stoi(m[1]);
}

ir::Kernel with_lds(ir::Kernel k, int64_t bytes) {
  k.lds_bytes = bytes;
  return k;
}

} // namespace

TEST_CASE("resource report occupancy agrees with the Occupancy LLVM prints") {
  struct Case {
    const char* what;
    ir::Kernel kernel;
    int expected; // by hand from atoms/occupancy.hpp's rule
  };
  const Case cases[] = {
      {"vector_add, no LDS", emit::samples::vector_add(256, 4), 16},
      {"128 lanes, 40 KiB LDS: 3 workgroups of 4 waves per WGP",
       with_lds(emit::samples::lds_reverse(128), 40960), 3},
      {"256 lanes, 20000 B LDS (20480 allocated): 6 workgroups of 8 waves",
       with_lds(emit::samples::lds_reverse(256), 20000), 12},
      {"64 lanes, 64 KiB LDS: 2 workgroups of 2 waves over 4 SIMDs",
       with_lds(emit::samples::lds_reverse(64), 65536), 1},
      {"1024 lanes, 4 KiB LDS", emit::samples::lds_reverse(1024), 16},
  };
  for (const Case& c : cases) {
    for (emit::Backend b : {emit::Backend::hip, emit::Backend::llvm}) {
      CAPTURE(c.what);
      CAPTURE(emit::backend_name(b));
      const emit::CompileArtifacts art = emit::compile_with_artifacts(c.kernel, b, Arch::gfx1201);
      const emit::ResourceReport& r = art.code_object.resources;
      CHECK(r.lds_bytes == c.kernel.lds_bytes);
      CHECK(r.workgroup_size == c.kernel.flat_workgroup_size());
      CHECK(r.waves_per_simd == llvm_occupancy(art.assembly));
      CHECK(r.waves_per_simd == c.expected);
    }
  }
}

TEST_CASE("occupancy rule: VGPR granule, LDS granule, limiter") {
  CHECK(compute_occupancy(96, 0, 1).waves_per_simd == 16);
  CHECK(compute_occupancy(97, 0, 1).waves_per_simd == 12); // 120 allocated
  CHECK(compute_occupancy(215, 0, 4).waves_per_simd == 7); // 216 allocated
  CHECK(compute_occupancy(215, 0, 4).limiter == OccupancyLimiter::vgprs);
  const Occupancy gemm = compute_occupancy(215, 40960, 4); // the f16 GEMM's 128x128 config
  CHECK(gemm.waves_per_simd == 3);
  CHECK(gemm.workgroups_per_wgp == 3);
  CHECK(gemm.limiter == OccupancyLimiter::lds);
  CHECK(compute_occupancy(16, 32769, 4).waves_per_simd == 3); // 33280 allocated: 3 groups
  CHECK(compute_occupancy(16, 32768, 4).waves_per_simd == 4);
  CHECK(compute_occupancy(16, 0, 64).workgroups_per_wgp == 1);  // 16 waves per SIMD
  CHECK(compute_occupancy(256, 0, 64).workgroups_per_wgp == 0); // 5 waves per SIMD: no fit
}
