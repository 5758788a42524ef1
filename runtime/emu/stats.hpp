#pragma once
// Per-launch statistics of the emulator: dynamic wave-instruction counts by class, bytes
// moved, WMMA work.
#include <runtime/emu/decoded_instr.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace tw::emu {

struct LaunchStats {
  std::array<uint64_t, static_cast<size_t>(InstrClass::Count)> instructions{}; // by class
  uint64_t global_bytes_read = 0, global_bytes_written = 0; // incl. scalar loads, flat, buffer
  // The part of global_bytes_read that scalar loads took from the launch's kernel-argument
  // segment (not tensor data: what a kernel's own reads are measured without).
  uint64_t kernarg_bytes_read = 0;
  uint64_t lds_bytes_read = 0, lds_bytes_written = 0;
  uint64_t wmma_instructions = 0;
  uint64_t wmma_ops = 0; // 2*M*N*K per WMMA / SWMMAC (SWMMAC counted as its dense shape)
  uint64_t workgroups = 0, waves = 0;
  double seconds = 0; // wall time of the launch

  uint64_t count(InstrClass c) const { return instructions[static_cast<size_t>(c)]; }
  uint64_t total_instructions() const;
  void merge(const LaunchStats& o);
  std::string to_string() const; // multi-line, human readable
  std::string to_json() const;   // one JSON object
};

const char* class_name(InstrClass c); // "SALU", "VALU", ...

} // namespace tw::emu
