// Black-box tests of `tilewave emu`'s raw and structured arguments (docs/emulator.md, "Kernel
// arguments") on code objects clang-22 builds here from HIP source: a kernel taking one kargs
// struct with pointers (struct= with --buffer), a struct of values (bytes=, file=), and a
// nullable pointer (ptr=0).
#include "tools/run_tool.hpp"

#include <tools/npy/npy.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using tw::test::run_tool;

namespace {

const char* kSource = R"(
#define __global__ __attribute__((global))
struct Kargs {
  const float* q;
  const float* k;
  float* out;
  int n;
  float scale;
  const float* bias; // may be null
};
extern "C" __global__ void qk_scale(Kargs a) {
  const int i = int(__builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x());
  if (i < a.n)
    a.out[i] = a.q[i] * a.k[i] * a.scale + (a.bias ? a.bias[i] : 0.0f);
}
struct Fill {
  int n;
  float value;
};
extern "C" __global__ void fill(Fill f, float* out) {
  const int i = int(__builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x());
  if (i < f.n)
    out[i] = f.value;
}
extern "C" __global__ void copy_or_fill(const float* src, float* out, int n) {
  const int i = int(__builtin_amdgcn_workgroup_id_x() * 32 + __builtin_amdgcn_workitem_id_x());
  if (i < n)
    out[i] = src ? src[i] : -1.0f;
}
)";

float q_value(int i) {
  return float(i) - 20.0f;
}
float k_value(int i) {
  return 0.25f * float(i % 7);
}
float bias_value(int i) {
  return float(i) * 0.5f;
}

void write_f32(const fs::path& path, float (*value)(int)) {
  tw::npy::Array a;
  a.dtype = "<f4";
  a.shape = {64};
  a.data.resize(64 * 4);
  for (int i = 0; i < 64; ++i) {
    const float v = value(i);
    std::memcpy(a.data.data() + 4 * i, &v, 4);
  }
  tw::npy::write(path.string(), a);
}

std::vector<float> read_f32(const fs::path& path) {
  const tw::npy::Array a = tw::npy::read(path.string());
  REQUIRE(a.shape == std::vector<size_t>{64});
  std::vector<float> v(64);
  std::memcpy(v.data(), a.data.data(), 64 * 4);
  return v;
}

// The folder of this test process: code object and .npy files, removed at exit.
struct WorkDir {
  fs::path dir = fs::temp_directory_path() / ("tilewave_emu_struct_" + std::to_string(::getpid()));
  WorkDir() {
    fs::create_directories(dir);
    std::ofstream(dir / "k.hip") << kSource;
    const std::string cmd = "clang++-22 -x hip --offload-arch=gfx1201 --offload-device-only "
                            "--no-gpu-bundle-output -nogpuinc -nogpulib -O3 -c " +
                            (dir / "k.hip").string() + " -o " + (dir / "k.hsaco").string();
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "clang++-22 failed: " << cmd);
    write_f32(dir / "q.npy", q_value);
    write_f32(dir / "k.npy", k_value);
    write_f32(dir / "bias.npy", bias_value);
  }
  ~WorkDir() { fs::remove_all(dir); }
};

const fs::path& workdir() {
  static const WorkDir w;
  return w.dir;
}

std::string emu(const std::string& kernel) {
  return "emu " + (workdir() / "k.hsaco").string() + " --kernel " + kernel + " --grid 2 --block 32";
}

std::string buffers() {
  const fs::path& d = workdir();
  return " --buffer q:in=" + (d / "q.npy").string() + " --buffer k:in=" + (d / "k.npy").string() +
         " --buffer out:out=" + (d / "o.npy").string() + ":64:f32";
}

} // namespace

TEST_CASE("emu struct=: a kargs struct whose pointers are named buffers, a null pointer field") {
  fs::remove(workdir() / "o.npy");
  const auto r = run_tool(emu("qk_scale") + buffers() +
                          " --arg struct=q:ptr,k:ptr,out:ptr,n:i32=40,scale:f32=0.5,bias:ptr=0");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const std::vector<float> o = read_f32(workdir() / "o.npy");
  for (int i = 0; i < 64; ++i)
    CHECK(o[i] == (i < 40 ? q_value(i) * k_value(i) * 0.5f : 0.0f));
}

TEST_CASE("emu struct=: the same struct with the bias pointer naming a buffer") {
  const auto r = run_tool(emu("qk_scale") + buffers() +
                          " --buffer bias:in=" + (workdir() / "bias.npy").string() +
                          " --arg struct=q:ptr,k:ptr,out:ptr,n:i32=64,scale:f32=2,bias:ptr");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  const std::vector<float> o = read_f32(workdir() / "o.npy");
  for (int i = 0; i < 64; ++i)
    CHECK(o[i] == q_value(i) * k_value(i) * 2.0f + bias_value(i));
}

