// libFuzzer target: the .npy reader. Any input must parse or throw npy::Error; a crash,
// sanitizer report, huge allocation or other exception is a finding. Built by scripts/fuzz.sh.
#include <tools/npy/npy.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const tw::npy::Array a = tw::npy::parse(std::span<const uint8_t>(data, size), "fuzz.npy");
    (void)tw::npy::serialize(a);
  } catch (const tw::npy::Error&) {
  }
  return 0;
}
