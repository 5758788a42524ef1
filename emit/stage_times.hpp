#pragma once
// Where the time of one compile() goes, stage by stage (bench/compile prints it): pass a
// CompileStageTimes through CompileOptions::stage_times. Each stage has its wall-clock time and
// the CPU time of the thread that ran it (CLOCK_THREAD_CPUTIME_ID): on a shared, loaded machine
// the wall clock also counts the time other processes had the core, the thread's CPU time does
// not. Stages a compile does not run stay 0; a stage run twice adds up.
#include <chrono>
#include <ctime>

namespace tw::emit {

struct StageTime {
  double wall_s = 0; // steady clock
  double cpu_s = 0;  // this thread's CPU time (a child process's, e.g. clang's, is not in it)

  StageTime& operator+=(const StageTime& o) {
    wall_s += o.wall_s;
    cpu_s += o.cpu_s;
    return *this;
  }
};

struct CompileStageTimes {
  StageTime verify;       // ir::verify (a miss only: a hit is a kernel verified before)
  StageTime key;          // hashing the IR and the key's other parts
  StageTime toolchain;    // the toolchain identity (stamps, cached version text)
  StageTime memory;       // the memory cache look-up
  StageTime disk_read;    // reading and checking the disk entry
  StageTime describe;     // the code object's metadata: from the ELF on a miss, the entry on a hit
  StageTime build_module; // llvm: IRBuilder lowering + llvm::verifyModule
  StageTime optimize;     // llvm: the O<n> IR pass pipeline
  StageTime codegen;      // llvm: AMDGPU instruction selection .. object file
  StageTime link;         // llvm: lld in process
  StageTime hip_compile;  // hip: emitting the source and the clang process
  StageTime disk_write;   // storing the entry

  StageTime total() const {
    StageTime t;
    for (const StageTime* s :
         {&verify, &key, &toolchain, &memory, &disk_read, &describe, &build_module, &optimize,
          &codegen, &link, &hip_compile, &disk_write})
      t += *s;
    return t;
  }
};

// The calling thread's CPU time in seconds.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Adds the wall and thread CPU seconds from construction to destruction to *slot (nothing when
// slot is null).
class StageTimer {
public:
  explicit StageTimer(StageTime* slot)
      : slot_(slot),
        wall0_(slot ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}),
        cpu0_(slot ? thread_cpu_seconds() : 0) {}
  ~StageTimer() {
    if (!slot_)
      return;
    slot_->wall_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
    slot_->cpu_s += thread_cpu_seconds() - cpu0_;
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

private:
  StageTime* slot_;
  std::chrono::steady_clock::time_point wall0_;
  double cpu0_;
};

} // namespace tw::emit
