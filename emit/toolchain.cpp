#include <emit/hip_cc1.hpp>
#include <emit/subprocess.hpp>
#include <emit/toolchain.hpp>
#include <emit/toolchain_identity.hpp>

#include <llvm/Config/llvm-config.h>

#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#ifndef TILEWAVE_CLANG
#define TILEWAVE_CLANG "clang++-22"
#endif
#ifndef TILEWAVE_LLD
#define TILEWAVE_LLD "ld.lld-22"
#endif

namespace tw::emit {

std::string clang_path() {
  return TILEWAVE_CLANG;
}
std::string lld_path() {
  return TILEWAVE_LLD;
}

namespace {

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::string tool_version(const std::string& program) {
  const ProcessResult r = run_process(program, {"--version"});
  if (r.exit_code != 0)
    return program + " (not runnable: " + (r.failure.empty() ? first_line(r.output) : r.failure) +
           ")";
  return first_line(r.output);
}

// Runs one toolchain command; throws with what it printed when it fails.
void run_or_throw(const std::string& what, const std::string& program,
                  const std::vector<std::string>& args) {
  const ProcessResult r = run_process(program, args);
  if (r.exit_code != 0)
    throw std::runtime_error(failure_message(what, r, command_line(program, args)));
}

std::vector<std::string> hip_flags(Arch arch, int opt_level) {
  if (opt_level < 0 || opt_level > 3)
    throw std::invalid_argument("opt_level must be 0..3, got " + std::to_string(opt_level));
  return {"-x", "hip", "--offload-arch=" + std::string(arch_name(arch)), "--offload-device-only",
          "--no-gpu-bundle-output", "-nogpuinc", "-nogpulib", "-O" + std::to_string(opt_level),
          // The compilation-unit id is a hash of the (temporary) source path by default:
          // without this the same source would give different code objects each time.
          "-fuse-cuid=none", "-Wno-unused-command-line-argument"};
}

} // namespace

namespace {
// What the external programs say; the libLLVM part is this binary's and is never stored.
std::string probe_program_versions() {
  return "clang: " + tool_version(clang_path()) + "; lld: " + tool_version(lld_path());
}
constexpr const char* kLibLlvm = "; libLLVM: " LLVM_VERSION_STRING;
} // namespace

const std::string& toolchain_version() {
  static std::once_flag once;
  static std::string version;
  std::call_once(once, [] { version = probe_program_versions() + kLibLlvm; });
  return version;
}

const std::string& toolchain_version(const std::string& cache_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::string> by_dir; // node-based: references stay valid
  std::lock_guard lock(mutex);
  auto it = by_dir.find(cache_dir);
  if (it == by_dir.end())
    it = by_dir
             .emplace(cache_dir, toolchain_identity(cache_dir, {clang_path(), lld_path()},
                                                    probe_program_versions) +
                                     kLibLlvm)
             .first;
  return it->second;
}

namespace {
std::string hip_what(Arch arch) {
  return "clang (" + clang_path() + ") compiling HIP source for " + std::string(arch_name(arch));
}
} // namespace

HipCompileOutputs compile_hip_source(std::string_view source, Arch arch, int opt_level,
                                     bool want_llvm_ir, bool want_assembly,
                                     const std::string& job_cache_dir) {
  if (!want_llvm_ir && !want_assembly) {
    // The driver's own cc1 job and an in-process link: the same bytes for half the CPU.
    if (std::optional<std::vector<std::uint8_t>> co = compile_hip_via_cc1(
            source, arch, opt_level, hip_flags(arch, opt_level), hip_what(arch), job_cache_dir))
      return {std::move(*co), {}, {}};
  }
  return compile_hip_with_driver(source, arch, opt_level, want_llvm_ir, want_assembly);
}

HipCompileOutputs compile_hip_with_driver(std::string_view source, Arch arch, int opt_level,
                                          bool want_llvm_ir, bool want_assembly) {
  TempDir dir("tilewave-hip");
  const std::string src = dir.file("kernel.hip");
  write_file(src, source.data(), source.size());
  const std::string what = hip_what(arch);

  HipCompileOutputs out;
  std::vector<std::string> args = hip_flags(arch, opt_level);
  const std::string hsaco = dir.file("kernel.hsaco");
  args.insert(args.end(), {"-c", src, "-o", hsaco});
  if (want_assembly)
    args.push_back("-save-temps=obj"); // keeps the .s of this very compile next to the output
  run_or_throw(what, clang_path(), args);
  out.code_object = read_binary_file(hsaco);
  if (want_assembly)
    out.assembly = read_text_file(
        dir.file("kernel-hip-amdgcn-amd-amdhsa-" + std::string(arch_name(arch)) + ".s"));
  if (want_llvm_ir) {
    std::vector<std::string> ir_args = hip_flags(arch, opt_level);
    const std::string ll = dir.file("kernel.ll");
    ir_args.insert(ir_args.end(), {"-S", "-emit-llvm", src, "-o", ll});
    run_or_throw(what + " to LLVM IR", clang_path(), ir_args);
    out.llvm_ir_after_opt = read_text_file(ll);
  }
  return out;
}

std::vector<std::uint8_t> link_code_object(std::span<const std::uint8_t> object) {
  TempDir dir("tilewave-lld");
  const std::string obj = dir.file("kernel.o"), hsaco = dir.file("kernel.hsaco");
  write_file(obj, object.data(), object.size());
  run_or_throw("ld.lld (" + lld_path() + ") linking a code object", lld_path(),
               {"-shared", "--no-undefined", obj, "-o", hsaco});
  return read_binary_file(hsaco);
}

} // namespace tw::emit
