// TimingReport::exact() (runtime/emu/timing/launch_model.*): every modeled figure at full
// precision, so that scripts/check_timing_exact.sh can compare two builds bit for bit.
#include <doctest/doctest.h>

#include <runtime/emu/timing/launch_model.hpp>

#include <string>

using namespace tw::emu::timing;

namespace {

TimingReport report() {
  TimingReport r;
  // Constructed strings, not assignments from literals (GCC 12 warns -Wrestrict wrongly on
  // those once inlined).
  r.machine = std::string("gfx1201");
  r.kernel = std::string("kernel_a");
  r.bound = std::string("WMMA");
  r.peak_name = std::string("f32 VALU");
  r.seconds = 1.0;
  r.compute_seconds = 0.75;
  r.l2_bytes = 3.0;
  r.occupancy = {8, 2, 192, "VGPRs"};
  r.workgroups = 4096;
  r.groups_per_wgp = 128;
  r.sampled = 3;
  r.simulated = 6;
  r.wgp_cycles = 123456;
  r.stalls = {{"VALU dependency", 0.5}, {"issue (other waves)", 0.1}};
  return r;
}

} // namespace

TEST_CASE("timing report: exact() prints each figure as a hexadecimal float") {
  const std::string s = report().exact();
  CHECK(s.find("machine gfx1201 kernel kernel_a bound WMMA peak_name f32 VALU\n") == 0);
  CHECK(s.find("\nseconds 0x1p+0\n") != std::string::npos);
  CHECK(s.find("\ncompute_seconds 0x1.8p-1\n") != std::string::npos); // 0.75
  CHECK(s.find("\nl2_bytes 0x1.8p+1\n") != std::string::npos);        // 3
  CHECK(s.find("\noccupancy 8 2 192 VGPRs\n") != std::string::npos);
  CHECK(s.find("\nworkgroups 4096 groups_per_wgp 128 sampled 3 simulated 6 wgp_cycles 123456\n") !=
        std::string::npos);
  CHECK(s.find("\nVALU dependency 0x1p-1\n") != std::string::npos);
  // 0.1 is not a short binary fraction: all 52 bits of its mantissa are printed.
  CHECK(s.find("\nissue (other waves) 0x1.999999999999ap-4\n") != std::string::npos);
}

TEST_CASE("timing report: exact() differs when one stall share differs in its last bit") {
  TimingReport a = report(), b = report();
  b.stalls[1].second = 0.1 + 1.3877787807814457e-17; // the next double above 0.1
  CHECK(b.stalls[1].second != a.stalls[1].second);
  CHECK(a.exact() != b.exact());
  CHECK(a.to_string() == b.to_string()); // the rounded report cannot tell them apart
}
