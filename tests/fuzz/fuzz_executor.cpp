// libFuzzer target: the emulator's executor on random instruction streams. Each input is the
// body of the fuzz_body template kernel (tests/fuzz/executor_harness.hpp); the launch must
// run or end in an emu::EmuError. A crash, hang, sanitizer report or other exception is a
// finding. Built by scripts/fuzz.sh; the template path comes from TW_FUZZ_EXECUTOR_TEMPLATE.
#include "executor_harness.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {
const tw::fuzz::ExecutorTemplate* g_template = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("TW_FUZZ_EXECUTOR_TEMPLATE");
  static const tw::fuzz::ExecutorTemplate t =
      tw::fuzz::load_executor_template(path ? path : TW_FUZZ_EXECUTOR_TEMPLATE);
  g_template = &t;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tw::fuzz::run_instruction_stream(*g_template, {data, size});
  return 0;
}
