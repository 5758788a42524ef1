// `tilewave`: the user's door to layouts, atoms, emitters, the emulator and the kernels.
#include "tilewave/command.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <map>

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
  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed())
        return action();
  } catch (const std::exception& e) {
    std::cerr << "tilewave: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
