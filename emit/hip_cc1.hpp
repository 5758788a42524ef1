#pragma once
// The HIP compile without clang's driver: the driver (`clang++-22 -x hip ... -c`) runs two jobs,
// clang -cc1 (in its own process) and lld (a second process), and spends as much CPU again
// finding its toolchain. Here the cc1 job runs as the one process and the link runs in this
// process with the lld the LLVM backend uses (emit/llvm/lld_in_process.hpp). The jobs are the
// driver's own: `clang++-22 -###` prints them (once per toolchain, flags and environment when
// the compile cache keeps them, emit/hip_job_cache.hpp; else once per process and (arch, opt
// level)), and this file only replaces their input and output paths. The code object is byte for
// byte the driver's (tests/emit/test_hip_cc1.cpp compares them).
#include <atoms/arch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw::emit {

// The driver's cc1 job of one HIP device compile, as argument templates: kSource and kObject
// stand where the source file and the object file go.
struct HipCc1Job {
  static constexpr std::string_view kSource = "<tilewave-source>";
  static constexpr std::string_view kObject = "<tilewave-object>";
  std::string program;           // the clang executable the driver runs as cc1
  std::vector<std::string> args; // "-cc1" ... with kSource and kObject in place
};

// The jobs `clang -###` printed (its whole output) for a compile of `source` to `code_object`:
// the cc1 job, when the output is exactly one cc1 job that writes an object followed by one
// lld job whose link is `-shared --no-undefined OBJECT` (what link_code_object_in_process
// does) plus options with no effect on a link of one non-bitcode object (-m elf64_amdgpu,
// --whole-archive, --lto-* / -plugin-opt=: LTO options). Anything else is nullopt: the caller
// then runs the driver as it is.
std::optional<HipCc1Job> parse_hip_driver_jobs(std::string_view driver_output,
                                               const std::string& source,
                                               const std::string& code_object);

// Splits one `clang -###` job line (`"prog" "arg" ...`, with \" \\ \$ escapes) into words.
std::vector<std::string> split_driver_job_line(std::string_view line);

// Runs `clang -### <driver_flags> -c source -o code_object` (both paths files of this compile)
// and parses its jobs: parse_hip_driver_jobs' answer, nullopt also when the driver fails.
std::optional<HipCc1Job> ask_driver_for_cc1_job(const std::vector<std::string>& driver_flags,
                                                const std::string& source,
                                                const std::string& code_object);

// HIP source -> code object through the cc1 job of `driver_flags` (the compile's driver
// flags, without -c / -o / the input) and the in-process link. The job is asked once per
// process and (arch, opt level), from `job_cache_dir`'s entry when it holds one, else of the
// driver (emit/hip_job_cache.hpp; an empty job_cache_dir always asks the driver). nullopt
// when the driver's jobs are not of the form parse_hip_driver_jobs accepts (the caller then
// runs the driver). Throws std::runtime_error with clang's diagnostics when cc1 fails
// (`what` starts the message, the driver command and the cc1 command follow).
std::optional<std::vector<std::uint8_t>>
compile_hip_via_cc1(std::string_view source, Arch arch, int opt_level,
                    const std::vector<std::string>& driver_flags, const std::string& what,
                    const std::string& job_cache_dir = {});

} // namespace tw::emit
