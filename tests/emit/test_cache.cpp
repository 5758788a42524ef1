// The compile cache layers: key identity, the on-disk format (hit, miss, truncated, corrupt,
// misplaced entries), and concurrent writers (threads and processes).
#include <emit/cache_key.hpp>
#include <emit/disk_cache.hpp>
#include <emit/memory_cache.hpp>
#include <emit/subprocess.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tw;
using namespace tw::emit;

namespace {

CacheKeyParts base_parts() {
  return {std::string(64, 'a'), Backend::llvm, Arch::gfx1201, "clang 22.1.8", "0.1.0", "O3",
          std::string(64, 'c')};
}

std::vector<std::uint8_t> payload(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> p(n);
  for (std::size_t i = 0; i < n; ++i)
    p[i] = static_cast<std::uint8_t>(seed + i * 7);
  return p;
}

std::size_t file_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return in ? static_cast<std::size_t>(in.tellg()) : 0;
}

bool exists(const std::string& path) {
  return std::ifstream(path).good();
}

} // namespace

TEST_CASE("cache key: the digest is SHA-256 of the description, stable across calls") {
  const CacheKey a = make_cache_key(base_parts()), b = make_cache_key(base_parts());
  CHECK(a.digest == b.digest);
  CHECK(a.digest.size() == 64);
  CHECK(a.digest == sha256_hex(a.description));
  // Known-answer check of the hash itself (FIPS 180-2 example "abc").
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(a.description.find("ir-blake3=" + std::string(64, 'a') + "\n") != std::string::npos);
  CHECK(a.description.find("backend=llvm\n") != std::string::npos);
  CHECK(a.description.find("arch=gfx1201\n") != std::string::npos);
}

TEST_CASE(
    "cache key: any change of IR, backend, arch, toolchain, version, options or emitter misses") {
  const std::string base = make_cache_key(base_parts()).digest;
  auto changed = [&](auto edit) {
    CacheKeyParts p = base_parts();
    edit(p);
    return make_cache_key(p).digest;
  };
  CHECK(changed([](CacheKeyParts& p) { p.ir_digest.back() = 'b'; }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.backend = Backend::hip; }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.arch = Arch::gfx1200; }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.toolchain_version = "clang 22.1.9"; }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.tilewave_version = "0.1.1"; }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.options = "O2"; }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.emitter_stamp = std::string(64, 'e'); }) != base);
  CHECK(changed([](CacheKeyParts& p) { p.artifacts = true; }) != base);
}

TEST_CASE("cache key: an artifacts entry's key is the code object's plus one line") {
  CacheKeyParts p = base_parts();
  const CacheKey code_object = make_cache_key(p);
  p.artifacts = true;
  const CacheKey artifacts = make_cache_key(p);
  CHECK(artifacts.description == code_object.description + "entry=artifacts\n");
  CHECK(artifacts.digest == sha256_hex(artifacts.description));
}

TEST_CASE("disk cache: miss, store, hit with the same bytes") {
  TempDir tmp("tilewave-test-cache");
  DiskCache cache(tmp.file("nested/dir")); // created on the first store
  const std::string key = make_cache_key(base_parts()).digest;
  DiskLookup outcome = DiskLookup::hit;
  CHECK_FALSE(cache.load(key, &outcome).has_value());
  CHECK(outcome == DiskLookup::miss);

  const auto bytes = payload(5000, 3);
  REQUIRE(cache.store(key, bytes));
  const auto loaded = cache.load(key, &outcome);
  CHECK(outcome == DiskLookup::hit);
  REQUIRE(loaded.has_value());
  CHECK(*loaded == bytes);
  CHECK(file_size(cache.entry_path(key)) == bytes.size() + 112); // header: 8 + 8 + 32 + 64

  // Storing again replaces the entry atomically and leaves no temporary file behind.
  const auto other = payload(100, 9);
  REQUIRE(cache.store(key, other));
  CHECK(*cache.load(key) == other);
  int files = 0;
  FILE* ls = popen(("ls -A " + cache.dir() + " | wc -l").c_str(), "r");
  REQUIRE(ls);
  CHECK(fscanf(ls, "%d", &files) == 1);
  pclose(ls);
  CHECK(files == 1);
}

