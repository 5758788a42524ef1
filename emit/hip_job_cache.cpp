// The driver's cc1 job of a HIP compile, cached on disk (see hip_job_cache.hpp).
#include <emit/compile.hpp>
#include <emit/disk_cache.hpp>
#include <emit/hip_job_cache.hpp>
#include <emit/toolchain.hpp>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <sys/stat.h>

#ifndef TILEWAVE_VERSION
#define TILEWAVE_VERSION "unknown"
#endif

namespace tw::emit {
namespace {

constexpr std::string_view kHeader = "tilewave-hip-cc1-job 1";

// The arguments whose value is a directory the driver found: stamped in the entry.
bool names_directory(std::string_view option) {
  return option == "-resource-dir" || option == "-internal-isystem" ||
         option == "-internal-externc-isystem" || option == "-isystem" || option == "-I";
}

// "d<mtime ns>" for a directory, "f<size>:<mtime ns>" for anything else, "absent".
std::string path_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return "absent";
  // Appended: g++-12 warns falsely on "literal" + std::string&&.
  std::string stamp = S_ISDIR(st.st_mode) ? "d" : "f";
  if (!S_ISDIR(st.st_mode)) {
    stamp += std::to_string(static_cast<std::uint64_t>(st.st_size));
    stamp += ':';
  }
  stamp += std::to_string(static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                          st.st_mtim.tv_nsec);
  return stamp;
}

// `path` and the directory it sits in, both up to its first ".." component (the driver names
// GCC's headers as <gcc install dir>/../../../../include/c++/12: the install dir it chose and
// the directory it chose it from).
std::vector<std::string> stamped_paths(const std::string& path) {
  std::vector<std::string> out{path};
  std::string lexical = path.substr(0, path.find("/.."));
  if (lexical != path)
    out.push_back(lexical);
  const std::size_t slash = lexical.find_last_of('/');
  if (slash != std::string::npos)
    out.push_back(slash == 0 ? "/" : lexical.substr(0, slash));
  return out;
}

// The paths the job depends on, each once, in order.
std::vector<std::string> job_paths(const HipCc1Job& job) {
  std::vector<std::string> paths;
  auto add = [&paths](const std::string& p) {
    for (const std::string& s : stamped_paths(p))
      if (std::find(paths.begin(), paths.end(), s) == paths.end())
        paths.push_back(s);
  };
  add(job.program);
  for (std::size_t i = 0; i + 1 < job.args.size(); ++i)
    if (names_directory(job.args[i]))
      add(job.args[i + 1]);
  return paths;
}

bool storable(std::string_view s) {
  return s.find_first_of("\t\n") == std::string_view::npos;
}

// The working directory as the driver names it: LLVM's current_path, which is $PWD when that
// is the same directory (a path through a symlink), else getcwd's.
std::optional<std::string> working_directory() {
  llvm::SmallString<256> dir;
  if (llvm::sys::fs::current_path(dir))
    return std::nullopt;
  return dir.str().str();
}

// The options whose value is the working directory (the driver's compilation dirs).
constexpr std::array<std::string_view, 2> kWorkDirOptions = {"-fdebug-compilation-dir=",
                                                             "-fcoverage-compilation-dir="};

} // namespace

std::string hip_job_dir(const std::string& cache_dir) {
  return cache_dir + "/hip-cc1-jobs";
}

CacheKey hip_job_key(const HipJobKeyParts& p) {
  CacheKey key;
  key.description = "tilewave-hip-cc1-job-key-v1\n";
  key.description += "clang=" + p.clang.path + "\t" + std::to_string(p.clang.size) + "\t" +
                     std::to_string(p.clang.mtime_ns) + "\n";
  key.description += "toolchain=" + p.toolchain_version + "\n";
  for (const std::string& f : p.driver_flags)
    key.description += "flag=" + f + "\n";
  for (const auto& [name, value] : p.environment)
    key.description += "env=" + name + (value ? "=" + *value : std::string(" unset")) + "\n";
  key.description += "tilewave=" + p.tilewave_version + "\n";
  key.description += "emitter=" + p.emitter_stamp + "\n";
  key.digest = sha256_hex(key.description);
  return key;
}

std::optional<HipJobKeyParts>
current_hip_job_key_parts(const std::string& cache_dir,
                          const std::vector<std::string>& driver_flags) {
  std::optional<ProgramStamp> clang = stamp_program(clang_path());
  if (!clang)
    return std::nullopt;
  HipJobKeyParts parts{std::move(*clang), toolchain_version(cache_dir), driver_flags, {},
                       TILEWAVE_VERSION,  std::string(emitter_stamp())};
  for (std::string_view name : kHipDriverEnvironment) {
    const std::string n(name);
    const char* v = std::getenv(n.c_str());
    parts.environment.emplace_back(n, v ? std::optional<std::string>(v) : std::nullopt);
  }
  return parts;
}

