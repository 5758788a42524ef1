// Cache residency across launches (runtime/emu/timing/cache_residency.*, EmuDevice): the
// record on its own with hand-computed bytes, then launches of stream_copy
// (tests/runtime/emu/kernels/timing.hip: one 128-byte line of `in` read and one of `out`
// written per workgroup) on one EmuDevice.
#include "../emu_test_util.hpp"

#include <runtime/emu/timing/cache_residency.hpp>
#include <runtime/emu/timing/launch_model.hpp>

#include <stdexcept>

using namespace tw;
using namespace tw::emu::timing;

namespace {

constexpr double MiB = 1024.0 * 1024.0;
constexpr uint64_t A = 0x1000, B = 0x2000;

void check_held(const CacheResidency& r, uint64_t base, double l2_mib, double mall_mib) {
  const HeldBytes h = r.held(base);
  CHECK(h.l2 == doctest::Approx(l2_mib * MiB));
  CHECK(h.mall == doctest::Approx(mall_mib * MiB));
}

} // namespace

TEST_CASE("cache residency: gfx1201 holds 64 MiB, the most recent 8 MiB in the L2") {
  CacheResidency r(machine_by_name("gfx1201"));
  CHECK(r.l2_bytes() == 8 * MiB);
  CHECK(r.capacity() == 64 * MiB);
  const AllocationBytes a32[] = {{A, 32 * MiB}};
  r.record(a32);
  check_held(r, A, 8, 24); // all 32 MiB held
  check_held(r, B, 0, 0);
  // Larger than the capacity: 64 of the 96 MiB stay.
  const AllocationBytes a96[] = {{A, 96 * MiB}};
  r.record(a96);
  check_held(r, A, 8, 56);
  CHECK(r.total() == doctest::Approx(64 * MiB));
  r.clear();
  check_held(r, A, 0, 0);
}

TEST_CASE("cache residency: allocations of one launch share the capacity and the L2") {
  CacheResidency r(machine_by_name("gfx1201"));
  // 48 + 48 MiB touched together: each keeps 64 x 48 / 96 = 32 MiB, 4 MiB of it in the L2.
  const AllocationBytes both[] = {{A, 48 * MiB}, {B, 48 * MiB}};
  r.record(both);
  check_held(r, A, 4, 28);
  check_held(r, B, 4, 28);
}

TEST_CASE("cache residency: a newer launch pushes the older one out, a re-touch refreshes it") {
  CacheResidency r(machine_by_name("gfx1201"));
  const AllocationBytes a40[] = {{A, 40 * MiB}}, b40[] = {{B, 40 * MiB}};
  r.record(a40);
  r.record(b40);
  check_held(r, B, 8, 32); // the most recent: its first 8 MiB fill the L2's share
  check_held(r, A, 0, 24); // 64 - 40 MiB of the older launch stay
  // A again: its 24 held MiB count as touched again, all 40 MiB are the most recent; B keeps
  // the 24 MiB that still fit.
  r.record(a40);
  check_held(r, A, 8, 32);
  check_held(r, B, 0, 24);
  r.forget(A);
  check_held(r, A, 0, 0);
  check_held(r, B, 0, 24);
}

TEST_CASE("cache residency: gfx1200 holds half as much (32 MiB, 4 MiB of L2)") {
  CacheResidency r(machine_by_name("gfx1200"));
  CHECK(r.capacity() == 32 * MiB);
  const AllocationBytes a24[] = {{A, 24 * MiB}}, a48[] = {{A, 48 * MiB}};
  r.record(a24);
  check_held(r, A, 4, 20);
  r.record(a48);
  check_held(r, A, 4, 28);
}

TEST_CASE("cache residency: many small launches keep the most recent 4096 entries") {
  CacheResidency r(machine_by_name("gfx1201"));
  for (uint64_t i = 0; i < 5000; ++i) {
    const AllocationBytes one[] = {{0x100000 + i * 256, 1.0}};
    r.record(one);
  }
  CHECK(r.total() == 4096.0); // one byte each
  CHECK(r.held(0x100000 + 4999 * 256).total() == 1.0);
  CHECK(r.held(0x100000 + 903 * 256).total() == 0.0); // 5000 - 4096 = 904 oldest dropped
  CHECK(r.held(0x100000 + 904 * 256).total() == 1.0);
}

