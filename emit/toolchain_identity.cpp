// Toolchain identity by file stamps, cached on disk (see toolchain_identity.hpp).
#include <emit/toolchain_identity.hpp>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tw::emit {
namespace {

constexpr const char* kHeader = "tilewave-toolchain-identity 1";

std::optional<std::string> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path)
    return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

// Tabs and newlines separate the file's fields; a path holding one is not cached.
bool storable(const std::string& s) {
  return s.find_first_of("\t\n") == std::string::npos;
}

std::string stamp_line(const ProgramStamp& s) {
  return "program\t" + s.path + "\t" + std::to_string(s.size) + "\t" + std::to_string(s.mtime_ns);
}

// The whole file, or nullopt when it cannot be read. Plain POSIX calls: this runs on the first
// compile of every process, where the first use of iostreams alone cost 150 us.
std::optional<std::string> read_small_file(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ::close(fd);
      if (n < 0)
        return std::nullopt;
      return text;
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

// The stored version when the file's stamps equal `stamps`.
std::optional<std::string> read_identity(const std::string& file,
                                         const std::vector<ProgramStamp>& stamps) {
  const std::optional<std::string> text = read_small_file(file);
  if (!text)
    return std::nullopt;
  std::string_view rest = *text;
  auto next_line = [&rest](std::string_view& line) {
    const std::size_t end = rest.find('\n');
    if (end == std::string_view::npos)
      return false;
    line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    return true;
  };
  std::string_view line;
  if (!next_line(line) || line != kHeader)
    return std::nullopt;
  for (const ProgramStamp& s : stamps)
    if (!next_line(line) || line != stamp_line(s))
      return std::nullopt;
  if (!next_line(line) || line.rfind("version\t", 0) != 0)
    return std::nullopt;
  return std::string(line.substr(8));
}

void write_identity(const std::string& dir, const std::vector<ProgramStamp>& stamps,
                    const std::string& version) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // A unique temporary in the same directory, renamed over the file: readers never see half.
  const std::string tmp = toolchain_identity_path(dir) + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << kHeader << "\n";
    for (const ProgramStamp& s : stamps)
      out << stamp_line(s) << "\n";
    out << "version\t" << version << "\n";
    if (!out)
      return (void)std::filesystem::remove(tmp, ec);
  }
  std::filesystem::rename(tmp, toolchain_identity_path(dir), ec);
  if (ec)
    std::filesystem::remove(tmp, ec);
}

} // namespace

std::optional<ProgramStamp> stamp_program(const std::string& program) {
  std::optional<std::string> path =
      program.find('/') != std::string::npos ? std::optional(program) : find_on_path(program);
  if (!path)
    return std::nullopt;
  // realpath(3), not std::filesystem::canonical: the latter's first use in a process cost
  // about 300 us (this runs on the first compile of every process).
  char resolved[PATH_MAX];
  if (!::realpath(path->c_str(), resolved))
    return std::nullopt;
  struct stat st {};
  if (::stat(resolved, &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  return ProgramStamp{resolved, static_cast<std::uint64_t>(st.st_size),
                      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                          st.st_mtim.tv_nsec};
}

std::string toolchain_identity_path(const std::string& cache_dir) {
  return cache_dir + "/toolchain-identity";
}

std::string toolchain_identity(const std::string& cache_dir,
                               const std::vector<std::string>& programs,
                               const std::function<std::string()>& compute_version) {
  std::vector<ProgramStamp> stamps;
  for (const std::string& p : programs) {
    std::optional<ProgramStamp> s = stamp_program(p);
    if (!s || !storable(s->path))
      return compute_version();
    stamps.push_back(std::move(*s));
  }
  if (cache_dir.empty())
    return compute_version();
  if (std::optional<std::string> stored = read_identity(toolchain_identity_path(cache_dir), stamps))
    return *stored;
  const std::string version = compute_version();
  if (storable(version))
    write_identity(cache_dir, stamps, version);
  return version;
}

} // namespace tw::emit
