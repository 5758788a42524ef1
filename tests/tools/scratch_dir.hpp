#pragma once
// A scratch directory for one CLI test case, removed with everything in it at the end of the
// case. The tool's compile cache is not in it: the tool inherits the test's TILEWAVE_CACHE_DIR,
// the caller's or else the build's test compile cache (tests/doctest_main.cpp; never the
// user's ~/.cache). The cache is content-keyed (docs/compile.md), so the kernels other tests
// compiled, and a later run of the same kernels, are read back instead of compiled again
// (`aot --all` compiles hundreds); what the tests check is in the files the tool writes,
// whichever way they were made.
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
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() { std::filesystem::remove_all(dir); }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace tw::test
