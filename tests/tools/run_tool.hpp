#pragma once
// Runs the built `tilewave` tool as a subprocess and captures its output and exit status.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace tw::test {

struct ToolResult {
  int status = -1;    // exit status of the process
  std::string output; // stdout and stderr, interleaved
};

inline ToolResult run_tool(const std::string& args) {
  const std::string cmd = std::string(TILEWAVE_TOOL) + " " + args + " 2>&1";
  ToolResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe)
    return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    r.output.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// The last non-empty line of the tool's output (commands print their result there).
inline std::string last_line(const std::string& out) {
  size_t end = out.find_last_not_of("\n");
  if (end == std::string::npos)
    return "";
  size_t start = out.rfind('\n', end);
  return out.substr(start == std::string::npos ? 0 : start + 1,
                    end - (start == std::string::npos ? 0 : start + 1) + 1);
}

} // namespace tw::test