TEST_CASE("disk cache: a truncated entry is detected, deleted and reported as corrupt") {
  TempDir tmp("tilewave-test-cache");
  DiskCache cache(tmp.path());
  const std::string key = make_cache_key(base_parts()).digest;
  REQUIRE(cache.store(key, payload(4096, 1)));
  const std::string path = cache.entry_path(key);
  REQUIRE(truncate(path.c_str(), static_cast<off_t>(file_size(path) - 1000)) == 0);

  DiskLookup outcome = DiskLookup::hit;
  CHECK_FALSE(cache.load(key, &outcome).has_value());
  CHECK(outcome == DiskLookup::corrupt);
  CHECK_FALSE(exists(path)); // discarded so the next compile rebuilds it
  CHECK_FALSE(cache.load(key, &outcome).has_value());
  CHECK(outcome == DiskLookup::miss);
}

TEST_CASE("disk cache: a flipped payload byte, a bad header and a misplaced entry are corrupt") {
  TempDir tmp("tilewave-test-cache");
  DiskCache cache(tmp.path());
  const std::string key = make_cache_key(base_parts()).digest;
  const std::string path = cache.entry_path(key);
  auto flip_byte_at = [&](std::size_t offset) {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(offset));
    c = static_cast<char>(c ^ 0x20);
    f.write(&c, 1);
  };
  DiskLookup outcome = DiskLookup::hit;
  for (std::size_t offset :
       {std::size_t{0}, std::size_t{9}, std::size_t{20}, std::size_t{60}, std::size_t{112 + 777}}) {
    CAPTURE(offset); // magic, size, payload hash, key digest, payload
    REQUIRE(cache.store(key, payload(2048, 5)));
    flip_byte_at(offset);
    CHECK_FALSE(cache.load(key, &outcome).has_value());
    CHECK(outcome == DiskLookup::corrupt);
    CHECK_FALSE(exists(path));
  }

  // An intact entry copied under another key's name does not answer for that key.
  CacheKeyParts p = base_parts();
  p.arch = Arch::gfx1200;
  const std::string other = make_cache_key(p).digest;
  REQUIRE(cache.store(key, payload(64, 1)));
  REQUIRE(std::rename(path.c_str(), cache.entry_path(other).c_str()) == 0);
  CHECK_FALSE(cache.load(other, &outcome).has_value());
  CHECK(outcome == DiskLookup::corrupt);
}

TEST_CASE("disk cache: an unwritable directory makes store return false, never throw") {
  DiskCache cache("/proc/tilewave-cannot-exist");
  CHECK_FALSE(cache.store(make_cache_key(base_parts()).digest, payload(10, 0)));
  DiskCache none("");
  CHECK_FALSE(none.store(make_cache_key(base_parts()).digest, payload(10, 0)));
}

TEST_CASE("disk cache: an unusable directory says why in one line (issue 17)") {
  DiskCache cache("/proc/tilewave-cannot-exist");
  CHECK_FALSE(cache.store(make_cache_key(base_parts()).digest, payload(10, 0)));
  CHECK(cache.problem().rfind("cannot create the directory /proc/tilewave-cannot-exist (", 0) == 0);
  TempDir tmp("tilewave-test-cache");
  DiskCache ok(tmp.path());
  CHECK(ok.store(make_cache_key(base_parts()).digest, payload(10, 0)));
  CHECK(ok.problem().empty());
}

TEST_CASE("disk cache: a FIFO, a symlink to /dev/zero or a directory in place of an entry is "
          "replaced, never read (issue 17)") {
  TempDir tmp("tilewave-test-cache");
  DiskCache cache(tmp.path());
  const std::string key = make_cache_key(base_parts()).digest;
  const auto bytes = payload(300, 5);
  REQUIRE(cache.store(key, bytes)); // creates the directory
  const std::string entry = cache.entry_path(key);
  const auto make_fifo = [&] { REQUIRE(::mkfifo(entry.c_str(), 0600) == 0); };
  const auto make_zero_link = [&] { REQUIRE(::symlink("/dev/zero", entry.c_str()) == 0); };
  const auto make_dir = [&] { REQUIRE(::mkdir(entry.c_str(), 0700) == 0); };
  for (const auto& make : {std::function<void()>(make_fifo), std::function<void()>(make_zero_link),
                           std::function<void()>(make_dir)}) {
    ::unlink(entry.c_str());
    make();
    DiskLookup outcome = DiskLookup::hit;
    CHECK_FALSE(cache.load(key, &outcome).has_value()); // returns at once: no blocking read
    CHECK(outcome == DiskLookup::corrupt);
    CHECK(cache.problem().empty());
    CHECK_FALSE(exists(entry)); // removed, so the next store writes a real entry
    REQUIRE(cache.store(key, bytes));
    CHECK(*cache.load(key) == bytes);
    ::unlink(entry.c_str());
    // A directory is also replaced when the store comes first.
    make_dir();
    CHECK(cache.store(key, bytes));
    CHECK(*cache.load(key) == bytes);
  }
  // A non-empty directory cannot be removed: the load says so in one line.
  ::unlink(entry.c_str());
  make_dir();
  std::ofstream(entry + "/x") << "x";
  DiskLookup outcome = DiskLookup::hit;
  CHECK_FALSE(cache.load(key, &outcome).has_value());
  CHECK(cache.problem().rfind("entry " + entry + " is not a regular file and cannot be removed (",
                              0) == 0);
  CHECK_FALSE(cache.store(key, bytes));
  CHECK(cache.problem().find("is not a regular file and cannot be removed") != std::string::npos);
}

