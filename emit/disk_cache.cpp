#include <emit/disk_cache.hpp>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace tw::emit {

namespace {

constexpr char kMagic[8] = {'T', 'W', 'C', 'A', 'C', 'H', 'E', '2'};
constexpr std::size_t kDigestChars = 64;
constexpr std::size_t kHeaderSize = sizeof(kMagic) + 8 + 32 + kDigestChars;

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::array<std::uint8_t, 32> payload_hash(std::span<const std::uint8_t> payload) {
  return llvm::BLAKE3::hash<32>(llvm::ArrayRef<std::uint8_t>(payload.data(), payload.size()));
}

} // namespace

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {}

std::string DiskCache::entry_path(const std::string& digest) const {
  return dir_ + "/" + digest + ".twco";
}

std::optional<std::vector<std::uint8_t>> DiskCache::load(const std::string& digest,
                                                         DiskLookup* outcome) const {
  auto set = [&](DiskLookup o) {
    if (outcome)
      *outcome = o;
  };
  problem_.clear();
  const std::string path = entry_path(digest);
  // Plain POSIX reads into the returned vector: an mmap'd buffer (llvm::MemoryBuffer) page-
  // faults on every page in a new process, which cost milliseconds on the GEMM's entry.
  // O_NONBLOCK: opening a FIFO must not block; only a regular file of bounded size is read
  // (a symlink to /dev/zero would never end, a directory is no entry).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    set(DiskLookup::miss);
    return std::nullopt;
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    set(DiskLookup::miss);
    return std::nullopt;
  }
  const bool regular = S_ISREG(st.st_mode);
  if (!regular || static_cast<std::uint64_t>(st.st_size) > kMaxCacheEntryBytes) {
    std::error_code ec; // std::filesystem: llvm::sys::fs::remove refuses FIFOs and devices
    if (!std::filesystem::remove(path, ec) || ec)
      problem_ = "entry " + path + " is " +
                 (regular ? "larger than " + std::to_string(kMaxCacheEntryBytes) + " bytes"
                          : std::string("not a regular file")) +
                 " and cannot be removed (" + ec.message() + ")";
    set(DiskLookup::corrupt);
    return std::nullopt;
  }
  auto read_all = [fd](char* to, std::size_t n) {
    while (n) {
      const ssize_t got = ::read(fd, to, n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return false;
      to += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  };
  const std::size_t file_size = static_cast<std::size_t>(st.st_size);
  char header[kHeaderSize];
  std::vector<std::uint8_t> payload;
  const bool valid = [&]() -> bool {
    if (file_size < kHeaderSize || !read_all(header, kHeaderSize) ||
        std::memcmp(header, kMagic, sizeof(kMagic)) != 0)
      return false;
    const std::uint64_t size = get_u64(header + 8);
    if (size != file_size - kHeaderSize)
      return false;
    if (std::string_view(header + 48, kDigestChars) != digest)
      return false;
    payload.resize(size);
    if (!read_all(reinterpret_cast<char*>(payload.data()), size))
      return false;
    const auto hash = payload_hash(payload);
    return std::memcmp(hash.data(), header + 16, 32) == 0;
  }();
  if (!valid) {
    // Truncated by a crash, damaged, or written by another format: rebuild it.
    llvm::sys::fs::remove(path);
    set(DiskLookup::corrupt);
    return std::nullopt;
  }
  set(DiskLookup::hit);
  return payload;
}

void DiskCache::discard(const std::string& digest) const {
  llvm::sys::fs::remove(entry_path(digest));
}

bool DiskCache::store(const std::string& digest, std::span<const std::uint8_t> payload) const {
  problem_.clear();
  if (dir_.empty() || digest.size() != kDigestChars)
    return false;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_)) {
    problem_ = "cannot create the directory " + dir_ + " (" + ec.message() + ")";
    return false;
  }
  // A directory (or anything but a file) in place of the entry: the rename cannot replace it.
  const std::string entry = entry_path(digest);
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(entry, st) && llvm::sys::fs::exists(st) &&
      st.type() != llvm::sys::fs::file_type::regular_file) {
    std::error_code ec;
    if (!std::filesystem::remove(entry, ec) || ec) {
      problem_ =
          "entry " + entry + " is not a regular file and cannot be removed (" + ec.message() + ")";
      return false;
    }
  }
  std::string header(kMagic, sizeof(kMagic));
  put_u64(header, payload.size());
  const auto hash = payload_hash(payload);
  header.append(reinterpret_cast<const char*>(hash.data()), hash.size());
  header += digest;

  int fd = -1;
  llvm::SmallString<256> tmp;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(dir_ + "/" + digest + ".tmp-%%%%%%%%%%%%", fd, tmp)) {
    problem_ = "cannot write to " + dir_ + " (" + ec.message() + ")";
    return false;
  }
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << header;
    out.write(reinterpret_cast<const char*>(payload.data()), payload.size());
    out.close();
    if (out.has_error()) {
      problem_ = "cannot write to " + dir_ + " (" + out.error().message() + ")";
      out.clear_error();
      llvm::sys::fs::remove(tmp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, entry)) {
    problem_ = "cannot rename a new entry to " + entry + " (" + ec.message() + ")";
    llvm::sys::fs::remove(tmp);
    return false;
  }
  return true;
}

void warn_cache_unusable_once(const std::string& problem) {
  static std::once_flag once;
  std::call_once(once, [&] {
    llvm::errs() << "tilewave: compile cache: " << problem << "; compiling without it\n";
  });
}

std::string default_cache_dir() {
  if (const char* env = std::getenv("TILEWAVE_CACHE_DIR"); env && *env)
    return env;
  llvm::SmallString<256> home;
  if (!llvm::sys::path::home_directory(home))
    return {};
  llvm::sys::path::append(home, ".cache", "tilewave");
  return home.str().str();
}

bool cache_enabled_by_environment() {
  const char* env = std::getenv("TILEWAVE_CACHE");
  if (!env)
    return true;
  const std::string v = env;
  return !(v == "0" || v == "off" || v == "OFF" || v == "false" || v == "no");
}

} // namespace tw::emit
