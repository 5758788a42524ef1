#pragma once
// Subcommand registry of the `tilewave` tool. A command file defines one static
// `tw::tool::Command` object; main() builds the CLI11 app from all of them.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tw::tool {

struct Command {
  // setup() adds the subcommand's options to `sub` and returns the action to run
  // when that subcommand is chosen. The action returns the process exit status.
  using Action = std::function<int()>;
  using Setup = std::function<Action(CLI::App& sub)>;

  Command(std::string name, std::string description, Setup setup);
};

struct RegisteredCommand {
  std::string name;
  std::string description;
  Command::Setup setup;
};

std::vector<RegisteredCommand>& registered_commands();

} // namespace tw::tool
