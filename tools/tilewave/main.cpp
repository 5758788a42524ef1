// `tilewave`: the user's door to layouts, atoms, emitters, the emulator and the kernels.
#include "tilewave/command.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <map>
#include <new>

namespace tw::tool {

std::vector<RegisteredCommand>& registered_commands() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

Command::Command(std::string name, std::string description, Setup setup) {
  registered_commands().push_back({std::move(name), std::move(description), std::move(setup)});
}

} // namespace tw::tool

int main(int argc, char** argv) {
  using namespace tw::tool;
  CLI::App app{"tilewave: tile kernels for AMD RDNA4 (gfx1200 / gfx1201)", "tilewave"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tilewave 0.1.0");

  auto commands = registered_commands();
  std::sort(commands.begin(), commands.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::map<CLI::App*, Command::Action> actions;
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    actions[sub] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int status = 0;
  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) {
        status = action();
        break;
      }
  } catch (const std::bad_alloc&) {
    std::cout.flush();
    std::cerr << "tilewave: error: out of memory (an input asks for more than this machine "
                 "has)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "tilewave: error: " << e.what() << "\n";
    return 1;
  }
  // A full disk or a closed pipe shows only when the buffered output is flushed.
  if (!std::cout.flush()) {
    std::cerr << "tilewave: error: writing standard output failed (disk full or pipe closed?)\n";
    return 1;
  }
  return status;
}
