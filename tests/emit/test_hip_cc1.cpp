// The HIP compile without clang's driver (emit/hip_cc1.hpp): the jobs `clang -###` prints are
// read exactly, anything unexpected falls back to the driver, and the code objects are byte
// for byte the driver's.
#include <emit/hip/hip_emitter.hpp>
#include <emit/hip_cc1.hpp>
#include <emit/sample_kernels.hpp>
#include <emit/toolchain.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace tw;
using namespace tw::emit;

namespace {

// The form of clang-22's `-###` output for a HIP device compile (paths shortened).
const std::string kCc1Line =
    R"( "/usr/lib/llvm-22/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-O3" "-emit-obj" )"
    R"("-target-cpu" "gfx1201" "-o" "/tmp/kernel-gfx1201-dbaed5.o" "-x" "hip" "/t/kernel.hip")";
const std::string kLinkLine =
    R"( "/usr/lib/llvm-22/bin/lld" "-flavor" "gnu" "-m" "elf64_amdgpu" "--no-undefined" )"
    R"("-shared" "-plugin-opt=-amdgpu-internalize-symbols" "--lto-partitions=8" )"
    R"("-plugin-opt=mcpu=gfx1201" "-plugin-opt=O3" "--lto-CGO3" "--whole-archive" "-o" )"
    R"("/t/kernel.hsaco" "/tmp/kernel-gfx1201-dbaed5.o" "--no-whole-archive")";
const std::string kHeader = "Debian clang version 22.1.8\nTarget: x86_64-pc-linux-gnu\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// Defines what HIP headers would (-nogpuinc).
const char* kVectorAdd = R"(
#define __global__ __attribute__((global))
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}
)";

} // namespace

TEST_CASE("hip cc1: a job line splits into its quoted words with escapes undone") {
  CHECK(split_driver_job_line(R"( "/bin/clang" "-cc1" "a b" "q\"x" "back\\slash" "\$HOME")") ==
        std::vector<std::string>{"/bin/clang", "-cc1", "a b", "q\"x", "back\\slash", "$HOME"});
  CHECK(split_driver_job_line("").empty());
}

TEST_CASE("hip cc1: the driver's cc1 job, with the source and object paths as placeholders") {
  const auto job = parse_hip_driver_jobs(kHeader + kCc1Line + "\n" + kLinkLine + "\n",
                                         "/t/kernel.hip", "/t/kernel.hsaco");
  REQUIRE(job.has_value());
  CHECK(job->program == "/usr/lib/llvm-22/bin/clang");
  CHECK(job->args == std::vector<std::string>{"-cc1", "-triple", "amdgcn-amd-amdhsa", "-O3",
                                              "-emit-obj", "-target-cpu", "gfx1201", "-o",
                                              std::string(HipCc1Job::kObject), "-x", "hip",
                                              std::string(HipCc1Job::kSource)});
}

TEST_CASE("hip cc1: jobs of another form are refused (the driver then runs as it is)") {
  const std::string src = "/t/kernel.hip", out = "/t/kernel.hsaco";
  auto parse = [&](const std::string& cc1, const std::string& link) {
    return parse_hip_driver_jobs(kHeader + cc1 + "\n" + link + "\n", src, out);
  };
  // Only the cc1 job, or a third job.
  CHECK_FALSE(parse_hip_driver_jobs(kHeader + kCc1Line + "\n", src, out));
  CHECK_FALSE(
      parse_hip_driver_jobs(kHeader + kCc1Line + "\n" + kLinkLine + "\n" + kLinkLine, src, out));
  // A cc1 job that does not write an object, or does not read the source.
  CHECK_FALSE(parse(replaced(kCc1Line, R"("-emit-obj")", R"("-emit-llvm-bc")"), kLinkLine));
  CHECK_FALSE(parse(replaced(kCc1Line, R"("/t/kernel.hip")", R"("/t/other.hip")"), kLinkLine));
  // A link that is not lld's ELF flavour, links another object, writes elsewhere, is not
  // -shared, or carries an option that could change the code object.
  CHECK_FALSE(parse(kCc1Line, replaced(kLinkLine, R"("gnu")", R"("darwin")")));
  CHECK_FALSE(parse(kCc1Line,
                    replaced(kLinkLine, R"("/tmp/kernel-gfx1201-dbaed5.o")", R"("/tmp/other.o")")));
  CHECK_FALSE(parse(kCc1Line, replaced(kLinkLine, R"("/t/kernel.hsaco")", R"("/t/x.hsaco")")));
  CHECK_FALSE(parse(kCc1Line, replaced(kLinkLine, R"("-shared" )", "")));
  CHECK_FALSE(parse(kCc1Line, replaced(kLinkLine, R"("--no-undefined")", R"("--gc-sections")")));
  CHECK_FALSE(parse(kCc1Line, replaced(kLinkLine, R"("--whole-archive")", R"("-lfoo")")));
}

TEST_CASE("hip cc1: code objects are byte for byte the driver's (both arches, every opt level)") {
  for (Arch arch : {Arch::gfx1200, Arch::gfx1201})
    for (int opt = 0; opt <= 3; ++opt) {
      CAPTURE(arch_name(arch));
      CAPTURE(opt);
      const auto fast = compile_hip_source(kVectorAdd, arch, opt).code_object;
      REQUIRE(fast.size() > 64);
      CHECK(fast == compile_hip_with_driver(kVectorAdd, arch, opt).code_object);
    }
}

TEST_CASE("hip cc1: the emitted sample kernels' code objects are the driver's bytes") {
  const std::vector<ir::Kernel> kernels = {
      samples::vector_add(),  samples::loop_sum(),    samples::if_else(),
      samples::lds_reverse(), samples::wmma_tile(),   samples::wmma_loop(),
      samples::swmmac_tile(), samples::buffer_copy(), samples::lane_reduce()};
  for (const ir::Kernel& k : kernels)
    for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
      CAPTURE(k.name);
      CAPTURE(arch_name(arch));
      const std::string src = hip::emit_source(k);
      CHECK(compile_hip_source(src, arch, 3).code_object ==
            compile_hip_with_driver(src, arch, 3).code_object);
    }
}

TEST_CASE("hip cc1: bad source fails with clang's diagnostic and both commands") {
  try {
    compile_hip_source("extern \"C\" __attribute__((global)) void f(int* p) { p[0] = nope; }",
                       Arch::gfx1200, 2);
    FAIL("compiling invalid HIP source did not throw");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("compiling HIP source for gfx1200 failed") != std::string::npos);
    CHECK(msg.find("use of undeclared identifier 'nope'") != std::string::npos);
    CHECK(msg.find("--offload-arch=gfx1200") != std::string::npos);
    CHECK(msg.find("run as its cc1 job: ") != std::string::npos);
  }
}