TEST_CASE("emu bytes= and file=: a by-value struct given as raw bytes") {
  const fs::path& d = workdir();
  const std::string out = " --arg buf:out=" + (d / "f.npy").string() + ":64:f32";
  // Fill{n = 40, value = 2.5f}: 40 = 0x28, 2.5f = 0x40200000, little endian.
  auto r = run_tool(emu("fill") + " --arg bytes=28000000_00002040" + out);
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  std::vector<float> f = read_f32(d / "f.npy");
  for (int i = 0; i < 64; ++i)
    CHECK(f[i] == (i < 40 ? 2.5f : 0.0f));

  const unsigned char fill_bytes[8] = {0x3f, 0, 0, 0, 0, 0, 0xc0, 0xbf}; // n = 63, value = -1.5f
  std::ofstream(d / "fill.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(fill_bytes), sizeof fill_bytes);
  r = run_tool(emu("fill") + " --arg file=" + (d / "fill.bin").string() + out);
  REQUIRE(r.status == 0);
  f = read_f32(d / "f.npy");
  for (int i = 0; i < 64; ++i)
    CHECK(f[i] == (i < 63 ? -1.5f : 0.0f));
}

TEST_CASE("emu ptr=0: a null pointer argument needs no buffer") {
  const fs::path& d = workdir();
  const auto r =
      run_tool(emu("copy_or_fill") + " --arg ptr=0 --arg buf:out=" + (d / "c.npy").string() +
               ":64:f32 --arg i32=64");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  for (float v : read_f32(d / "c.npy"))
    CHECK(v == -1.0f);
}

TEST_CASE("emu raw and struct arguments: errors name the argument and the rule") {
  const std::string full = ",n:i32=40,scale:f32=0.5,bias:ptr=0";
  auto r = run_tool(emu("qk_scale") + buffers() + " --arg struct=q:ptr,k:ptr,out:ptr,n:i32=40");
  CHECK(r.status == 1);
  CHECK(r.output.find("is 32 bytes but argument 0 of qk_scale (unnamed, by_value) is 40 bytes") !=
        std::string::npos);
  r = run_tool(emu("qk_scale") + buffers() + " --arg struct=q:ptr,kk:ptr,out:ptr" + full);
  CHECK(r.status == 1);
  CHECK(r.output.find("--buffer k:in=") != std::string::npos); // k is then unused
  r = run_tool(emu("qk_scale") + " --buffer q:in=" + (workdir() / "q.npy").string() +
               " --arg struct=q:ptr,k:ptr,out:ptr" + full);
  CHECK(r.status == 1);
  CHECK(r.output.find("pointer field 'k' names no buffer: declare it with --buffer k:in=F.npy") !=
        std::string::npos);
  r = run_tool(emu("qk_scale") + buffers() + " --arg struct=q:ptr,k:ptr,out:ptr,n:i32" +
               ",scale:f32=0.5,bias:ptr=0");
  CHECK(r.output.find("field 'n' of type i32 needs a value (n:i32=VALUE)") != std::string::npos);
  r = run_tool(emu("qk_scale") + buffers() + " --arg struct=q:ptr,k:ptr,out:ptr,n:i32=1e9" +
               ",scale:f32=0.5,bias:ptr=0");
  CHECK(r.output.find("field 'n': '1e9' is not a valid i32") != std::string::npos);
  r = run_tool(emu("qk_scale") + buffers() + " --arg struct=q:ptr,k:ptr,out:ptr,n:int=1");
  CHECK(r.output.find("field 'n' has type 'int', not one of ptr, i8") != std::string::npos);
  r = run_tool(emu("qk_scale") + buffers() + " --arg struct=q:ptr,q:ptr,out:ptr" + full);
  CHECK(r.output.find("struct field 'q' is given twice") != std::string::npos);
  r = run_tool(emu("fill") + " --arg bytes=2800000 --arg ptr=0");
  CHECK(r.status == 1);
  CHECK(r.output.find("bytes= takes an even, non-zero number of hex digits") != std::string::npos);
  r = run_tool(emu("fill") + " --arg bytes=28000000000020zz --arg ptr=0");
  CHECK(r.output.find("bytes= takes hex digits only ('zz' is not a byte)") != std::string::npos);
  r = run_tool(emu("fill") + " --arg file=/nonexistent/args.bin --arg ptr=0");
  CHECK(r.output.find("cannot open '/nonexistent/args.bin'") != std::string::npos);
  r = run_tool(emu("copy_or_fill") + " --arg ptr=5 --arg ptr=0 --arg i32=1");
  CHECK(r.output.find("ptr= takes only 0 (a null pointer)") != std::string::npos);
  r = run_tool(emu("fill") + " --arg ptr=0 --arg ptr=0");
  CHECK(r.output.find(
            "argument 0 of fill (unnamed) is a value (use i32=..., bytes=..., struct=...)") !=
        std::string::npos);
  r = run_tool(emu("copy_or_fill") + " --arg bytes=0000000000000000 --arg ptr=0 --arg i32=1");
  CHECK(r.output.find("argument 0 of copy_or_fill (unnamed) is a buffer (use buf:... or ptr=0)") !=
        std::string::npos);
  r = run_tool(emu("fill") + " --arg bytes=2800000000002040 --arg ptr=0 --buffer 9x:in=a.npy");
  CHECK(r.output.find("--buffer '9x:in=a.npy': the name '9x' must be an identifier") !=
        std::string::npos);
}
