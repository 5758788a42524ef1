// Black-box tests of `tilewave run`: .npy inputs reach the GEMM entry points with the
// documented conventions (docs/kernels.md), and bad input ends in a sentence. While a GEMM
// kernel body is missing, a valid call must end in the entry point's "not implemented yet"
// error (exit 1); once it exists, in an output file of the right shape holding the right
// values (all inputs here are zero, so all outputs are zero).
#include "tools/run_tool.hpp"

#include <tools/npy/npy.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using tw::test::run_tool;

namespace {

const fs::path& dir() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("tilewave_run_cli_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

// Writes a zero-filled array and returns its path.
std::string npy_file(const std::string& name, const std::string& descr, std::vector<size_t> shape) {
  tw::npy::Array a;
  a.dtype = descr;
  a.shape = std::move(shape);
  a.data.assign(a.count() * a.element_size(), 0);
  const std::string path = (dir() / name).string();
  tw::npy::write(path, a);
  return path;
}

std::string out_arg() {
  return " --out out=" + (dir() / "out.npy").string();
}

constexpr const char* not_implemented = "gemm kernel bodies not implemented yet";

// A valid call: either the body is missing (and says so, naming the problem) or it ran and
// wrote zeros of `descr` with `shape`.
void check_valid_run(const tw::test::ToolResult& r, const std::string& problem,
                     const std::string& descr, std::vector<size_t> shape) {
  CAPTURE(r.output);
  if (r.status != 0) {
    CHECK(r.status == 1);
    CHECK(r.output.find(std::string(not_implemented) + ": " + problem) != std::string::npos);
    return;
  }
  const tw::npy::Array out = tw::npy::read((dir() / "out.npy").string());
  CHECK(out.dtype == descr);
  CHECK(out.shape == shape);
  CHECK(std::all_of(out.data.begin(), out.data.end(), [](uint8_t b) { return b == 0; }));
}

} // namespace

TEST_CASE("tilewave run gemm: a valid call runs or reports the missing kernel body") {
  const std::string a = npy_file("a.npy", "<f2", {4, 12});
  const std::string b = npy_file("b.npy", "<f2", {12, 8});
  const auto r = run_tool("run gemm --in a=" + a + " --in b=" + b + out_arg() +
                          " --param alpha=2 --param out_dtype=f32");
  check_valid_run(r, "gemm (M=4, N=8, K=12)", "<f4", {4, 8});
}

TEST_CASE("tilewave run gemm: argument errors are the entry point's sentences") {
  const std::string a = npy_file("a.npy", "<f2", {4, 12});
  const std::string b5 = npy_file("b5.npy", "<f2", {5, 8});
  const std::string bb = npy_file("bb.npy", "<u2", {12, 8});
  auto r = run_tool("run gemm --in a=" + a + " --in b=" + b5 + out_arg());
  CHECK(r.status == 1);
  CHECK(r.output.find("gemm: argument 'b' has shape [5, 8]; expected dimension 0 (K) to equal "
                      "dimension 1 of 'a' (shape [4, 12]), 12") != std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + bb + " --param b_dtype=bf16" + out_arg());
  CHECK(r.output.find("gemm: argument 'b' has dtype bf16; expected the dtype of 'a' (f16)") !=
        std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + bb + out_arg());
  CHECK(r.output.find("run: input 'b' (" + bb +
                      ") has NumPy dtype <u2, which needs --param b_dtype=... to say what it "
                      "holds") != std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + bb + " --param b_dtype=e4m3" + out_arg());
  CHECK(r.output.find("has NumPy dtype <u2; e4m3 is stored as |u1") != std::string::npos);
}

TEST_CASE("tilewave run: command-line errors") {
  const std::string a = npy_file("a.npy", "<f2", {4, 12});
  const std::string b = npy_file("b.npy", "<f2", {12, 8});
  auto r = run_tool("run gemm --in a=" + a + out_arg());
  CHECK(r.status == 1);
  CHECK(r.output.find("run: gemm needs --in b=FILE.npy (inputs: a, b)") != std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + b + " --in x=" + a + out_arg());
  CHECK(r.output.find("run: gemm has no input 'x' (inputs: a, b; optional: c, bias)") !=
        std::string::npos);
  r = run_tool("run gemm --in a=" + a + " --in b=" + b + " --param gamma=1" + out_arg());
  CHECK(r.output.find("run: --param 'gamma' is not a parameter of gemm") != std::string::npos);
  r = run_tool("run w8a16 --in x=" + a + " --in weight=" + b + " --in scale=" + b +
               " --param alpha=2" + out_arg());
  CHECK(r.output.find("run: --param 'alpha' is not a parameter of w8a16") != std::string::npos);
  r = run_tool("run nope --in a=" + a + out_arg());
  CHECK(r.output.find("run: unknown kernel 'nope': expected one of gemm, int8_linear, iu4_gemm, "
                      "mxfp8_gemm, scaled_mm, w8a16") != std::string::npos);
  const std::string v = npy_file("v.npy", "<f2", {12});
  r = run_tool("run gemm --in a=" + v + " --in b=" + b + out_arg());
  CHECK(r.output.find("run: input 'a' (" + v + ") has shape [12]; expected a matrix (rank 2)") !=
        std::string::npos);
}

TEST_CASE("tilewave run scaled_mm: fp8 codes as uint8, b stored as [N, K]") {
  const std::string a = npy_file("a8.npy", "|u1", {4, 12});
  const std::string bt = npy_file("bt8.npy", "|u1", {8, 12}); // b^T: N = 8 rows of K = 12
  const std::string s = npy_file("s.npy", "<f4", {1});
  const std::string base = "run scaled_mm --in a=" + a + " --in b=" + bt + " --in scale_a=" + s +
                           " --in scale_b=" + s + out_arg();
  auto r = run_tool(base + " --param a_dtype=e4m3 --param b_dtype=e5m2");
  check_valid_run(r, "scaled_mm (M=4, N=8, K=12)", "<u2", {4, 8});
  // Without the dtype parameters the codes are plain uint8, which scaled_mm rejects.
  r = run_tool(base);
  CHECK(r.output.find("scaled_mm: argument 'a' has dtype uint8; expected one of e4m3, e5m2") !=
        std::string::npos);
}

TEST_CASE("tilewave run iu4_gemm: packed nibbles with an odd K") {
  const std::string a = npy_file("a4.npy", "|u1", {4, 4});   // M = 4 rows of ceil(7 / 2) bytes
  const std::string bt = npy_file("bt4.npy", "|u1", {6, 4}); // N = 6
  const std::string base = "run iu4_gemm --in a=" + a + " --in b=" + bt + out_arg() +
                           " --param a_dtype=int4 --param b_dtype=uint4";
  auto r = run_tool(base + " --param k=7");
  check_valid_run(r, "iu4_gemm (M=4, N=6, K=7)", "<i4", {4, 6});
  r = run_tool(base + " --param k=9");
  CHECK(r.output.find("run: --param k=9 does not fit input 'a'") != std::string::npos);
}
