// tpcheck: verify the heterogeneous-TP topology model and evaluate it.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace {

constexpr const char* kUsage =
    "usage: tpcheck COMMAND [ARGS...]\n"
    "commands:\n"
    "  verify [--max-tp N] [--max-heads N] [--threads N] [--json]\n"
    "                       check every invariant exhaustively up to the bounds\n"
    "  eval OP ARGS...      print one model outcome in Python's notation\n"
    "  eval --batch         the same for each 'OP ARGS...' line of standard input\n";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "eval") return tpcheck::cli::eval_command(rest);
  if (args[0] == "verify") return tpcheck::cli::verify_command(rest);
  std::cerr << "tpcheck: unknown command '" << args[0] << "' (see tpcheck --help)\n";
  return 2;
}
