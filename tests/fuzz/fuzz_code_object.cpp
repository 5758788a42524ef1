// libFuzzer target: the code-object loader and the decoder. Any input must load (ELF checks,
// AMDHSA metadata, descriptors, .text decoded, handlers bound by load) or throw emu::EmuError; a
// crash, hang, sanitizer report, huge allocation or other exception is a finding. Built by
// scripts/fuzz.sh; seeds in tests/fuzz/code_object/ (clang-22 gfx12 code objects).
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/handlers.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20))
    return 0;
  try {
    const auto co = tw::emu::CodeObject::load({data, size});
    for (const std::string& name : co->kernel_names())
      (void)co->kernel(name);
  } catch (const tw::emu::EmuError&) {
  }
  return 0;
}