TEST_CASE("disk cache: concurrent writers in threads never expose a partial entry") {
  TempDir tmp("tilewave-test-cache");
  DiskCache cache(tmp.path());
  const std::string key = make_cache_key(base_parts()).digest;
  const auto bytes = payload(256 * 1024, 7); // large enough that a torn write would show
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, hits{0};
  std::thread reader([&] {
    while (!stop) {
      DiskLookup o = DiskLookup::miss;
      auto got = cache.load(key, &o);
      if (o == DiskLookup::corrupt || (got && *got != bytes))
        ++bad;
      if (got)
        ++hits;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 3; ++w)
    writers.emplace_back([&] {
      for (int i = 0; i < 40; ++i)
        if (!cache.store(key, bytes))
          ++bad;
    });
  for (auto& t : writers)
    t.join();
  stop = true;
  reader.join();
  CHECK(bad == 0);
  CHECK(*cache.load(key) == bytes);
}

TEST_CASE("disk cache: two processes storing and loading the same key at once") {
  TempDir tmp("tilewave-test-cache");
  DiskCache cache(tmp.path());
  const std::string key = make_cache_key(base_parts()).digest;
  const auto bytes = payload(128 * 1024, 11);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int failures = 0;
    for (int i = 0; i < 60; ++i) {
      if (!cache.store(key, bytes))
        ++failures;
      DiskLookup o = DiskLookup::miss;
      auto got = cache.load(key, &o);
      if (o == DiskLookup::corrupt || (got && *got != bytes))
        ++failures;
    }
    _exit(failures == 0 ? 0 : 1);
  }
  int failures = 0;
  for (int i = 0; i < 60; ++i) {
    if (!cache.store(key, bytes))
      ++failures;
    DiskLookup o = DiskLookup::miss;
    auto got = cache.load(key, &o);
    if (o == DiskLookup::corrupt || (got && *got != bytes))
      ++failures;
  }
  int status = -1;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(failures == 0);
  CHECK(*cache.load(key) == bytes);
}

TEST_CASE("cache environment: TILEWAVE_CACHE=0 disables, TILEWAVE_CACHE_DIR relocates") {
  const char* old_cache = std::getenv("TILEWAVE_CACHE");
  const std::string saved_cache = old_cache ? old_cache : "";
  const char* old_dir = std::getenv("TILEWAVE_CACHE_DIR");
  const std::string saved_dir = old_dir ? old_dir : "";

  setenv("TILEWAVE_CACHE", "0", 1);
  CHECK_FALSE(cache_enabled_by_environment());
  setenv("TILEWAVE_CACHE", "1", 1);
  CHECK(cache_enabled_by_environment());
  unsetenv("TILEWAVE_CACHE");
  CHECK(cache_enabled_by_environment());
  setenv("TILEWAVE_CACHE_DIR", "/tmp/somewhere/else", 1);
  CHECK(default_cache_dir() == "/tmp/somewhere/else");
  unsetenv("TILEWAVE_CACHE_DIR");
  const char* home = std::getenv("HOME");
  if (home)
    CHECK(default_cache_dir() == std::string(home) + "/.cache/tilewave");

  if (old_cache)
    setenv("TILEWAVE_CACHE", saved_cache.c_str(), 1);
  if (old_dir)
    setenv("TILEWAVE_CACHE_DIR", saved_dir.c_str(), 1);
}

TEST_CASE("memory cache: find returns what was inserted, per digest") {
  MemoryCache cache;
  CodeObject co;
  co.kernel_name = "k";
  co.elf = payload(10, 1);
  CHECK_FALSE(cache.find("a").has_value());
  cache.insert("a", co);
  REQUIRE(cache.find("a").has_value());
  CHECK(cache.find("a")->elf == co.elf);
  CHECK_FALSE(cache.find("b").has_value());
  CHECK(cache.size() == 1);
  cache.clear();
  CHECK(cache.size() == 0);
}
