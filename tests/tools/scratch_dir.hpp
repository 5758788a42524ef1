#pragma once
// A scratch directory for one CLI test case that is also the tool's compile cache, so tests
// never write into the user's ~/.cache; removed with everything in it at the end of the case.
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
    setenv("TILEWAVE_CACHE_DIR", (dir / "cache").c_str(), 1);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    unsetenv("TILEWAVE_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace tw::test
