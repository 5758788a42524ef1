// runtime/emu/timing/launch_model.*: TimingReport::exact(), every modeled figure at full
// precision, so that scripts/check_timing_exact.sh can compare two builds bit for bit; the
// queue rules (how many workgroups the WGP simulation replays).
#include <doctest/doctest.h>

#include <runtime/emu/timing/launch_model.hpp>

#include <stdexcept>
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

TEST_CASE("queue rules: workgroups simulated per resident count, capped by the queue") {
  // two-rounds: max(max_simulated_groups, 2 x resident); turnover: 2 x resident;
  // resident-half: resident + max(2, resident / 2).
  CHECK(simulated_groups(QueueRule::two_rounds, 6, 1, 32) == 6);
  CHECK(simulated_groups(QueueRule::two_rounds, 6, 2, 32) == 6);
  CHECK(simulated_groups(QueueRule::two_rounds, 6, 4, 32) == 8);
  CHECK(simulated_groups(QueueRule::two_rounds, 6, 6, 32) == 12);
  CHECK(simulated_groups(QueueRule::two_rounds, 12, 4, 32) == 12);
  CHECK(simulated_groups(QueueRule::turnover, 6, 1, 32) == 2);
  CHECK(simulated_groups(QueueRule::turnover, 6, 2, 32) == 4);
  CHECK(simulated_groups(QueueRule::turnover, 6, 6, 32) == 12);
  CHECK(simulated_groups(QueueRule::resident_half, 6, 1, 32) == 3);
  CHECK(simulated_groups(QueueRule::resident_half, 6, 4, 32) == 6);
  CHECK(simulated_groups(QueueRule::resident_half, 6, 6, 32) == 9);
  CHECK(simulated_groups(QueueRule::resident_half, 6, 8, 32) == 12);
  // A queue shorter than the rule's count is simulated whole.
  CHECK(simulated_groups(QueueRule::two_rounds, 6, 4, 5) == 5);
  CHECK(simulated_groups(QueueRule::turnover, 6, 6, 1) == 1);
}

TEST_CASE("queue rules: names round-trip and an unknown name is refused naming the known ones") {
  for (QueueRule r : {QueueRule::two_rounds, QueueRule::turnover, QueueRule::resident_half})
    CHECK(parse_queue_rule(queue_rule_name(r)) == r);
  CHECK(TimingOptions{}.queue_rule == QueueRule::two_rounds);
  try {
    (void)parse_queue_rule("half");
    FAIL("parse_queue_rule accepted 'half'");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("queue rule 'half' unknown") != std::string::npos);
    CHECK(what.find("two-rounds, turnover, resident-half") != std::string::npos);
  }
}
