// Occupancy from VGPRs, LDS and workgroup size, against hand-computed values and against the
// "; Occupancy:" LLVM prints for the timing test kernels (timing.gfx1201.O3.s).
#include "../emu_test_util.hpp"

#include <runtime/emu/code_object.hpp>
#include <runtime/emu/timing/occupancy.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace tw;
using namespace tw::emu::timing;

TEST_CASE("occupancy: VGPR granule of 24, 1536 per SIMD, at most 16 waves") {
  const MachineModel m = machine_by_name("gfx1201");
  CHECK(compute_occupancy(m, 32, 0, 1).waves_per_simd == 16);
  CHECK(compute_occupancy(m, 96, 0, 1).waves_per_simd == 16); // 1536 / 96
  CHECK(compute_occupancy(m, 97, 0, 1).waves_per_simd == 12); // 120 allocated
  CHECK(compute_occupancy(m, 217, 0, 8).waves_per_simd == 6); // 240 allocated
  CHECK(compute_occupancy(m, 217, 0, 8).vgprs_allocated == 240);
  CHECK(compute_occupancy(m, 256, 0, 8).waves_per_simd == 5); // 264 allocated
  CHECK(compute_occupancy(m, 256, 0, 8).workgroups_per_wgp == 2);
  CHECK(compute_occupancy(m, 256, 0, 8).limiter == "VGPRs");
}

TEST_CASE("occupancy: LDS per WGP limits resident workgroups") {
  const MachineModel m = machine_by_name("gfx1201");
  const tw::emu::timing::Occupancy o =
      compute_occupancy(m, 16, 40 * 1024, 4); // shared/RDNA4.md's example
  CHECK(o.workgroups_per_wgp == 3);
  CHECK(o.waves_per_simd == 3);
  CHECK(o.limiter == "LDS");
  CHECK(compute_occupancy(m, 16, 64 * 1024, 16).waves_per_simd == 8);
  CHECK_THROWS_WITH_AS(compute_occupancy(m, 16, 0, 0), doctest::Contains("waves per workgroup"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(compute_occupancy(m, 16, 200000, 4), doctest::Contains("does not fit"),
                       std::invalid_argument);
}

TEST_CASE("occupancy agrees with the Occupancy comment LLVM prints for the timing test kernels") {
  // The assembly: kernel name -> LLVM's occupancy.
  std::ifstream f(std::string(TW_TEST_KERNEL_DIR) + "/timing.gfx1201.O3.s");
  REQUIRE(f);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  std::map<std::string, int> llvm;
  const std::regex fn(R"(\n(occupancy_\w+):)"), occ(R"(; Occupancy: (\d+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), fn); it != std::sregex_iterator();
       ++it) {
    std::smatch m;
    const std::string rest = text.substr(static_cast<size_t>(it->position()));
    REQUIRE(std::regex_search(rest, m, occ));
    llvm[(*it)[1]] = std::stoi(m[1]);
  }
  REQUIRE(llvm.size() == 6);
  const auto co = emu::CodeObject::load(
      test::read_file_bytes(std::string(TW_TEST_KERNEL_DIR) + "/timing.gfx1201.O3.hsaco"));
  const MachineModel m = machine_by_name("gfx1201");
  for (const auto& [name, expected] : llvm) {
    CAPTURE(name);
    const emu::KernelInfo& k = co->kernel(name);
    const int waves = static_cast<int>((k.max_flat_workgroup_size + 31) / 32);
    CHECK(compute_occupancy(m, static_cast<int>(k.metadata_vgpr_count), k.group_segment_size, waves)
              .waves_per_simd == expected);
  }
  CHECK(llvm["occupancy_v100"] == 12); // the values differ: each limit is exercised
  CHECK(llvm["occupancy_lds40k"] == 3);
}
