// The hip backend's driver jobs in the compile cache (emit/hip_job_cache.hpp): the key changes
// with each thing the driver's answer depends on, a miss then a hit give the same job, a
// damaged, foreign or stale entry is asked of the driver again, and code objects compiled with
// a stored job are the driver's bytes.
#include <emit/hip/hip_emitter.hpp>
#include <emit/hip_job_cache.hpp>
#include <emit/sample_kernels.hpp>
#include <emit/subprocess.hpp>
#include <emit/toolchain.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace tw;
using namespace tw::emit;
namespace fs = std::filesystem;

namespace {

HipJobKeyParts some_parts() {
  return {ProgramStamp{"/usr/lib/llvm-22/bin/clang", 1000, 42},
          "clang: 22.1.8; lld: 22.1.8; libLLVM: 22.1.8",
          {"-x", "hip", "--offload-arch=gfx1201", "-O3"},
          {{"CPATH", std::nullopt}, {"HIP_PATH", std::string("/opt/hip")}},
          "0.1.0",
          std::string(64, 'a')};
}

// The source and output files of one probe: `clang -###` needs the source to exist.
struct ProbeFiles {
  TempDir dir{"tw-hip-job-test"};
  std::string source = dir.file("kernel.hip"), code_object = dir.file("kernel.hsaco");
  ProbeFiles() { write_file(source, "", 0); }
};

// The one entry file under the job directory of `cache`.
fs::path only_entry(const std::string& cache) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(hip_job_dir(cache)))
    found.push_back(e.path());
  REQUIRE(found.size() == 1);
  return found.front();
}

std::vector<std::uint8_t> bytes_of(const std::string& text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

const std::vector<std::string> kFlags = {"-x",
                                         "hip",
                                         "--offload-arch=gfx1201",
                                         "--offload-device-only",
                                         "--no-gpu-bundle-output",
                                         "-nogpuinc",
                                         "-nogpulib",
                                         "-O3",
                                         "-fuse-cuid=none",
                                         "-Wno-unused-command-line-argument"};

} // namespace

TEST_CASE("hip job cache: the key changes with the clang stamp, version, each flag, the "
          "environment, tilewave's version and the emitter stamp") {
  const HipJobKeyParts base = some_parts();
  const std::string d = hip_job_key(base).digest;
  CHECK(d.size() == 64);
  CHECK(hip_job_key(some_parts()).digest == d);
  std::vector<HipJobKeyParts> changed(11, base);
  changed[0].clang.path = "/usr/lib/llvm-23/bin/clang";
  changed[1].clang.size = 1001;
  changed[2].clang.mtime_ns = 43;
  changed[3].toolchain_version = "clang: 22.1.9; lld: 22.1.8; libLLVM: 22.1.8";
  changed[4].driver_flags[2] = "--offload-arch=gfx1200";   // arch
  changed[5].driver_flags[3] = "-O2";                      // opt level
  changed[6].driver_flags.push_back("-g");                 // another flag
  changed[7].environment[0].second = "/usr/include/extra"; // set
  changed[8].environment[1].second = std::nullopt;         // unset
  changed[9].tilewave_version = "0.2.0";
  changed[10].emitter_stamp = std::string(64, 'b');
  for (std::size_t i = 0; i < changed.size(); ++i) {
    CAPTURE(i);
    CHECK(hip_job_key(changed[i]).digest != d);
  }
  // The current process's parts: this clang, the listed variables, the given flags.
  TempDir cache("tw-hip-job-key");
  const auto now = current_hip_job_key_parts(cache.path(), kFlags);
  REQUIRE(now.has_value());
  CHECK(now->clang == *stamp_program(clang_path()));
  CHECK(now->driver_flags == kFlags);
  CHECK(now->environment.size() == kHipDriverEnvironment.size());
  CHECK(now->toolchain_version == toolchain_version(cache.path()));
}

