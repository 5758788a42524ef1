#pragma once
// Runs a program to completion with its output captured (the toolchain driver's one way to
// start clang and lld).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tw::emit {

struct ProcessResult {
  int exit_code = -1;  // -1: could not be started or was killed
  std::string output;  // stdout followed by stderr
  std::string failure; // why it could not be started, if it could not
};

// Runs `program` with `args` (args[0] is not the program: it is added). Waits for it.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args);

// User + sys CPU seconds of every process run_process has run in this process so far.
double child_process_cpu_seconds();

// `program` and `args` as one line, for messages.
std::string command_line(const std::string& program, const std::vector<std::string>& args);

// The message of a failed run: "<what> failed (<why>)", then "command: <command>", then what
// the program printed.
std::string failure_message(const std::string& what, const ProcessResult& r,
                            const std::string& command);

// A fresh directory under the system temp directory, removed with everything in it when the
// object dies. Throws std::runtime_error when it cannot be created.
class TempDir {
public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

// Whole-file helpers that throw std::runtime_error naming the path.
std::string read_text_file(const std::string& path);
std::vector<std::uint8_t> read_binary_file(const std::string& path);
void write_file(const std::string& path, const void* data, std::size_t size);

} // namespace tw::emit
