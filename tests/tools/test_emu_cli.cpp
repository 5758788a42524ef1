// Black-box tests of `tilewave emu` on a code object compiled here by clang-22 from HIP
// source (a "foreign" code object: nothing of tilewave built it).
#include "tools/run_tool.hpp"

#include <tools/npy/npy.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fs = std::filesystem;
using tw::test::run_tool;

namespace {

const char* kSource = R"(
#define __global__ __attribute__((global))
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
  const int i = int(__builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x());
  if (i < n)
    y[i] = a * x[i] + 1.0f;
}
)";

// Builds the code object once per test process.
const fs::path& workdir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("tilewave_emu_cli_" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::ofstream(d / "k.hip") << kSource;
    const std::string cmd = "clang++-22 -x hip --offload-arch=gfx1201 --offload-device-only "
                            "--no-gpu-bundle-output -nogpuinc -nogpulib -O3 -c " +
                            (d / "k.hip").string() + " -o " + (d / "k.hsaco").string();
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "clang++-22 failed: " << cmd);
    tw::npy::Array x;
    x.dtype = "<f4";
    x.shape = {64};
    x.data.resize(64 * 4);
    for (int i = 0; i < 64; ++i) {
      const float v = float(i) - 10.0f;
      std::memcpy(x.data.data() + 4 * i, &v, 4);
    }
    tw::npy::write((d / "x.npy").string(), x);
    return d;
  }();
  return dir;
}

std::string base_args(int grid = 2) {
  const fs::path& d = workdir();
  return "emu " + (d / "k.hsaco").string() + " --kernel saxpy --grid " + std::to_string(grid) +
         " --block 32 --arg buf:in=" + (d / "x.npy").string() +
         " --arg buf:out=" + (d / "y.npy").string() + ":64:f32";
}

} // namespace

TEST_CASE("tilewave emu: runs a foreign code object, writes .npy outputs, prints statistics") {
  fs::remove(workdir() / "y.npy");
  const auto r = run_tool(base_args() + " --arg f32=0.5 --arg i32=60");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("workgroups 2  waves 2") != std::string::npos);
  CHECK(r.output.find("VMEM") != std::string::npos);
  const tw::npy::Array y = tw::npy::read((workdir() / "y.npy").string());
  CHECK(y.dtype == "<f4");
  CHECK(y.shape == std::vector<size_t>{64});
  for (int i = 0; i < 64; ++i) {
    float v;
    std::memcpy(&v, y.data.data() + 4 * i, 4);
    CHECK(v == (i < 60 ? 0.5f * (float(i) - 10.0f) + 1.0f : 0.0f));
  }
  const auto j = run_tool(base_args() + " --arg f32=2 --arg i32=1 --json");
  CHECK(j.status == 0);
  CHECK(j.output.find("\"total_instructions\":") != std::string::npos);
}

TEST_CASE("tilewave emu --trace prints each instruction of the chosen wave") {
  const auto r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --trace-wave 1,0,0:0");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find(": s_load_b") != std::string::npos);
  CHECK(r.output.find("global_store_b32") != std::string::npos);
  CHECK(r.output.find("s_endpgm") != std::string::npos);
  CHECK(r.output.find("    v") != std::string::npos);   // a VGPR write with lane values
  CHECK(r.output.find("ttmp9 =") == std::string::npos); // ids are inputs, never written
}

