#pragma once
// The external gfx12 toolchain tilewave drives as subprocesses: clang-22 for HIP source and
// ld.lld-22 for linking relocatable objects into loadable code objects.
#include <atoms/arch.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tw::emit {

// Paths configured at build time (TILEWAVE_CLANG / TILEWAVE_LLD in the root CMakeLists.txt).
std::string clang_path();
std::string lld_path();

// "clang: <clang --version line>; lld: <ld.lld --version>; libLLVM: <version>", computed once
// per process. Part of every cache key: a toolchain upgrade invalidates cached code objects.
const std::string& toolchain_version();
// The same text without running clang or lld when `cache_dir` holds it for the programs'
// current stamps (emit/toolchain_identity.hpp): what compile() puts in cache keys, so a disk
// hit in a new process starts no process. Once per process and directory.
const std::string& toolchain_version(const std::string& cache_dir);

// What compile_hip_source keeps besides the code object (each costs extra work: ask only
// for what you need).
struct HipCompileOutputs {
  std::vector<std::uint8_t> code_object;
  std::string llvm_ir_after_opt; // when want_llvm_ir
  std::string assembly;          // when want_assembly
};

// HIP source -> loadable code object with
//   clang++-22 -x hip --offload-arch=<arch> --offload-device-only --no-gpu-bundle-output
//              -nogpuinc -nogpulib -O<opt_level> -fuse-cuid=none -c
// run in a fresh temporary directory (the same source always gives the same bytes). Throws
// std::runtime_error carrying clang's stderr. Only the code object wanted: the driver's cc1
// job runs without the driver and the link in this process (emit/hip_cc1.hpp: the same bytes,
// about half the CPU); with texts, or when the driver's jobs are not the expected two, the
// driver runs as it is. `job_cache_dir` (the compile cache's directory, or empty) keeps the
// driver's jobs between processes (emit/hip_job_cache.hpp).
HipCompileOutputs compile_hip_source(std::string_view source, Arch arch, int opt_level,
                                     bool want_llvm_ir = false, bool want_assembly = false,
                                     const std::string& job_cache_dir = {});

// The same compile, always through the driver (its cc1 and lld jobs each a process of their
// own): compile_hip_source's path when it wants texts, and what its code objects are compared
// to.
HipCompileOutputs compile_hip_with_driver(std::string_view source, Arch arch, int opt_level,
                                          bool want_llvm_ir = false, bool want_assembly = false);

// Relocatable AMDGPU ELF object -> loadable code object (ld.lld-22 -shared). Throws
// std::runtime_error carrying lld's stderr.
std::vector<std::uint8_t> link_code_object(std::span<const std::uint8_t> object);

} // namespace tw::emit