std::optional<std::vector<std::uint8_t>> encode_hip_job(const HipCc1Job& job,
                                                        const std::string& workdir) {
  if (!storable(job.program) || !std::all_of(job.args.begin(), job.args.end(),
                                             [](const std::string& a) { return storable(a); }))
    return std::nullopt;
  std::string text(kHeader);
  text += "\nprogram\t" + job.program + "\n";
  for (const std::string& a : job.args) {
    std::string arg = a;
    for (std::string_view option : kWorkDirOptions)
      if (a.rfind(option, 0) == 0) {
        if (std::string_view(a).substr(option.size()) != workdir)
          return std::nullopt; // a compilation dir that is not the working directory
        arg = std::string(option) + std::string(kWorkDir);
      }
    if (arg == a && a.find(workdir) != std::string::npos)
      return std::nullopt; // the working directory somewhere else: not known to be replaceable
    text += "arg\t" + arg + "\n";
  }
  for (const std::string& p : job_paths(job))
    text += "stamp\t" + p + "\t" + path_stamp(p) + "\n";
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

std::optional<HipCc1Job> decode_hip_job(const std::vector<std::uint8_t>& payload,
                                        const std::string& workdir) {
  const std::string text(payload.begin(), payload.end());
  std::string_view rest = text;
  auto bad = [](const std::string& why) { return std::runtime_error("hip cc1 job entry: " + why); };
  std::vector<std::pair<std::string_view, std::string_view>> lines; // (tag, value)
  bool header = false;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    if (end == std::string_view::npos)
      throw bad("its last line has no newline");
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    if (!header) {
      if (line != kHeader)
        throw bad("not a '" + std::string(kHeader) + "' entry");
      header = true;
      continue;
    }
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      throw bad("a line without a tab");
    lines.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  if (!header || lines.empty() || lines.front().first != "program")
    throw bad("no program line");
  HipCc1Job job;
  job.program = std::string(lines.front().second);
  std::size_t i = 1;
  for (; i < lines.size() && lines[i].first == "arg"; ++i) {
    std::string arg(lines[i].second);
    for (std::string_view option : kWorkDirOptions)
      if (arg == std::string(option) + std::string(kWorkDir))
        arg = std::string(option) + workdir;
    job.args.push_back(std::move(arg));
  }
  if (job.args.empty() || job.args.front() != "-cc1" ||
      std::count(job.args.begin(), job.args.end(), HipCc1Job::kSource) != 1 ||
      std::count(job.args.begin(), job.args.end(), HipCc1Job::kObject) != 1)
    throw bad("the job is not a cc1 job with one source and one object");
  std::vector<std::string> stamped;
  for (; i < lines.size(); ++i) {
    if (lines[i].first != "stamp")
      throw bad("an unknown line '" + std::string(lines[i].first) + "'");
    const std::string_view v = lines[i].second;
    const std::size_t tab = v.find('\t');
    if (tab == std::string_view::npos)
      throw bad("a stamp line without its stamp");
    const std::string path(v.substr(0, tab));
    if (path_stamp(path) != v.substr(tab + 1))
      return std::nullopt; // the file system changed since the driver was asked
    stamped.push_back(path);
  }
  if (stamped != job_paths(job))
    throw bad("its stamps are not those of the job's directories");
  return job;
}

std::optional<HipCc1Job> hip_cc1_job_from_cache(const std::string& cache_dir,
                                                const std::vector<std::string>& driver_flags,
                                                const std::string& source,
                                                const std::string& code_object,
                                                HipJobOrigin* origin) {
  auto report = [origin](HipJobOrigin o) {
    if (origin)
      *origin = o;
  };
  report(HipJobOrigin::miss);
  const std::optional<std::string> workdir = working_directory();
  const std::optional<HipJobKeyParts> parts =
      cache_dir.empty() || !workdir ? std::nullopt
                                    : current_hip_job_key_parts(cache_dir, driver_flags);
  if (!parts)
    return ask_driver_for_cc1_job(driver_flags, source, code_object);
  const CacheKey key = hip_job_key(*parts);
  const DiskCache disk(hip_job_dir(cache_dir));
  DiskLookup lookup = DiskLookup::miss;
  if (std::optional<std::vector<std::uint8_t>> bytes = disk.load(key.digest, &lookup)) {
    try {
      if (std::optional<HipCc1Job> job = decode_hip_job(*bytes, *workdir)) {
        report(HipJobOrigin::disk_hit);
        return job;
      }
    } catch (const std::runtime_error&) {
    }
    disk.discard(key.digest); // damaged in a way the file's checks cannot see, or stale
    lookup = DiskLookup::corrupt;
  }
  std::optional<HipCc1Job> job = ask_driver_for_cc1_job(driver_flags, source, code_object);
  if (job)
    if (std::optional<std::vector<std::uint8_t>> payload = encode_hip_job(*job, *workdir))
      disk.store(key.digest, *payload);
  report(lookup == DiskLookup::corrupt ? HipJobOrigin::rebuilt : HipJobOrigin::miss);
  return job;
}

} // namespace tw::emit
