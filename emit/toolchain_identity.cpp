// Toolchain identity by file stamps, cached on disk (see toolchain_identity.hpp).
#include <emit/toolchain_identity.hpp>

#include <cstdlib>
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

// The stored version when the file's stamps equal `stamps`.
std::optional<std::string> read_identity(const std::string& file,
                                         const std::vector<ProgramStamp>& stamps) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line) || line != kHeader)
    return std::nullopt;
  for (const ProgramStamp& s : stamps)
    if (!std::getline(in, line) || line != stamp_line(s))
      return std::nullopt;
  if (!std::getline(in, line) || line.rfind("version\t", 0) != 0)
    return std::nullopt;
  return line.substr(8);
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
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::canonical(*path, ec);
  if (ec)
    return std::nullopt;
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  return ProgramStamp{resolved.string(), static_cast<std::uint64_t>(st.st_size),
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
