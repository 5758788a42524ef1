// The HIP compile as the driver's cc1 job plus an in-process link (see hip_cc1.hpp).
#include <emit/hip_cc1.hpp>
#include <emit/hip_job_cache.hpp>
#include <emit/llvm/lld_in_process.hpp>
#include <emit/subprocess.hpp>
#include <emit/toolchain.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace tw::emit {

std::vector<std::string> split_driver_job_line(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] != '"') {
      ++i; // the blanks between words
      continue;
    }
    std::string word;
    for (++i; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size())
        ++i;
      word += line[i];
    }
    ++i; // the closing quote
    words.push_back(std::move(word));
  }
  return words;
}

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool starts_with(std::string_view s, std::string_view head) {
  return s.substr(0, head.size()) == head;
}

// The lld job links exactly `object` into `code_object` the way link_code_object_in_process
// does; the other options it may carry do nothing to a link of one non-bitcode object.
bool link_job_is_plain(const std::vector<std::string>& job, const std::string& object,
                       const std::string& code_object) {
  if (job.size() < 3 || !ends_with(job[0], "lld") || job[1] != "-flavor" || job[2] != "gnu")
    return false;
  bool shared = false, no_undefined = false, output = false, input = false;
  for (std::size_t i = 3; i < job.size(); ++i) {
    const std::string& a = job[i];
    if (a == "-shared")
      shared = true;
    else if (a == "--no-undefined")
      no_undefined = true;
    else if (a == "-o" && i + 1 < job.size() && job[i + 1] == code_object) {
      output = true;
      ++i;
    } else if (a == "-m" && i + 1 < job.size() && job[i + 1] == "elf64_amdgpu")
      ++i;
    else if (a == object && !input)
      input = true;
    else if (!(a == "--whole-archive" || a == "--no-whole-archive" || starts_with(a, "--lto-") ||
               starts_with(a, "-plugin-opt=")))
      return false;
  }
  return shared && no_undefined && output && input;
}

} // namespace

std::optional<HipCc1Job> parse_hip_driver_jobs(std::string_view driver_output,
                                               const std::string& source,
                                               const std::string& code_object) {
  std::vector<std::vector<std::string>> jobs;
  std::size_t start = 0;
  while (start < driver_output.size()) {
    std::size_t end = driver_output.find('\n', start);
    if (end == std::string_view::npos)
      end = driver_output.size();
    const std::string_view line = driver_output.substr(start, end - start);
    if (starts_with(line, " \""))
      jobs.push_back(split_driver_job_line(line));
    start = end + 1;
  }
  if (jobs.size() != 2 || jobs[0].size() < 2 || jobs[0][1] != "-cc1")
    return std::nullopt;
  const std::vector<std::string>& cc1 = jobs[0];
  if (std::count(cc1.begin(), cc1.end(), "-emit-obj") != 1 ||
      std::count(cc1.begin(), cc1.end(), "-o") != 1 ||
      std::count(cc1.begin(), cc1.end(), source) != 1)
    return std::nullopt;
  const auto o = std::find(cc1.begin(), cc1.end(), "-o");
  if (o + 1 == cc1.end() || *(o + 1) == source)
    return std::nullopt;
  const std::string object = *(o + 1);
  if (!link_job_is_plain(jobs[1], object, code_object))
    return std::nullopt;
  HipCc1Job job;
  job.program = cc1[0];
  for (std::size_t i = 1; i < cc1.size(); ++i) {
    if (cc1[i] == source)
      job.args.emplace_back(HipCc1Job::kSource);
    else if (i > 1 && cc1[i - 1] == "-o")
      job.args.emplace_back(HipCc1Job::kObject);
    else
      job.args.push_back(cc1[i]);
  }
  return job;
}

std::optional<HipCc1Job> ask_driver_for_cc1_job(const std::vector<std::string>& driver_flags,
                                                const std::string& source,
                                                const std::string& code_object) {
  std::vector<std::string> args = driver_flags;
  args.insert(args.end(), {"-###", "-c", source, "-o", code_object});
  const ProcessResult r = run_process(clang_path(), args);
  if (r.exit_code != 0)
    return std::nullopt;
  return parse_hip_driver_jobs(r.output, source, code_object);
}

namespace {

// The cc1 job of (arch, opt level), found on the first compile of each in this process: in
// the compile cache, else asked of the driver (about 23 ms of CPU; a compile through the
// driver costs that much more every time).
const std::optional<HipCc1Job>& cc1_job(Arch arch, int opt_level,
                                        const std::vector<std::string>& driver_flags,
                                        const std::string& source, const std::string& code_object,
                                        const std::string& job_cache_dir) {
  static std::mutex mutex;
  static std::map<std::pair<Arch, int>, std::optional<HipCc1Job>> jobs; // references stay valid
  std::lock_guard lock(mutex);
  const auto key = std::pair(arch, opt_level);
  if (auto it = jobs.find(key); it != jobs.end())
    return it->second;
  return jobs.emplace(key, hip_cc1_job_from_cache(job_cache_dir, driver_flags, source, code_object))
      .first->second;
}

} // namespace

std::optional<std::vector<std::uint8_t>>
compile_hip_via_cc1(std::string_view source, Arch arch, int opt_level,
                    const std::vector<std::string>& driver_flags, const std::string& what,
                    const std::string& job_cache_dir) {
  TempDir dir("tilewave-hip");
  const std::string src = dir.file("kernel.hip"), obj = dir.file("kernel.o"),
                    hsaco = dir.file("kernel.hsaco");
  write_file(src, source.data(), source.size());
  const std::optional<HipCc1Job>& job =
      cc1_job(arch, opt_level, driver_flags, src, hsaco, job_cache_dir);
  if (!job)
    return std::nullopt;
  std::vector<std::string> args = job->args;
  for (std::string& a : args) {
    if (a == HipCc1Job::kSource)
      a = src;
    else if (a == HipCc1Job::kObject)
      a = obj;
  }
  const ProcessResult r = run_process(job->program, args);
  if (r.exit_code != 0) {
    std::vector<std::string> driver_args = driver_flags;
    driver_args.insert(driver_args.end(), {"-c", src, "-o", hsaco});
    throw std::runtime_error(
        failure_message(what, r,
                        command_line(clang_path(), driver_args) +
                            "\n(run as its cc1 job: " + command_line(job->program, args) + ")"));
  }
  return link_code_object_in_process(read_binary_file(obj));
}

} // namespace tw::emit
