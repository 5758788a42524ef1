#pragma once
// The toolchain's part of every cache key, without starting the toolchain: a program is
// identified by its resolved path, size and modification time (one stat each, microseconds).
// Its version text (`--version`, tens of milliseconds per program) is computed only when those
// stamps are new, and stored with them in <cache dir>/toolchain-identity, so a new process
// whose stamps match reads the text back instead of running clang and lld.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tw::emit {

struct ProgramStamp {
  std::string path; // after symlinks (an upgrade replaces the target)
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const ProgramStamp&) const = default;
};

// `program` is a path, or a name looked up on $PATH; nullopt when it is not found.
std::optional<ProgramStamp> stamp_program(const std::string& program);

// The version text of `programs`: read from `cache_dir`/toolchain-identity when every stamp
// matches the stored ones, else compute_version() (then stored; a directory that cannot be
// written only costs the recomputation next time). An empty cache_dir or a program that
// cannot be stamped always computes.
std::string toolchain_identity(const std::string& cache_dir,
                               const std::vector<std::string>& programs,
                               const std::function<std::string()>& compute_version);

// The file toolchain_identity reads and writes under `cache_dir`.
std::string toolchain_identity_path(const std::string& cache_dir);

} // namespace tw::emit
