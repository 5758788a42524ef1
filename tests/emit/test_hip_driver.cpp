// The HIP compile driver (clang-22 subprocess), the lld link step and the code object reader,
// on hand-written HIP source (no IR needed).
#include <emit/code_object.hpp>
#include <emit/toolchain.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace tw;
using namespace tw::emit;

namespace {

// Defines what HIP headers would: no headers are available (-nogpuinc).
constexpr const char* kPrelude = R"(
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
)";

std::string hip(const std::string& body) {
  return kPrelude + body;
}

const char* kVectorAdd = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}
)";

// 1 KiB of LDS (256 floats), a barrier, and a reversed read.
const char* kLdsReverse = R"(
extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
lds_reverse(const float* in, float* out) {
  __shared__ float tile[256];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  tile[t] = in[t];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[t] = tile[255 - t];
}
)";

// A private array indexed at run time cannot live in registers: it needs scratch.
const char* kScratch = R"(
extern "C" __global__ void needs_scratch(const int* idx, int* out) {
  volatile int local[64];
  for (int i = 0; i < 64; ++i) local[i] = i * idx[i];
  out[__builtin_amdgcn_workitem_id_x()] = local[idx[64] & 63];
}
)";

} // namespace

TEST_CASE("hip driver: vector add compiles to a gfx12 code object for both arches") {
  for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
    CAPTURE(arch_name(arch));
    const HipCompileOutputs out = compile_hip_source(hip(kVectorAdd), arch, 3);
    REQUIRE(out.code_object.size() > 64);
    CHECK(out.code_object[0] == 0x7f);
    CHECK(out.code_object[1] == 'E');
    const auto kernels = read_code_object_metadata(out.code_object);
    REQUIRE(kernels.size() == 1);
    const KernelMetadata& k = kernels.front();
    CHECK(k.name == "vadd");
    CHECK(k.symbol == "vadd.kd");
    CHECK(k.target == "amdgcn-amd-amdhsa--" + std::string(arch_name(arch)));
    CHECK(k.wavefront_size == 32);
    // (ptr, ptr, ptr, i32): offsets 0, 8, 16, 24 and 28 bytes in all, no hidden arguments
    // because the kernel reads none of them.
    REQUIRE(k.args.size() == 4);
    CHECK(k.args[0].value_kind == "global_buffer");
    CHECK(k.args[0].address_space == "global");
    CHECK(k.args[2].offset == 16);
    CHECK(k.args[3].value_kind == "by_value");
    CHECK(k.args[3].offset == 24);
    CHECK(k.args[3].size == 4);
    CHECK(k.kernarg_size == 28);
    CHECK(k.resources.lds_bytes == 0);
    CHECK(k.resources.scratch_bytes == 0);
    CHECK(k.resources.vgprs > 0);
    CHECK(k.resources.vgprs < 24); // a handful: one granule
    CHECK(k.resources.sgprs > 0);
    CHECK(k.resources.waves_per_simd == 16);
  }
}

TEST_CASE("hip driver: the same source gives the same code object bytes every time") {
  const auto a = compile_hip_source(hip(kVectorAdd), Arch::gfx1201, 3).code_object;
  const auto b = compile_hip_source(hip(kVectorAdd), Arch::gfx1201, 3).code_object;
  CHECK(a == b); // each compile runs in a different temporary directory
}

TEST_CASE("hip driver: the resource report sees static LDS and scratch") {
  const auto lds =
      read_code_object_metadata(compile_hip_source(hip(kLdsReverse), Arch::gfx1201, 3).code_object);
  CHECK(lds.front().resources.lds_bytes == 1024);
  CHECK(lds.front().resources.scratch_bytes == 0);
  CHECK(lds.front().max_flat_workgroup_size == 256);

  const auto scratch =
      read_code_object_metadata(compile_hip_source(hip(kScratch), Arch::gfx1201, 3).code_object);
  CHECK(scratch.front().resources.scratch_bytes >= 256); // 64 ints per lane
}

