#pragma once
// A scratch directory for one CLI test case, removed with everything in it at the end of the
// case. The tool's compile cache is not in it: the tool writes to $TILEWAVE_CACHE_DIR when the
// caller set one, else to the build tree's TILEWAVE_TEST_CACHE_DIR (never the user's
// ~/.cache). The cache is content-keyed (docs/compile.md), so a later run of the same kernels
// reads the code objects back instead of compiling them again (`aot --all` compiles hundreds);
// what the tests check is in the files the tool writes, whichever way they were made.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace tw::test {

struct ScratchDir {
  std::filesystem::path dir;
  explicit ScratchDir(const std::string& prefix) {
    std::string tmpl = "/tmp/tilewave-" + prefix + "-XXXXXX";
    dir = mkdtemp(tmpl.data());
    const char* given = std::getenv("TILEWAVE_CACHE_DIR");
    set_cache_dir_ = given == nullptr || *given == '\0';
    if (set_cache_dir_)
      setenv("TILEWAVE_CACHE_DIR", TILEWAVE_TEST_CACHE_DIR, 1);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    if (set_cache_dir_)
      unsetenv("TILEWAVE_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }

private:
  bool set_cache_dir_ = false;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace tw::test