TEST_CASE("tilewave emu: errors name the argument and the rule") {
  const fs::path& d = workdir();
  auto r = run_tool("emu " + (d / "k.hsaco").string() + " --kernel nope");
  CHECK(r.status == 1);
  CHECK(r.output.find("no kernel 'nope' (kernels: saxpy)") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1");
  CHECK(r.status == 1);
  CHECK(r.output.find("kernel saxpy takes 4 explicit arguments, 3 --arg given") !=
        std::string::npos);
  r = run_tool(base_args() + " --arg f64=1 --arg i32=3");
  CHECK(r.status == 1);
  CHECK(r.output.find("is 8 bytes but argument 2 of saxpy") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1 --arg q=3");
  CHECK(r.output.find("kind 'q' is not one of") != std::string::npos);
  r = run_tool(base_args(0) + " --arg f32=1 --arg i32=3");
  CHECK(r.output.find("--grid '0' must be X[,Y[,Z]] of positive integers") != std::string::npos);
  r = run_tool("emu " + (d / "x.npy").string() + " --kernel saxpy");
  CHECK(r.output.find("code object: not an ELF file") != std::string::npos);
}

TEST_CASE("tilewave emu: memcheck stops a launch that reads past a buffer") {
  const auto ok = run_tool(base_args(3) + " --arg f32=1 --arg i32=64");
  CHECK(ok.status == 0); // the third workgroup's lanes are all past n: no access
  const auto bad = run_tool(base_args(3) + " --arg f32=1 --arg i32=96");
  CAPTURE(bad.output);
  CHECK(bad.status == 1);
  CHECK(bad.output.find("memcheck: global read of 4 bytes") != std::string::npos);
  CHECK(bad.output.find("(lane 0) is outside every allocation") != std::string::npos);
  CHECK(bad.output.find("kernel saxpy (workgroup (2,0,0), wave 0)") != std::string::npos);
  const auto off = run_tool(base_args(3) + " --arg f32=1 --arg i32=96 --no-memcheck");
  CHECK(off.status == 0);
}

TEST_CASE("tilewave emu --check lists kernels and missing handlers without running") {
  const auto r = run_tool("emu " + (workdir() / "k.hsaco").string() + " --check");
  CAPTURE(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("gfx1201: code object v6") != std::string::npos);
  CHECK(r.output.find("kernel saxpy: LDS 0 bytes") != std::string::npos);
  CHECK(r.output.find("every instruction has an emulator handler") != std::string::npos);
  const auto none = run_tool("emu " + (workdir() / "k.hsaco").string());
  CHECK(none.status == 1);
  CHECK(none.output.find("--kernel NAME is required (or --check)") != std::string::npos);
}

TEST_CASE("tilewave emu --trace-wave outside the launch is an error") {
  const auto r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --trace-wave 2,0,0:0");
  CHECK(r.status == 1);
  CHECK(r.output.find("trace: wave 0 of workgroup (2,0,0) is not part of the launch (grid 2x1x1, "
                      "1 waves per workgroup)") != std::string::npos);
}

TEST_CASE("tilewave emu: buf:inout uploads a file and writes the result back to it") {
  const fs::path& d = workdir();
  tw::npy::Array y;
  y.dtype = "<f4";
  y.shape = {64};
  y.data.resize(64 * 4);
  for (int i = 0; i < 64; ++i) {
    const float v = 100.0f + float(i);
    std::memcpy(y.data.data() + 4 * i, &v, 4);
  }
  tw::npy::write((d / "y_inout.npy").string(), y);
  const auto r =
      run_tool("emu " + (d / "k.hsaco").string() +
               " --kernel saxpy --grid 2 --block 32 --arg buf:in=" + (d / "x.npy").string() +
               " --arg buf:inout=" + (d / "y_inout.npy").string() + " --arg f32=2 --arg i32=10");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const tw::npy::Array got = tw::npy::read((d / "y_inout.npy").string());
  for (int i = 0; i < 64; ++i) {
    float v;
    std::memcpy(&v, got.data.data() + 4 * i, 4);
    CHECK(v == (i < 10 ? 2.0f * (float(i) - 10.0f) + 1.0f : 100.0f + float(i)));
  }
}

TEST_CASE("tilewave emu --max-instructions stops a wave that runs too long") {
  const auto r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --max-instructions 5");
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("wave executed more than 5 instructions (endless loop?) at pc 0x") !=
        std::string::npos);
}

TEST_CASE("tilewave emu --model prints the modeled time of a foreign code object") {
  const auto r = run_tool(base_args() + " --arg f32=0.5 --arg i32=60 --model gfx1201 "
                                        "--model-bytes 512");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("modeled on gfx1201 (RX 9070 XT)") != std::string::npos);
  CHECK(r.output.find("bound: ") != std::string::npos);
  CHECK(r.output.find("GB/s modeled") != std::string::npos);
  CHECK(r.output.find("occupancy 16 waves/SIMD") != std::string::npos);
  const auto j = run_tool(base_args() + " --arg f32=0.5 --arg i32=60 --model gfx1200 --json");
  CHECK(j.status == 0);
  CHECK(j.output.find("{\"stats\": {") == 0);
  CHECK(j.output.find("\"timing\": {\"machine\": \"gfx1200\"") != std::string::npos);
  // --model-only: one sampled workgroup of 64 runs; no output is written.
  fs::remove(workdir() / "y.npy");
  const auto only = run_tool(base_args(64) + " --arg f32=0.5 --arg i32=60 --model gfx1201 "
                                             "--model-sample 1 --model-only");
  CAPTURE(only.output);
  CHECK(only.status == 0);
  CHECK(only.output.find("workgroups 1  waves 1") != std::string::npos);
  CHECK(only.output.find("64 workgroups") != std::string::npos);
  CHECK_FALSE(fs::exists(workdir() / "y.npy"));
}

