// TILEWAVE_COMPILE_LOG (emit/compile_log.hpp): one line per backend run, none for a hit, the
// code object's key in both compile() and compile_with_artifacts() lines of one kernel.
#include <emit/compile.hpp>
#include <emit/compile_log.hpp>
#include <emit/sample_kernels.hpp>
#include <emit/subprocess.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tw;
using namespace tw::emit;

namespace {

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string f;
  while (std::getline(in, f, '\t'))
    out.push_back(f);
  return out;
}

std::vector<std::string> lines_of(const std::string& file) {
  std::vector<std::string> out;
  std::stringstream in(read_text_file(file));
  std::string l;
  while (std::getline(in, l))
    out.push_back(l);
  return out;
}

} // namespace

TEST_CASE("compile log: the line's fields, tab-separated") {
  const auto f = fields(compile_log_line({"compile", "vadd", Backend::hip, Arch::gfx1200, 2, "abc",
                                          0.0125, 0.5, 1764900000.25, 0.0401}));
  CHECK(f == std::vector<std::string>{std::to_string(::getpid()), "compile", "vadd", "hip",
                                      "gfx1200", "O2", "abc", "12.5", "500.0", "1764900000.250",
                                      "40.1"});
  CHECK(fields(compile_log_line({"artifacts", "k", Backend::llvm, Arch::gfx1201, 3, "", 0, 0, 0}))
            .at(6) == "-");
}

TEST_CASE("compile log: TILEWAVE_COMPILE_LOG gets a line per backend run and none for a hit") {
  TempDir tmp("tw-compile-log");
  const std::string log = tmp.file("log.tsv");
  setenv("TILEWAVE_COMPILE_LOG", log.c_str(), 1);
  unsetenv("TILEWAVE_DUMP");
  unsetenv("TILEWAVE_CACHE");
  CompileOptions o;
  o.cache_dir = tmp.file("cache");
  clear_memory_cache();
  const ir::Kernel k = samples::loop_sum(64);
  compile_with_artifacts(k, Backend::llvm, Arch::gfx1201, o); // a miss: one line
  compile(k, Backend::llvm, Arch::gfx1201, o);                // a hit: none
  compile(k, Backend::llvm, Arch::gfx1200, o);                // a miss: one line
  o.use_cache = false;
  compile(k, Backend::llvm, Arch::gfx1200, o); // no cache: a line without a key
  unsetenv("TILEWAVE_COMPILE_LOG");
  compile(k, Backend::llvm, Arch::gfx1200, o); // no log
  const auto lines = lines_of(log);
  REQUIRE(lines.size() == 3);
  const auto a = fields(lines[0]), b = fields(lines[1]), c = fields(lines[2]);
  REQUIRE(a.size() == 11);
  CHECK(a[1] == "artifacts");
  CHECK(a[2] == "ir_loop_sum");
  CHECK(a[3] == "llvm");
  CHECK(a[4] == "gfx1201");
  CHECK(a[5] == "O3");
  CHECK(a[6].size() == 64);
  CHECK(std::stod(a[8]) > 0);
  CHECK(b[1] == "compile");
  CHECK(b[4] == "gfx1200");
  CHECK(b[6].size() == 64);
  CHECK(b[6] != a[6]);
  CHECK(c[6] == "-");
}

TEST_CASE("compile log: a hip compile's clang process counts in child_cpu_ms") {
  TempDir tmp("tw-compile-log");
  const std::string log = tmp.file("log.tsv");
  setenv("TILEWAVE_COMPILE_LOG", log.c_str(), 1);
  unsetenv("TILEWAVE_DUMP");
  CompileOptions o;
  o.use_cache = false;
  compile(samples::vector_add(), Backend::hip, Arch::gfx1201, o);
  compile(samples::vector_add(), Backend::llvm, Arch::gfx1201, o);
  unsetenv("TILEWAVE_COMPILE_LOG");
  const auto lines = lines_of(log);
  REQUIRE(lines.size() == 2);
  CHECK(std::stod(fields(lines[0]).at(10)) > 0);  // clang's cc1 ran as a child
  CHECK(std::stod(fields(lines[1]).at(10)) == 0); // the llvm backend starts no process
}
