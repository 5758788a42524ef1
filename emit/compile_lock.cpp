// The per-key compile lock (see compile_lock.hpp).
#include <emit/compile_lock.hpp>

#include <llvm/Support/FileSystem.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace tw::emit {

std::string CompileLock::path(const std::string& dir, const std::string& digest) {
  return dir + "/" + digest + ".lock";
}

CompileLock::CompileLock(const std::string& dir, const std::string& digest,
                         std::chrono::milliseconds max_wait)
    : path_(path(dir, digest)) {
  const auto give_up = std::chrono::steady_clock::now() + max_wait;
  for (;;) {
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT && !llvm::sys::fs::create_directories(dir))
      fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644); // a new cache directory
    if (fd < 0)
      return; // not writable: no lock
    // Polled rather than blocking, so that a stopped holder costs at most max_wait.
    bool locked = false;
    for (;;) {
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        locked = true;
        break;
      }
      if (errno != EWOULDBLOCK && errno != EINTR)
        break;
      waited_ = true;
      if (std::chrono::steady_clock::now() >= give_up)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!locked) {
      ::close(fd);
      return;
    }
    // The holder before removes the file before letting go: a lock on a removed (or
    // replaced) file guards nothing, so take the file now at the path again.
    struct stat at_path {
    }, mine{};
    if (::fstat(fd, &mine) == 0 && ::stat(path_.c_str(), &at_path) == 0 &&
        mine.st_ino == at_path.st_ino && mine.st_dev == at_path.st_dev) {
      fd_ = fd;
      return;
    }
    ::close(fd);
    if (std::chrono::steady_clock::now() >= give_up)
      return;
  }
}

CompileLock::~CompileLock() {
  if (fd_ < 0)
    return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

} // namespace tw::emit
