// tpcheck: verify the heterogeneous-TP topology model, evaluate it, and check
// deployments and connectors against it.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tpcheck_version.hpp"

namespace {

void print_usage() {
  std::cout << "usage: tpcheck COMMAND [ARGS...]\ncommands:\n";
  for (const tpcheck::cli::CommandInfo& c : tpcheck::cli::command_infos()) {
    const std::string synopsis = std::string(c.name) + " " + c.arguments;
    std::cout << "  " << synopsis << "\n      " << c.summary << "\n";
  }
  std::cout << "Run 'tpcheck COMMAND --help' for a command's options; 'tpcheck --version' prints the version.\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    print_usage();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    if (args.size() > 1) {
      std::cerr << "tpcheck: --version takes no arguments\n";
      return 2;
    }
    std::cout << "tpcheck " << tpcheck::cli::kVersion << "\n";
    return 0;
  }
  const tpcheck::cli::CommandInfo* command = tpcheck::cli::find_command(args[0]);
  if (!command) {
    std::cerr << "tpcheck: unknown command '" << args[0] << "' (see tpcheck --help)\n";
    return 2;
  }
  return command->run(std::vector<std::string>(args.begin() + 1, args.end()));
}
