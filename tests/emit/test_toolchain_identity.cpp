// The toolchain identity cache: file stamps decide whether the stored version text is reused,
// so a new process with a warm cache runs neither clang nor lld for its cache key.
#include <emit/subprocess.hpp>
#include <emit/toolchain.hpp>
#include <emit/toolchain_identity.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace tw::emit;
namespace fs = std::filesystem;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

} // namespace

TEST_CASE("stamp_program resolves symlinks and PATH names, and sees size changes") {
  TempDir dir("tw-identity-stamp");
  write_text(dir.file("tool"), "12345");
  fs::create_symlink(dir.file("tool"), dir.file("link"));
  const auto direct = stamp_program(dir.file("tool"));
  const auto via_link = stamp_program(dir.file("link"));
  REQUIRE(direct);
  REQUIRE(via_link);
  CHECK(direct->size == 5);
  CHECK(via_link->path == fs::canonical(dir.file("tool")).string());
  CHECK(*via_link == *direct);
  write_text(dir.file("tool"), "1234567");
  CHECK(stamp_program(dir.file("tool"))->size == 7);
  CHECK_FALSE(stamp_program(dir.file("missing")));
  CHECK_FALSE(stamp_program("no-such-program-tilewave-test"));
  const auto sh = stamp_program("sh"); // a PATH name
  REQUIRE(sh);
  CHECK(sh->path.front() == '/');
}

TEST_CASE("the version text is computed once per stamp set and read back after") {
  TempDir programs("tw-identity-programs");
  TempDir cache("tw-identity-cache");
  write_text(programs.file("clang"), "clang v1");
  write_text(programs.file("lld"), "lld v1");
  const std::vector<std::string> tools{programs.file("clang"), programs.file("lld")};
  int computed = 0;
  auto compute = [&] {
    ++computed;
    return "version #" + std::to_string(computed);
  };
  CHECK(toolchain_identity(cache.path(), tools, compute) == "version #1");
  CHECK(fs::exists(toolchain_identity_path(cache.path())));
  // A "new process": nothing in memory, the stamps match the file.
  CHECK(toolchain_identity(cache.path(), tools, compute) == "version #1");
  CHECK(computed == 1);

  SUBCASE("an upgraded program (another size) is probed again") {
    write_text(programs.file("lld"), "lld v2, longer");
    CHECK(toolchain_identity(cache.path(), tools, compute) == "version #2");
    CHECK(toolchain_identity(cache.path(), tools, compute) == "version #2");
    CHECK(computed == 2);
  }
  SUBCASE("a damaged identity file is recomputed and rewritten") {
    write_text(toolchain_identity_path(cache.path()), "tilewave-toolchain-identity 1\ngarbage\n");
    CHECK(toolchain_identity(cache.path(), tools, compute) == "version #2");
    CHECK(toolchain_identity(cache.path(), tools, compute) == "version #2");
    CHECK(computed == 2);
  }
  SUBCASE("another program list does not reuse the file") {
    CHECK(toolchain_identity(cache.path(), {programs.file("clang")}, compute) == "version #2");
  }
}

TEST_CASE("no cache directory or a missing program: always computed, nothing stored") {
  TempDir programs("tw-identity-nocache");
  write_text(programs.file("clang"), "x");
  int computed = 0;
  auto compute = [&] { return std::to_string(++computed); };
  CHECK(toolchain_identity("", {programs.file("clang")}, compute) == "1");
  CHECK(toolchain_identity("", {programs.file("clang")}, compute) == "2");
  TempDir cache("tw-identity-cache2");
  CHECK(toolchain_identity(cache.path(), {programs.file("absent")}, compute) == "3");
  CHECK_FALSE(fs::exists(toolchain_identity_path(cache.path())));
}

TEST_CASE("the cached toolchain version equals the probed one (cache keys do not change)") {
  TempDir cache("tw-identity-real");
  const std::string& cached = toolchain_version(cache.path());
  CHECK(cached == toolchain_version());
  CHECK(fs::exists(toolchain_identity_path(cache.path())));
  // The stored text is the programs' part; libLLVM is appended from this binary.
  const std::string stored = read_text_file(toolchain_identity_path(cache.path()));
  CHECK(stored.find("clang version 22") != std::string::npos);
  CHECK(stored.find("libLLVM") == std::string::npos);
}