TEST_CASE("cache residency: an L2 larger than the capacity is refused") {
  CHECK_THROWS_WITH_AS(CacheResidency(8 * MiB, 4 * MiB), doctest::Contains("at most the capacity"),
                       std::invalid_argument);
}

namespace {

const std::string kPath = std::string(TW_TEST_KERNEL_DIR) + "/timing.gfx1201.O3.hsaco";

// stream_copy over two buffers of `mib` MiB on one device, modeled on `machine` from 3
// sampled workgroups.
struct Copies {
  test::EmuRun run{kPath};
  runtime::DevicePtr in = 0, out = 0;
  uint32_t groups = 0;
  Copies(double mib, const std::string& machine) {
    const size_t bytes = size_t(mib * MiB);
    groups = static_cast<uint32_t>(bytes / 128);
    in = run.alloc<float>(bytes / 4);
    out = run.alloc<float>(bytes / 4);
    TimingOptions o;
    o.machine = machine;
    o.model_only = true;
    run.dev.set_timing_model(o);
  }
  TimingReport copy() {
    runtime::KernelArgs a;
    a.ptr(in);
    a.ptr(out);
    run.launch("stream_copy", {groups, 1, 1}, {32, 1, 1}, a);
    REQUIRE(run.dev.last_timing().has_value());
    return *run.dev.last_timing();
  }
};

} // namespace

TEST_CASE("cache residency: a second launch over 8 + 8 MiB moves nothing from DRAM") {
  Copies c(8, "gfx1201");
  const TimingReport first = c.copy();
  CHECK(first.dram_bytes == doctest::Approx(16 * MiB)); // each buffer's 8 MiB
  CHECK(first.held_l2_bytes + first.held_mall_bytes == 0);
  const TimingReport second = c.copy();
  CHECK(second.dram_bytes == doctest::Approx(0));
  CHECK(second.held_l2_bytes == doctest::Approx(8 * MiB)); // 4 MiB of each in the L2
  CHECK(second.held_mall_bytes == doctest::Approx(8 * MiB));
  CHECK(second.l2_bytes == first.l2_bytes); // the requests are the same
  CHECK(second.seconds <= first.seconds);
  // Reset: cold again, the first launch's figures exactly.
  c.run.dev.reset_timing_caches();
  const TimingReport cold = c.copy();
  CHECK(cold.exact() == first.exact());
  // The host rewrites `in`: only `out` is still held.
  (void)c.copy();
  std::vector<float> ones(8 * 1024 * 1024 / 4, 1.0f);
  c.run.dev.copy_to_device(c.in, ones.data(), ones.size() * 4);
  CHECK(c.copy().dram_bytes == doctest::Approx(8 * MiB));
  // Options for the same machine keep the record; turning the model off empties it.
  TimingOptions o;
  o.model_only = true;
  c.run.dev.set_timing_model(o);
  CHECK(c.copy().dram_bytes == doctest::Approx(0));
  c.run.dev.set_timing_model(std::nullopt);
  CHECK_FALSE(c.run.dev.timing_caches().has_value());
  c.run.dev.set_timing_model(o);
  CHECK(c.copy().exact() == first.exact());
}

TEST_CASE("cache residency: buffers larger than the capacity stay in part, by capacity") {
  // 48 + 48 MiB: gfx1201 keeps 64 MiB of the 96 the first launch touched, gfx1200 32 MiB.
  Copies big(48, "gfx1201");
  CHECK(big.copy().dram_bytes == doctest::Approx(96 * MiB));
  CHECK(big.copy().dram_bytes == doctest::Approx(32 * MiB));
  Copies small(48, "gfx1200");
  CHECK(small.copy().dram_bytes == doctest::Approx(96 * MiB));
  CHECK(small.copy().dram_bytes == doctest::Approx(64 * MiB));
}

TEST_CASE("cache residency: 24 + 24 MiB stay whole on gfx1201, not on gfx1200's 32 MiB") {
  Copies big(24, "gfx1201");
  (void)big.copy();
  CHECK(big.copy().dram_bytes == doctest::Approx(0));
  Copies small(24, "gfx1200");
  (void)small.copy();
  CHECK(small.copy().dram_bytes == doctest::Approx(16 * MiB)); // 48 - 32
}
