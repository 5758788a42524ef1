#include <emit/subprocess.hpp>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>

namespace tw::emit {

namespace {

// A temporary file removed when the object dies (captures one output stream).
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(const char* suffix) {
    if (auto ec = llvm::sys::fs::createTemporaryFile("tilewave-proc", suffix, path))
      throw std::runtime_error("cannot create a temporary file: " + ec.message());
  }
  ~TempFile() { llvm::sys::fs::remove(path); }
};

} // namespace

std::string command_line(const std::string& program, const std::vector<std::string>& args) {
  std::string s = program;
  for (const std::string& a : args)
    s += " " + a;
  return s;
}

std::string failure_message(const std::string& what, const ProcessResult& r,
                            const std::string& command) {
  std::string msg = what + " failed";
  if (!r.failure.empty())
    msg += " (" + r.failure + ")";
  else
    msg += " (exit status " + std::to_string(r.exit_code) + ")";
  msg += "\ncommand: " + command;
  if (!r.output.empty())
    msg += "\n" + r.output;
  return msg;
}

namespace {
std::atomic<std::uint64_t> children_cpu_us{0};
} // namespace

double child_process_cpu_seconds() {
  return 1e-6 * double(children_cpu_us.load(std::memory_order_relaxed));
}

ProcessResult run_process(const std::string& program, const std::vector<std::string>& args) {
  TempFile out("out"), err("err");
  std::vector<llvm::StringRef> argv;
  argv.reserve(args.size() + 1);
  argv.push_back(program);
  for (const std::string& a : args)
    argv.push_back(a);
  const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), out.path.str(),
                                                      err.path.str()};
  ProcessResult r;
  std::string why;
  bool failed = false;
  std::optional<llvm::sys::ProcessStatistics> stats;
  r.exit_code = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, 0, 0, &why,
                                          &failed, &stats);
  if (stats)
    children_cpu_us.fetch_add(static_cast<std::uint64_t>(stats->TotalTime.count()),
                              std::memory_order_relaxed);
  if (failed || r.exit_code < 0) {
    r.exit_code = -1;
    r.failure = why.empty() ? "the process was killed or crashed" : why;
  }
  r.output = read_text_file(out.path.c_str()) + read_text_file(err.path.c_str());
  return r;
}

TempDir::TempDir(const std::string& prefix) {
  // createUniqueDirectory is relative to the working directory: root it in the temp dir.
  llvm::SmallString<128> base;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, base);
  llvm::sys::path::append(base, prefix);
  llvm::SmallString<128> p;
  if (auto ec = llvm::sys::fs::createUniqueDirectory(base, p))
    throw std::runtime_error("cannot create a temporary directory: " + ec.message());
  path_ = p.str().str();
}

TempDir::~TempDir() {
  llvm::sys::fs::remove_directories(path_);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> read_binary_file(const std::string& path) {
  const std::string text = read_text_file(path);
  return {text.begin(), text.end()};
}

void write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out)
    throw std::runtime_error("cannot write '" + path + "'");
}

} // namespace tw::emit
