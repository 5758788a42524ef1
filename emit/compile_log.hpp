#pragma once
// TILEWAVE_COMPILE_LOG=FILE appends one line per backend run (every compile that was not a
// cache hit) to FILE, from every process and thread that compiles: how a test run's compile
// time splits by kernel, and which code objects it compiled more than once (the same key in
// two lines). Lines are written whole with one append, so processes sharing FILE do not mix
// them. Fields, tab-separated:
//   pid  path  kernel  backend  arch  O<n>  key  cpu_ms  wall_ms  end  child_cpu_ms
// path: compile, artifacts (compile_with_artifacts) or dump (a dumping compile); key: the
// code object's cache key digest (the same for compile() and compile_with_artifacts() of one
// kernel), "-" when the cache is off; cpu_ms: the compiling thread's CPU time (a child
// process's, e.g. clang's, is not in it), wall_ms: the wall-clock time, end: when the run
// ended (seconds since the epoch, to the millisecond: two processes' runs of one key that
// overlap compiled it at once), child_cpu_ms: user + sys of the child processes that ended
// during the run (clang's cc1 and driver for the hip backend; emit::run_process counts them
// per process, so another thread's children then count too).
#include <atoms/arch.hpp>
#include <emit/backend.hpp>

#include <string>
#include <string_view>

namespace tw::emit {

struct BackendRun {
  std::string_view path; // "compile", "artifacts" or "dump"
  std::string_view kernel;
  Backend backend = Backend::llvm;
  Arch arch = Arch::gfx1201;
  int opt_level = 3;
  std::string_view key; // the code object's key digest, or empty
  double cpu_s = 0;
  double wall_s = 0;
  double end_s = 0; // seconds since the epoch
  double child_cpu_s = 0;
};

// The line log_backend_run appends (without its newline).
std::string compile_log_line(const BackendRun& run);

// Appends run's line to $TILEWAVE_COMPILE_LOG when it is set; a file that cannot be written
// is ignored (the log never fails a compile).
void log_backend_run(const BackendRun& run);

} // namespace tw::emit