TEST_CASE("hip job cache: an entry gives back the job, the working directory as the reader's, "
          "and is stale when a directory it names changed") {
  TempDir include("tw-hip-job-include");
  HipCc1Job job;
  job.program = clang_path();
  job.args = {"-cc1",
              "-fdebug-compilation-dir=/work/a",
              "-fcoverage-compilation-dir=/work/a",
              "-internal-isystem",
              include.path(),
              "-o",
              std::string(HipCc1Job::kObject),
              std::string(HipCc1Job::kSource)};
  const auto entry = encode_hip_job(job, "/work/a");
  REQUIRE(entry.has_value());
  const std::string text(entry->begin(), entry->end());
  CHECK(text.find("/work/a") == std::string::npos);
  const auto back = decode_hip_job(*entry, "/work/a");
  REQUIRE(back.has_value());
  CHECK(back->program == job.program);
  CHECK(back->args == job.args);
  const auto elsewhere = decode_hip_job(*entry, "/work/b");
  REQUIRE(elsewhere.has_value());
  CHECK(elsewhere->args[1] == "-fdebug-compilation-dir=/work/b");
  CHECK(elsewhere->args[2] == "-fcoverage-compilation-dir=/work/b");

  // The working directory anywhere else, a tab or a newline: not stored.
  HipCc1Job other = job;
  other.args.push_back("-I/work/a/include");
  CHECK_FALSE(encode_hip_job(other, "/work/a").has_value());
  other = job;
  other.args[1] = "-fdebug-compilation-dir=/elsewhere";
  CHECK_FALSE(encode_hip_job(other, "/work/a").has_value());
  other = job;
  other.args.push_back("a\tb");
  CHECK_FALSE(encode_hip_job(other, "/work/a").has_value());

  // A file created in a directory the job names changes its stamp: stale.
  std::ofstream(include.file("new.h")) << "\n";
  fs::last_write_time(include.path(),
                      fs::last_write_time(include.path()) + std::chrono::seconds(5));
  CHECK_FALSE(decode_hip_job(*entry, "/work/a").has_value());

  // Not an entry of this format.
  CHECK_THROWS_AS(decode_hip_job(bytes_of("garbage\n"), "/w"), std::runtime_error);
  CHECK_THROWS_AS(decode_hip_job(bytes_of(text.substr(0, text.size() - 1)), "/w"),
                  std::runtime_error);
  CHECK_THROWS_AS(
      decode_hip_job(bytes_of("tilewave-hip-cc1-job 1\nprogram\t/c\narg\t-cc1\n"), "/w"),
      std::runtime_error);
  const std::string no_stamps = text.substr(0, text.find("stamp\t"));
  CHECK_THROWS_AS(decode_hip_job(bytes_of(no_stamps), "/work/a"), std::runtime_error);
}

TEST_CASE("hip job cache: a miss asks the driver and stores, a hit gives the same job, a "
          "damaged entry is rebuilt") {
  TempDir cache("tw-hip-job-cache");
  ProbeFiles files;
  HipJobOrigin origin = HipJobOrigin::disk_hit;
  const auto asked = ask_driver_for_cc1_job(kFlags, files.source, files.code_object);
  REQUIRE(asked.has_value());
  const auto first =
      hip_cc1_job_from_cache(cache.path(), kFlags, files.source, files.code_object, &origin);
  CHECK(origin == HipJobOrigin::miss);
  REQUIRE(first.has_value());
  CHECK(first->program == asked->program);
  CHECK(first->args == asked->args);
  const fs::path entry = only_entry(cache.path());

  ProbeFiles other_files; // another compile's temporary paths
  const auto hit = hip_cc1_job_from_cache(cache.path(), kFlags, other_files.source,
                                          other_files.code_object, &origin);
  CHECK(origin == HipJobOrigin::disk_hit);
  REQUIRE(hit.has_value());
  CHECK(hit->program == asked->program);
  CHECK(hit->args == asked->args);

  const auto size = fs::file_size(entry);
  fs::resize_file(entry, size / 2);
  const auto rebuilt =
      hip_cc1_job_from_cache(cache.path(), kFlags, files.source, files.code_object, &origin);
  CHECK(origin == HipJobOrigin::rebuilt);
  REQUIRE(rebuilt.has_value());
  CHECK(rebuilt->args == asked->args);
  CHECK(fs::file_size(entry) == size);
  hip_cc1_job_from_cache(cache.path(), kFlags, files.source, files.code_object, &origin);
  CHECK(origin == HipJobOrigin::disk_hit);

  // Other flags: another entry.
  std::vector<std::string> o2 = kFlags;
  o2[7] = "-O2";
  hip_cc1_job_from_cache(cache.path(), o2, files.source, files.code_object, &origin);
  CHECK(origin == HipJobOrigin::miss);
  CHECK(std::distance(fs::directory_iterator(hip_job_dir(cache.path())),
                      fs::directory_iterator{}) == 2);
  // No cache directory: the driver is asked, nothing stored.
  const auto uncached =
      hip_cc1_job_from_cache("", kFlags, files.source, files.code_object, &origin);
  CHECK(origin == HipJobOrigin::miss);
  REQUIRE(uncached.has_value());
  CHECK(uncached->args == asked->args);
}

TEST_CASE("hip job cache: code objects compiled with a stored job are the driver's bytes") {
  TempDir cache("tw-hip-job-compile");
  ProbeFiles files;
  // Fill the entries of both arches at O3 (this process may hold its jobs in memory already).
  for (const char* arch : {"--offload-arch=gfx1200", "--offload-arch=gfx1201"}) {
    std::vector<std::string> flags = kFlags;
    flags[2] = arch;
    hip_cc1_job_from_cache(cache.path(), flags, files.source, files.code_object);
  }
  for (const ir::Kernel& k : {samples::vector_add(), samples::wmma_loop()})
    for (Arch arch : {Arch::gfx1200, Arch::gfx1201}) {
      CAPTURE(k.name);
      CAPTURE(arch_name(arch));
      const std::string src = hip::emit_source(k);
      CHECK(compile_hip_source(src, arch, 3, false, false, cache.path()).code_object ==
            compile_hip_with_driver(src, arch, 3).code_object);
    }
}
