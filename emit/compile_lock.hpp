#pragma once
// One compile per cache key at a time, across processes and threads: the compile that finds
// no entry takes <cache dir>/<digest>.lock with flock(2) before it compiles and lets it go after
// it stored the entry; another that finds no entry meanwhile waits for the lock and then reads
// the entry instead of compiling the same code object a second time (two `ctest -j2`
// processes reaching one kernel at once did, tests/emit/test_compile_lock.cpp).
//
// No deadlock: the kernel releases an flock when its holder exits or crashes, a compile holds
// one lock at a time and takes none while holding it, and a waiter gives up after
// `max_wait` (a stopped holder) and compiles as if there were no lock. The lock only saves
// work: entries stay correct without it (the disk cache's atomic rename), so a directory
// where the lock file cannot be made compiles without one. A cache directory that does not
// exist yet is made (the first compile of a fresh cache locks too).
#include <chrono>
#include <string>

namespace tw::emit {

inline constexpr std::chrono::milliseconds kCompileLockMaxWait{120'000};

class CompileLock {
public:
  CompileLock(const std::string& dir, const std::string& digest,
              std::chrono::milliseconds max_wait = kCompileLockMaxWait);
  ~CompileLock(); // removes the lock file, then lets the lock go
  CompileLock(const CompileLock&) = delete;
  CompileLock& operator=(const CompileLock&) = delete;

  // This one holds the key's lock (false: the file could not be made, or max_wait passed).
  bool held() const { return fd_ >= 0; }
  // Another holder had the lock when this one asked: its entry may be there now.
  bool waited() const { return waited_; }

  static std::string path(const std::string& dir, const std::string& digest);

private:
  std::string path_;
  int fd_ = -1;
  bool waited_ = false;
};

} // namespace tw::emit
