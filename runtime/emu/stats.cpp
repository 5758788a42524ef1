// Printing and merging of LaunchStats.
#include <runtime/emu/stats.hpp>

#include <fmt/format.h>

namespace tw::emu {

const char* class_name(InstrClass c) {
  switch (c) {
  case InstrClass::Salu:
    return "SALU";
  case InstrClass::Smem:
    return "SMEM";
  case InstrClass::Valu:
    return "VALU";
  case InstrClass::Vmem:
    return "VMEM";
  case InstrClass::Lds:
    return "LDS";
  case InstrClass::Wmma:
    return "WMMA";
  case InstrClass::Branch:
    return "branch";
  case InstrClass::Wait:
    return "wait";
  case InstrClass::Other:
    return "other";
  case InstrClass::Count:
    break;
  }
  return "?";
}

uint64_t LaunchStats::total_instructions() const {
  uint64_t t = 0;
  for (auto v : instructions)
    t += v;
  return t;
}

void LaunchStats::merge(const LaunchStats& o) {
  for (size_t i = 0; i < instructions.size(); ++i)
    instructions[i] += o.instructions[i];
  global_bytes_read += o.global_bytes_read;
  global_bytes_written += o.global_bytes_written;
  kernarg_bytes_read += o.kernarg_bytes_read;
  lds_bytes_read += o.lds_bytes_read;
  lds_bytes_written += o.lds_bytes_written;
  wmma_instructions += o.wmma_instructions;
  wmma_ops += o.wmma_ops;
  workgroups += o.workgroups;
  waves += o.waves;
}

std::string LaunchStats::to_string() const {
  std::string s = fmt::format("workgroups {}  waves {}  wave-instructions {}  time {:.3f} s\n",
                              workgroups, waves, total_instructions(), seconds);
  s += "instructions:";
  for (size_t i = 0; i < instructions.size(); ++i)
    s += fmt::format(" {} {}", class_name(static_cast<InstrClass>(i)), instructions[i]);
  s += fmt::format("\nglobal bytes read {} (kernel arguments {}) written {}\nLDS bytes read {} "
                   "written {}\n",
                   global_bytes_read, kernarg_bytes_read, global_bytes_written, lds_bytes_read,
                   lds_bytes_written);
  s += fmt::format("WMMA instructions {} ops {}\n", wmma_instructions, wmma_ops);
  return s;
}

std::string LaunchStats::to_json() const {
  std::string s = "{\"instructions\":{";
  for (size_t i = 0; i < instructions.size(); ++i)
    s += fmt::format("{}\"{}\":{}", i ? "," : "", class_name(static_cast<InstrClass>(i)),
                     instructions[i]);
  s += fmt::format("}},\"total_instructions\":{},\"global_bytes_read\":{},"
                   "\"kernarg_bytes_read\":{},\"global_bytes_written\":{},\"lds_bytes_read\":{},"
                   "\"lds_bytes_written\":{},"
                   "\"wmma_instructions\":{},\"wmma_ops\":{},\"workgroups\":{},\"waves\":{},"
                   "\"seconds\":{}}}",
                   total_instructions(), global_bytes_read, kernarg_bytes_read,
                   global_bytes_written, lds_bytes_read, lds_bytes_written, wmma_instructions,
                   wmma_ops, workgroups, waves, seconds);
  return s;
}

} // namespace tw::emu
