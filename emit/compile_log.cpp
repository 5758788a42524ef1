// TILEWAVE_COMPILE_LOG (see compile_log.hpp).
#include <emit/compile_log.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace tw::emit {

std::string compile_log_line(const BackendRun& r) {
  char times[128];
  std::snprintf(times, sizeof times, "%.1f\t%.1f\t%.3f\t%.1f", r.cpu_s * 1e3, r.wall_s * 1e3,
                r.end_s, r.child_cpu_s * 1e3);
  std::string line = std::to_string(::getpid());
  for (std::string_view field : {r.path, r.kernel, backend_name(r.backend), arch_name(r.arch)}) {
    line += '\t';
    line += field;
  }
  line += "\tO" + std::to_string(r.opt_level) + "\t";
  line += r.key.empty() ? std::string_view("-") : r.key;
  line += '\t';
  line += times;
  return line;
}

void log_backend_run(const BackendRun& run) {
  const char* file = std::getenv("TILEWAVE_COMPILE_LOG");
  if (!file || !*file)
    return;
  const std::string line = compile_log_line(run) + "\n";
  const int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  // One write of the whole line: O_APPEND places it at the end as one piece.
  ssize_t n;
  do
    n = ::write(fd, line.data(), line.size());
  while (n < 0 && errno == EINTR);
  ::close(fd);
}

} // namespace tw::emit
