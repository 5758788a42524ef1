#include <emit/disk_cache.hpp>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace tw::emit {

namespace {

constexpr char kMagic[8] = {'T', 'W', 'C', 'A', 'C', 'H', 'E', '1'};
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
  return llvm::SHA256::hash(llvm::ArrayRef<std::uint8_t>(payload.data(), payload.size()));
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
  // Only a regular file of bounded size is read: a FIFO would block, a symlink to /dev/zero
  // would never end, a directory is no entry.
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(path, st) || !llvm::sys::fs::exists(st)) {
    set(DiskLookup::miss);
    return std::nullopt;
  }
  if (st.type() != llvm::sys::fs::file_type::regular_file || st.getSize() > kMaxCacheEntryBytes) {
    const bool regular = st.type() == llvm::sys::fs::file_type::regular_file;
    std::error_code ec; // std::filesystem: llvm::sys::fs::remove refuses FIFOs and devices
    if (!std::filesystem::remove(path, ec) || ec)
      problem_ = "entry " + path + " is " +
                 (regular ? "larger than " + std::to_string(kMaxCacheEntryBytes) + " bytes"
                          : std::string("not a regular file")) +
                 " and cannot be removed (" + ec.message() + ")";
    set(DiskLookup::corrupt);
    return std::nullopt;
  }
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf) {
    set(DiskLookup::miss);
    return std::nullopt;
  }
  const llvm::StringRef data = (*buf)->getBuffer();
  const auto valid = [&]() -> bool {
    if (data.size() < kHeaderSize || std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0)
      return false;
    const std::uint64_t size = get_u64(data.data() + 8);
    if (size != data.size() - kHeaderSize)
      return false;
    if (data.substr(48, kDigestChars) != digest)
      return false;
    const auto* payload = reinterpret_cast<const std::uint8_t*>(data.data() + kHeaderSize);
    const auto hash = payload_hash({payload, size});
    return std::memcmp(hash.data(), data.data() + 16, 32) == 0;
  }();
  if (!valid) {
    // Truncated by a crash, damaged, or written by another format: rebuild it.
    llvm::sys::fs::remove(path);
    set(DiskLookup::corrupt);
    return std::nullopt;
  }
  set(DiskLookup::hit);
  const auto* begin = reinterpret_cast<const std::uint8_t*>(data.data() + kHeaderSize);
  return std::vector<std::uint8_t>(begin, begin + (data.size() - kHeaderSize));
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
