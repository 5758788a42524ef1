#pragma once
// The executor fuzz target's harness, shared with the regression test that replays its kept
// inputs (tests/runtime/emu/test_fuzz_findings.cpp): an input is an instruction stream that
// replaces the body of s_nop dwords in the fuzz_body template kernel
// (tests/runtime/emu/kernels/fuzz_body.hip); the code object is loaded and launched on the
// emulator with memcheck on and a bounded instruction count. The host must survive any
// stream: the launch runs, or it ends in an emu::EmuError (a decode error, an unimplemented
// instruction, a memcheck report, the instruction budget). Anything else escapes.
#include <runtime/emu/code_object.hpp>
#include <runtime/emu/handlers.hpp>
#include <runtime/emu/launch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tw::fuzz {

constexpr uint32_t kSNop = 0xbf800000u, kSEndpgm = 0xbfb00000u;
constexpr size_t kBodyDwords = 256;
constexpr uint64_t kMaxInstructionsPerWave = 20000; // bounds loops the stream builds

struct ExecutorTemplate {
  std::vector<uint8_t> elf;
  size_t body_offset = 0; // file offset of the first s_nop of the body
};

inline ExecutorTemplate load_executor_template(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::runtime_error("executor fuzz: cannot open the template code object " + path);
  ExecutorTemplate t;
  t.elf.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  // The body: the first run of kBodyDwords s_nop dwords (4-aligned, as .text is).
  size_t run = 0;
  for (size_t off = 0; off + 4 <= t.elf.size(); off += 4) {
    uint32_t w;
    std::memcpy(&w, t.elf.data() + off, 4);
    run = w == kSNop ? run + 1 : 0;
    if (run == kBodyDwords) {
      t.body_offset = off + 4 - 4 * kBodyDwords;
      return t;
    }
  }
  throw std::runtime_error("executor fuzz: " + path + " has no body of 256 s_nop dwords");
}

// Loads the template with `stream` as its body (the rest of the body s_endpgm) and runs
// one workgroup of two waves. Returns the emulator's error sentence, or "" when it ran.
inline std::string run_instruction_stream(const ExecutorTemplate& t,
                                          std::span<const uint8_t> stream) {
  std::vector<uint8_t> elf = t.elf;
  const size_t n = std::min(stream.size(), 4 * kBodyDwords);
  for (size_t off = 0; off < 4 * kBodyDwords; off += 4)
    std::memcpy(elf.data() + t.body_offset + off, &kSEndpgm, 4);
  if (n)
    std::memcpy(elf.data() + t.body_offset, stream.data(), n);
  try {
    const auto co = emu::CodeObject::load(elf);
    const emu::KernelInfo& k = co->kernel("fuzz_body");
    emu::GlobalMemory memory;
    const uint64_t buf = memory.allocate(4096, "fuzz buffer");
    std::memset(reinterpret_cast<void*>(buf), 0x5a, 4096);
    emu::LaunchConfig cfg;
    cfg.grid = {1, 1, 1};
    cfg.block = {64, 1, 1};
    cfg.kernargs.resize(16, 0);
    std::memcpy(cfg.kernargs.data(), &buf, 8);
    const uint32_t count = 1024;
    std::memcpy(cfg.kernargs.data() + 8, &count, 4);
    cfg.memcheck = true;
    cfg.threads = 1;
    cfg.max_instructions_per_wave = kMaxInstructionsPerWave;
    (void)emu::launch(*co, k, memory, cfg);
    return "";
  } catch (const emu::EmuError& e) {
    return e.what();
  }
}

} // namespace tw::fuzz
