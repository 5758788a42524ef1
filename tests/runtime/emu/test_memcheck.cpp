// Memcheck: planted out-of-bounds global reads, LDS overruns and uninitialized LDS reads
// are reported with kernel, pc, instruction, workgroup, wave, lane and address; the same
// kernels with correct arguments run silently.
#include "runtime/emu/emu_test_util.hpp"

#include <cstdlib>
#include <numeric>
#include <string>

using namespace tw;
using runtime::KernelArgs;

namespace {

std::string launch_error(test::EmuRun& run, const std::string& kernel, const KernelArgs& args,
                         unsigned threads) {
  try {
    run.launch(kernel, {1, 1, 1}, {threads, 1, 1}, args);
  } catch (const runtime::DeviceError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("memcheck: out-of-bounds global read is reported, in-bounds twin is silent") {
  for (const auto& v : test::kernel_variants("core_memcheck")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    std::vector<int> a(64);
    std::iota(a.begin(), a.end(), 0);
    auto da = run.upload(a);
    auto dout = run.alloc<int>(64);
    KernelArgs ok;
    ok.ptr(da).ptr(dout).add(0);
    CHECK(launch_error(run, "global_shifted_read", ok, 64) == "");
    CHECK(run.download<int>(dout, 64) == a);
    KernelArgs bad;
    bad.ptr(da).ptr(dout).add(3); // lanes 61..63 read a[64..66]
    const std::string err = launch_error(run, "global_shifted_read", bad, 64);
    CAPTURE(err);
    CHECK(err.find("memcheck: global read of 4 bytes") != std::string::npos);
    CHECK(err.find("outside every allocation") != std::string::npos);
    CHECK(err.find("kernel global_shifted_read") != std::string::npos);
    CHECK(err.find("workgroup (0,0,0), wave 1") != std::string::npos);
    CHECK(err.find("lane 29") != std::string::npos); // wave 1 lane 29 = work-item 61
    CHECK(err.find(" at pc 0x") != std::string::npos);
    CHECK(err.find("load") != std::string::npos); // the instruction text
    // The address is the first byte past the allocation.
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(da + 64 * 4));
    CHECK(err.find(addr) != std::string::npos);
  }
}

TEST_CASE("memcheck: LDS read past the group segment is reported") {
  for (const auto& v : test::kernel_variants("core_memcheck")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto dout = run.alloc<int>(64);
    KernelArgs ok;
    ok.ptr(dout).add(0);
    CHECK(launch_error(run, "lds_shifted_read", ok, 64) == "");
    auto got = run.download<int>(dout, 64);
    for (int t = 0; t < 64; ++t)
      CHECK(got[t] == t);
    KernelArgs bad;
    bad.ptr(dout).add(70); // s[70..] is past the 256-byte segment
    const std::string err = launch_error(run, "lds_shifted_read", bad, 64);
    CAPTURE(err);
    CHECK(err.find("memcheck: LDS read of 4 bytes at 0x118") != std::string::npos);
    CHECK(err.find("outside the group segment of 256 bytes") != std::string::npos);
    CHECK(err.find("kernel lds_shifted_read") != std::string::npos);
    CHECK(err.find("lane 0") != std::string::npos);
  }
}

TEST_CASE("memcheck: reading LDS never written in the workgroup is reported") {
  for (const auto& v : test::kernel_variants("core_memcheck")) {
    CAPTURE(v.label);
    test::EmuRun run(v.path);
    auto dout = run.alloc<int>(64);
    KernelArgs ok;
    ok.ptr(dout).add(64);
    CHECK(launch_error(run, "lds_partial_init", ok, 64) == "");
    auto got = run.download<int>(dout, 64);
    for (int t = 0; t < 64; ++t)
      CHECK(got[t] == (63 - t) * 2);
    KernelArgs bad;
    bad.ptr(dout).add(40); // s[40..63] never written; work-item 0 reads s[63]
    const std::string err = launch_error(run, "lds_partial_init", bad, 64);
    CAPTURE(err);
    CHECK(err.find("memcheck: LDS read of 4 bytes at 0xfc (lane 0)") != std::string::npos);
    CHECK(err.find("never written in this workgroup") != std::string::npos);
    CHECK(err.find("wave 0") != std::string::npos);
  }
}

TEST_CASE("memcheck: TILEWAVE_EMU_CHECK=0 semantics via set_memcheck(false)") {
  const auto v = test::kernel_variants("core_memcheck")[3]; // gfx1201 -O3
  test::EmuRun run(v.path);
  run.dev.set_memcheck(false);
  std::vector<int> a(64, 9);
  auto da = run.upload(a);
  auto dout = run.alloc<int>(64);
  KernelArgs bad;
  bad.ptr(da).ptr(dout).add(3);
  CHECK(launch_error(run, "global_shifted_read", bad, 64) == "");
  auto got = run.download<int>(dout, 64);
  CHECK(got[60] == 9);
  CHECK(got[61] == 0); // outside every allocation: reads 0 (the host is never touched)
}

TEST_CASE("memcheck: on by default, TILEWAVE_EMU_CHECK=0 turns it off") {
  const char* old = std::getenv("TILEWAVE_EMU_CHECK");
  const std::string saved = old ? old : "";
  unsetenv("TILEWAVE_EMU_CHECK");
  CHECK(runtime::EmuDevice().memcheck());
  setenv("TILEWAVE_EMU_CHECK", "1", 1);
  CHECK(runtime::EmuDevice().memcheck());
  setenv("TILEWAVE_EMU_CHECK", "0", 1);
  CHECK_FALSE(runtime::EmuDevice().memcheck());
  if (old)
    setenv("TILEWAVE_EMU_CHECK", saved.c_str(), 1);
  else
    unsetenv("TILEWAVE_EMU_CHECK");
}
