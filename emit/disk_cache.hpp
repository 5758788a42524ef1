#pragma once
// The on-disk layer of the compile cache: one file per code object, named by its key digest.
//
// Entry format (little endian): "TWCACHE2" | u64 payload size | 32-byte BLAKE3 of the payload
// | 64-char hex key digest | payload (the code object ELF). A reader checks all four, so a
// truncated, corrupt or misplaced entry is detected, deleted and reported as `corrupt`.
// Writers write a unique temporary file in the same directory and rename it over the entry:
// readers see either no entry or a complete one, and two processes storing the same key
// at once both succeed (the last rename wins, both files are valid).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tw::emit {

enum class DiskLookup { hit, miss, corrupt };

class DiskCache {
public:
  // `dir` is created on the first store.
  explicit DiskCache(std::string dir);

  const std::string& dir() const { return dir_; }
  std::string entry_path(const std::string& digest) const;

  // The payload stored under `digest`; nullopt on a miss or a corrupt entry (then deleted).
  std::optional<std::vector<std::uint8_t>> load(const std::string& digest,
                                                DiskLookup* outcome = nullptr) const;

  // Deletes the entry of `digest` (a payload that validated but could not be used).
  void discard(const std::string& digest) const;

  // Stores atomically. Returns false (and leaves no partial entry) when the directory is not
  // writable: a cache that cannot write only costs time, it never fails a compile.
  bool store(const std::string& digest, std::span<const std::uint8_t> payload) const;

  // Why the last load or store could not use the cache (empty when it could): one line such
  // as "cannot write to /x (Permission denied)".
  const std::string& problem() const { return problem_; }

private:
  std::string dir_;
  mutable std::string problem_;
};

// An entry larger than this is not a code object of ours: it is deleted unread.
inline constexpr std::uint64_t kMaxCacheEntryBytes = std::uint64_t(256) << 20;

// Prints "tilewave: compile cache: <problem>; compiling without it" to stderr, once per
// process (a cache that cannot be used costs time on every run, so the user should know).
void warn_cache_unusable_once(const std::string& problem);

// $TILEWAVE_CACHE_DIR, else ~/.cache/tilewave; empty when neither can be found.
std::string default_cache_dir();

// False when TILEWAVE_CACHE=0 (or "off" / "false").
bool cache_enabled_by_environment();

} // namespace tw::emit
