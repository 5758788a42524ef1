// Device selection and the HIP device's behaviour on a machine without a HIP runtime.
#include "runtime/emu/emu_test_util.hpp"

#include <runtime/device.hpp>
#include <runtime/hip/hip_device.hpp>

#include <cstdlib>
#include <string>

using namespace tw::runtime;

namespace {

// Sets an environment variable for the scope of one test.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(const char* n, const char* v) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (o)
      old = o;
    if (v)
      setenv(n, v, 1);
    else
      unsetenv(n);
  }
  ~ScopedEnv() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

std::string error_of(auto f) {
  try {
    f();
  } catch (const DeviceError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("HipDevice without a HIP runtime fails with a clear message") {
  ScopedEnv lib("TILEWAVE_HIP_LIBRARY", "libamdhip64_not_installed_here.so");
  const std::string err = error_of([] { HipDevice d; });
  CAPTURE(err);
  CHECK(err.find("HipDevice: cannot load the HIP runtime 'libamdhip64_not_installed_here.so'") !=
        std::string::npos);
  CHECK(err.find("TILEWAVE_DEVICE=emu") != std::string::npos);
  CHECK_FALSE(HipDevice::available());
  CHECK(error_of([] { make_device(DeviceKind::Hip); }) == err);
}

TEST_CASE("HipDevice on this machine: absent runtime or no gfx12 GPU, never a crash") {
  ScopedEnv lib("TILEWAVE_HIP_LIBRARY", nullptr);
  const std::string err = error_of([] { HipDevice d; });
  if (!err.empty()) {
    CAPTURE(err);
    CHECK(err.rfind("HipDevice: ", 0) == 0);
  }
}

TEST_CASE("default device: TILEWAVE_DEVICE selects, emulator when no gfx12 GPU") {
  {
    ScopedEnv dev("TILEWAVE_DEVICE", "emu");
    auto d = make_default_device();
    CHECK(d->is_emulator());
  }
  {
    ScopedEnv dev("TILEWAVE_DEVICE", "cuda");
    const std::string err = error_of([] { make_default_device(); });
    CHECK(err == "TILEWAVE_DEVICE=cuda: device kind 'cuda' is not one of: hip, emu");
  }
  {
    ScopedEnv dev("TILEWAVE_DEVICE", nullptr);
    ScopedEnv lib("TILEWAVE_HIP_LIBRARY", "libamdhip64_not_installed_here.so");
    CHECK(make_default_device()->is_emulator());
  }
  {
    ScopedEnv dev("TILEWAVE_DEVICE", "hip");
    ScopedEnv lib("TILEWAVE_HIP_LIBRARY", "libamdhip64_not_installed_here.so");
    CHECK(error_of([] { make_default_device(); }).find("TILEWAVE_DEVICE=hip: HipDevice:") == 0);
  }
}

TEST_CASE("EmuDevice: errors name the call") {
  EmuDevice d;
  const DevicePtr p = d.allocate(16);
  int buf[8] = {};
  CHECK(error_of([&] { d.copy_to_device(p, buf, 32); }).rfind("Device::copy_to_device:", 0) == 0);
  CHECK(error_of([&] { d.copy_to_host(buf, p + 8, 16); }).rfind("Device::copy_to_host:", 0) == 0);
  CHECK(error_of([&] { d.free(p + 4); }).rfind("Device::free:", 0) == 0);
  const uint8_t junk[80] = {1, 2, 3};
  CHECK(error_of([&] {
          d.load_code_object(junk);
        }).rfind("Device::load_code_object: code object: not an ELF", 0) == 0);
  const auto v = tw::test::kernel_variants("core_control")[3];
  auto m = d.load_code_object(tw::test::read_file_bytes(v.path));
  CHECK(error_of([&] { d.get_kernel(m, "nope"); }) ==
        "Device::get_kernel: code object has no kernel 'nope' (kernels: collatz, ids3d)");
  auto k = d.get_kernel(m, "collatz");
  CHECK(error_of([&] {
          d.launch(k, {1, 1, 1}, {2048, 1, 1}, {});
        }).find("1..1024 work-items") != std::string::npos);
  CHECK(error_of([&] {
          d.launch(k, {1, 1, 1}, {64, 1, 1}, {}, 70000);
        }).find("exceeds 64 KiB") != std::string::npos);
  const uint8_t short_args[8] = {};
  CHECK(error_of([&] {
          d.launch(k, {1, 1, 1}, {64, 1, 1}, short_args);
        }) == "Device::launch: launch of collatz: 8 bytes of kernel arguments given, its explicit "
              "arguments need 28 (see the code object's .args metadata)");
  d.free(p);
}