TEST_CASE("hip driver: assembly and optimized LLVM IR on request") {
  const HipCompileOutputs out =
      compile_hip_source(hip(kLdsReverse), Arch::gfx1200, 3, /*want_llvm_ir=*/true,
                         /*want_assembly=*/true);
  CHECK(out.assembly.find(".amdgcn_target \"amdgcn-amd-amdhsa--gfx1200\"") != std::string::npos);
  CHECK(out.assembly.find("s_barrier_signal") != std::string::npos);
  CHECK(out.assembly.find("ds_load_b32") != std::string::npos);
  CHECK(out.llvm_ir_after_opt.find("define protected amdgpu_kernel void @lds_reverse") !=
        std::string::npos);
  CHECK(out.llvm_ir_after_opt.find("fence syncscope(\"workgroup\") release") != std::string::npos);
}

TEST_CASE("hip driver: bad source fails with clang's diagnostic in the message") {
  const std::string bad = hip("extern \"C\" __global__ void broken(int* p) { p[0] = undeclared; }");
  try {
    compile_hip_source(bad, Arch::gfx1201, 3);
    FAIL("compiling invalid HIP source did not throw");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("compiling HIP source for gfx1201 failed") != std::string::npos);
    CHECK(msg.find("use of undeclared identifier 'undeclared'") != std::string::npos);
    CHECK(msg.find("--offload-arch=gfx1201") != std::string::npos); // the command is shown
  }
}

TEST_CASE("hip driver: opt level outside 0..3 is rejected by name") {
  CHECK_THROWS_WITH_AS(compile_hip_source(hip(kVectorAdd), Arch::gfx1201, 7),
                       "opt_level must be 0..3, got 7", std::invalid_argument);
}

TEST_CASE("code object reader: rejects bytes that are not a code object") {
  const std::vector<std::uint8_t> junk(200, 0x42);
  CHECK_THROWS_AS(read_code_object_metadata(junk), std::runtime_error);
  try {
    read_code_object_metadata(junk);
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("not a readable gfx12 code object") != std::string::npos);
  }
}

TEST_CASE("code object reader: describe checks the arch") {
  auto elf = compile_hip_source(hip(kVectorAdd), Arch::gfx1200, 3).code_object;
  CHECK_THROWS_WITH_AS(describe_code_object(elf, Backend::hip, Arch::gfx1201),
                       "the code object targets 'amdgcn-amd-amdhsa--gfx1200', expected "
                       "amdgcn-amd-amdhsa--gfx1201",
                       std::runtime_error);
  const CodeObject co = describe_code_object(elf, Backend::hip, Arch::gfx1200);
  CHECK(co.kernel_name == "vadd");
  CHECK(co.kernarg_size == 28);
  CHECK(co.args.size() == 4);
}

TEST_CASE("toolchain version names clang, lld and libLLVM 22") {
  const std::string& v = toolchain_version();
  CHECK(v.find("clang: ") == 0);
  CHECK(v.find("clang version 22") != std::string::npos);
  CHECK(v.find("LLD 22") != std::string::npos);
  CHECK(v.find("libLLVM: 22") != std::string::npos);
}

TEST_CASE("waves per SIMD from the VGPR count (1536 per SIMD, granule 24, at most 16)") {
  CHECK(waves_per_simd_for_vgprs(1) == 16);   // 24 allocated -> 64, capped
  CHECK(waves_per_simd_for_vgprs(96) == 16);  // 96 -> 16
  CHECK(waves_per_simd_for_vgprs(97) == 12);  // 120 -> 12.8
  CHECK(waves_per_simd_for_vgprs(128) == 10); // 144 -> 10.67
  CHECK(waves_per_simd_for_vgprs(192) == 8);  // 192 -> 8
  CHECK(waves_per_simd_for_vgprs(256) == 5);  // 264 -> 5.8
}