TEST_CASE("tilewave emu --model: bad options name the option and the rule") {
  auto r = run_tool(base_args() + " --arg f32=1 --arg i32=3 --model gfx90a");
  CHECK(r.status != 0);
  CHECK(r.output.find("machine 'gfx90a' is not known") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1 --arg i32=3 --model gfx1201 --model-sample -1");
  CHECK(r.status != 0);
  CHECK(r.output.find("sample -1 must be >= 0") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1 --arg i32=3 --model-sample 0");
  CHECK(r.status != 0);
  CHECK(r.output.find("need --model") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1 --arg i32=3 --model-only");
  CHECK(r.status != 0);
  CHECK(r.output.find("need --model") != std::string::npos);
}

TEST_CASE("tilewave emu: numeric options are range-checked (issue 17)") {
  auto r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --max-instructions -5");
  CHECK(r.status != 0);
  CHECK(r.output.find("--max-instructions: Value -5 not in range") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --threads -1");
  CHECK(r.status != 0);
  CHECK(r.output.find("--threads: Value -1 not in range") != std::string::npos);
  r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --lds 70000");
  CHECK(r.status != 0);
  CHECK(r.output.find("--lds: Value 70000 not in range") != std::string::npos);
  // A grid of 2^32 - 1 workgroups would run for hours: refused unless --max-workgroups allows.
  const fs::path& d = workdir();
  r = run_tool(
      "emu " + (d / "k.hsaco").string() +
      " --kernel saxpy --grid 4294967295 --block 32 --arg buf:in=" + (d / "x.npy").string() +
      " --arg buf:out=" + (d / "y.npy").string() + ":64:f32 --arg f32=1 --arg i32=64");
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("--grid 4294967295 is 4294967295 workgroups, more than --max-workgroups "
                      "1048576") != std::string::npos);
}

TEST_CASE("tilewave emu: two outputs naming one file are refused before anything runs") {
  const fs::path& d = workdir();
  const std::string y = (d / "twice.npy").string();
  fs::remove(y);
  const auto r =
      run_tool("emu " + (d / "k.hsaco").string() +
               " --kernel saxpy --grid 2 --block 32 --arg buf:in=" + (d / "x.npy").string() +
               " --arg buf:out=" + y + ":64:f32 --arg buf:out=" + y + ":64:f32 --arg i32=64");
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("emu: --arg 'buf:out=" + y + ":64:f32' and 'buf:out=" + y +
                      ":64:f32' both write " + y + "; give each output its own file") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(y));
}

TEST_CASE("tilewave emu: a block of 1024 work-items is accepted, as HIP allows") {
  const fs::path& d = workdir();
  const auto r =
      run_tool("emu " + (d / "k.hsaco").string() +
               " --kernel saxpy --grid 1 --block 1024 --arg buf:in=" + (d / "x.npy").string() +
               " --arg buf:out=" + (d / "y.npy").string() + ":64:f32 --arg f32=1 --arg i32=64");
  CAPTURE(r.output);
  CHECK(r.status == 0);
}

TEST_CASE("tilewave emu: a 32-bit ELF is refused in one sentence naming the file and field") {
  const fs::path& d = workdir();
  std::ifstream in(d / "k.hsaco", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes[4] = 1; // EI_CLASS = ELFCLASS32
  std::ofstream(d / "k32.hsaco", std::ios::binary) << bytes;
  for (const char* mode : {" --check", " --kernel saxpy"}) {
    const auto r = run_tool("emu " + (d / "k32.hsaco").string() + mode);
    CAPTURE(r.output);
    CHECK(r.status == 1);
    CHECK(r.output.find("emu: '" + (d / "k32.hsaco").string() +
                        "': code object: e_ident[EI_CLASS] 1 is not ELFCLASS64") !=
          std::string::npos);
  }
}

TEST_CASE("tilewave emu: a long grid prints progress lines and --time-limit stops it (issue 17)") {
  // 2^27 - 1 workgroups of 32 (the most a dispatch holds at this block size; hours on the
  // emulator) once --max-workgroups allows them: progress on stderr every 0.2 s, stopped
  // after 1 s with how far it got; no output is written.
  const fs::path& d = workdir();
  const std::string y = (d / "long.npy").string();
  fs::remove(y);
  const auto r =
      run_tool("emu " + (d / "k.hsaco").string() +
               " --kernel saxpy --grid 134217727 --block 32 --max-workgroups "
               "4294967295 --threads 1 --progress 0.2 --time-limit 1 --arg buf:in=" +
               (d / "x.npy").string() + " --arg buf:out=" + y + ":64:f32 --arg f32=1 --arg i32=64");
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("tilewave emu: ") != std::string::npos);
  CHECK(r.output.find(" of 134217727 workgroups (") != std::string::npos);
  CHECK(r.output.find("s left (--time-limit bounds the run)") != std::string::npos);
  CHECK(r.output.find("stopped after ") != std::string::npos);
  CHECK(r.output.find("(the time limit of 1 s) with ") != std::string::npos);
  CHECK(!fs::exists(y));
}

TEST_CASE("tilewave emu: a short launch prints no progress line") {
  const auto r = run_tool(base_args() + " --arg f32=1 --arg i32=64 --progress 5");
  CAPTURE(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("workgroups (") == std::string::npos);
}

TEST_CASE("tilewave emu: a buf:out shape whose byte count overflows names the --arg") {
  const fs::path& d = workdir();
  const std::string arg =
      "buf:out=" + (d / "huge.npy").string() + ":4611686018427387904x8:f32"; // 2^62 * 8 * 4
  const auto r =
      run_tool("emu " + (d / "k.hsaco").string() +
               " --kernel saxpy --grid 1 --block 32 --arg buf:in=" + (d / "x.npy").string() +
               " --arg " + arg + " --arg f32=1 --arg i32=64");
  CAPTURE(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("emu: --arg '" + arg +
                      "': npy: shape (4611686018427387904, 8) has more "
                      "elements than fit in 64 bits") != std::string::npos);
}
