#pragma once
// Test helper: compiles emitted HIP source with clang-22 for one gfx12 arch (a subprocess, the
// command line shared/RDNA4.md gives) and disassembles the code object with llvm-objdump-22.
// Paths come from compile definitions set in tests/emit/CMakeLists.txt.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace tw::test {

struct HipBuild {
  bool ok = false;
  std::string log;    // clang's output
  std::string disasm; // llvm-objdump -d
  std::string notes;  // llvm-readelf --notes (kernel metadata)
  std::string elf;    // the code object bytes
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline int run_shell(const std::string& cmd) {
  return std::system(cmd.c_str());
}

inline HipBuild compile_hip(const std::string& source, const std::string& arch) {
  char tmpl[] = "/tmp/tw_hip_test_XXXXXX";
  const char* dir_c = mkdtemp(tmpl);
  HipBuild b;
  if (!dir_c) {
    b.log = "cannot create a temp directory";
    return b;
  }
  const std::filesystem::path dir(dir_c);
  { std::ofstream(dir / "k.hip") << source; }
  const std::string q = "'" + dir.string() + "/";
  const std::string compile = std::string(TILEWAVE_TEST_CLANG) + " -x hip --offload-arch=" + arch +
                              " --offload-device-only --no-gpu-bundle-output -nogpuinc -nogpulib"
                              " -O3 -c " +
                              q + "k.hip' -o " + q + "k.hsaco' > " + q + "log' 2>&1";
  b.ok = run_shell(compile) == 0;
  b.log = slurp(dir / "log");
  if (b.ok) {
    run_shell(std::string(TILEWAVE_TEST_OBJDUMP) + " -d " + q + "k.hsaco' > " + q + "dis' 2>&1");
    run_shell(std::string(TILEWAVE_TEST_READELF) + " --notes " + q + "k.hsaco' > " + q +
              "notes' 2>&1");
    b.elf = slurp(dir / "k.hsaco");
    b.disasm = slurp(dir / "dis");
    b.notes = slurp(dir / "notes");
  }
  std::filesystem::remove_all(dir);
  return b;
}

} // namespace tw::test
