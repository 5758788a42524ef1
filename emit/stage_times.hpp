#pragma once
// Where the time of one compile() goes, stage by stage (bench/compile prints it): pass a
// CompileStageTimes through CompileOptions::stage_times. Stages a compile does not run stay 0;
// a stage run twice adds up.
#include <chrono>

namespace tw::emit {

struct CompileStageTimes {
  double verify_s = 0;    // ir::verify (a miss only: a hit is a kernel verified before)
  double key_s = 0;       // hashing the IR and the key's other parts
  double toolchain_s = 0; // the toolchain identity (stamps, cached version text)
  double memory_s = 0;    // the memory cache look-up
  double disk_read_s = 0; // reading and checking the disk entry
  double describe_s = 0;  // the code object's metadata: from the ELF on a miss, the entry on a hit
  double build_module_s = 0; // llvm: IRBuilder lowering + llvm::verifyModule
  double optimize_s = 0;     // llvm: the O<n> pass pipeline
  double codegen_s = 0;      // llvm: AMDGPU instruction selection .. object file
  double link_s = 0;         // llvm: lld in process
  double hip_compile_s = 0;  // hip: emitting the source and the clang process
  double disk_write_s = 0;   // storing the entry

  double total_s() const {
    return verify_s + key_s + toolchain_s + memory_s + disk_read_s + describe_s + build_module_s +
           optimize_s + codegen_s + link_s + hip_compile_s + disk_write_s;
  }
};

// Adds the seconds from construction to destruction to *slot (nothing when slot is null).
class StageTimer {
public:
  explicit StageTimer(double* slot) : slot_(slot), start_(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    if (slot_)
      *slot_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

private:
  double* slot_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace tw::emit
