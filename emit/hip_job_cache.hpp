#pragma once
// The driver's cc1 job of a HIP compile, kept in the compile cache directory so that a new
// process compiling HIP does not ask `clang++-22 -###` again (about 23 ms of CPU per process
// and (arch, opt level), emit/hip_cc1.hpp).
//
// Key: SHA-256 of one named line per part of what the driver's answer depends on: the clang
// program's stamp (path after symlinks, size, modification time), the toolchain version text,
// every driver flag (arch and opt level among them), the environment variables the driver
// reads when it builds a cc1 job (kHipDriverEnvironment), tilewave's version and the
// emitters' source stamp (the parsing rules are emitter sources). Entry: a DiskCache file
// in <cache dir>/hip-cc1-jobs/ (apart from the code objects; emit/disk_cache.hpp: magic, size,
// BLAKE3, key digest, atomic rename) whose payload is
//   tilewave-hip-cc1-job 1
//   program<TAB>PATH
//   arg<TAB>ARG                  (each, in order; the working directory as kWorkDir)
//   stamp<TAB>PATH<TAB>STAMP     (each directory the job names, and its parent)
// The job's include and resource directories are stamped (modification time, or "absent"),
// with the directory each sits in (a GCC or clang resource directory installed beside it
// changes that one): an entry whose stamps differ from the file system is stale, discarded
// and asked of the driver again, as is one that is damaged or not of this format.
#include <emit/cache_key.hpp>
#include <emit/hip_cc1.hpp>
#include <emit/toolchain_identity.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tw::emit {

// Environment variables clang's driver turns into cc1 arguments or options.
inline constexpr std::array<std::string_view, 12> kHipDriverEnvironment = {
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "OBJC_INCLUDE_PATH",
    "OBJCPLUS_INCLUDE_PATH",
    "CCC_OVERRIDE_OPTIONS",
    "COMPILER_PATH",
    "HIP_PATH",
    "ROCM_PATH",
    "HIP_DEVICE_LIB_PATH",
    "SOURCE_DATE_EPOCH",
    "CLANG_NO_DEFAULT_CONFIG"};

struct HipJobKeyParts {
  ProgramStamp clang;
  std::string toolchain_version;
  std::vector<std::string> driver_flags;
  std::vector<std::pair<std::string, std::optional<std::string>>> environment; // unset: nullopt
  std::string tilewave_version;
  std::string emitter_stamp;
};

CacheKey hip_job_key(const HipJobKeyParts& parts);

// The key parts of this process for `driver_flags`: clang_path()'s stamp, the toolchain
// version as compile() reads it for `cache_dir`, kHipDriverEnvironment's values. nullopt when
// the clang program cannot be stamped (then nothing is cached).
std::optional<HipJobKeyParts>
current_hip_job_key_parts(const std::string& cache_dir,
                          const std::vector<std::string>& driver_flags);

// Stands for the working directory in a stored job (the driver names it in
// -fdebug-compilation-dir= and -fcoverage-compilation-dir=).
inline constexpr std::string_view kWorkDir = "<tilewave-workdir>";

// The entry's payload for `job` run from `workdir`; nullopt when the job cannot be stored
// (a tab or newline in a word, or the working directory in another argument).
std::optional<std::vector<std::uint8_t>> encode_hip_job(const HipCc1Job& job,
                                                        const std::string& workdir);

// The job an entry holds, for a run from `workdir`; nullopt when a stamp differs from the file
// system (stale). Throws std::runtime_error when the payload is not an entry of this format.
std::optional<HipCc1Job> decode_hip_job(const std::vector<std::uint8_t>& payload,
                                        const std::string& workdir);

// The directory of the job entries of compile cache `cache_dir`.
std::string hip_job_dir(const std::string& cache_dir);

// Where hip_cc1_job_from_cache's job came from.
enum class HipJobOrigin { disk_hit, miss, rebuilt };

// The cc1 job of `driver_flags` from `cache_dir`'s entry, else asked of the driver
// (`clang -### <flags> -c source -o code_object`, the paths existing files of this compile)
// and stored. nullopt when the driver's jobs are not of the form parse_hip_driver_jobs
// accepts. An empty cache_dir, or a process whose clang or working directory cannot be
// determined, asks the driver without storing.
std::optional<HipCc1Job> hip_cc1_job_from_cache(const std::string& cache_dir,
                                                const std::vector<std::string>& driver_flags,
                                                const std::string& source,
                                                const std::string& code_object,
                                                HipJobOrigin* origin = nullptr);

} // namespace tw::emit
