// tpcheck: verify the heterogeneous-TP topology model, evaluate it, and check
// deployments and connectors against it.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tpcheck_version.hpp"

namespace {

constexpr const char* kUsage =
    "usage: tpcheck COMMAND [ARGS...]\n"
    "commands:\n"
    "  verify [--max-tp N] [--max-heads N] [--threads N] [--json]\n"
    "                       check every invariant exhaustively up to the bounds\n"
    "  eval OP ARGS...      print one model outcome in Python's notation\n"
    "  eval --batch         the same for each 'OP ARGS...' line of standard input\n"
    "  check --prefill-tp P --decode-tp D (--kv-heads H | --mla) [...]\n"
    "                       which connectors accept a deployment's sizing; its ports and hosts\n"
    "  plan --prefill-tp P --decode-tp D (--kv-heads H | --mla) [...]\n"
    "                       the transfer plan: who copies which heads from whom, who waits for whom\n"
    "  matrix (--kv-heads H | --mla | --model-config FILE) [--max-tp N] [--svg FILE]\n"
    "                       which (P, D) each connector accepts, as a grid or a heat map\n"
    "  conform --profile vllm-moriio FILE.py... | --adapter MODULE.py\n"
    "                       check a connector's Python functions against the model\n"
    "  prove [--json]       prove the invariants with Z3 for unbounded integers\n"
    "Run 'tpcheck COMMAND --help' for a command's options; 'tpcheck --version' prints the version.\n";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
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
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "eval") return tpcheck::cli::eval_command(rest);
  if (args[0] == "verify") return tpcheck::cli::verify_command(rest);
  if (args[0] == "check") return tpcheck::cli::check_command(rest);
  if (args[0] == "plan") return tpcheck::cli::plan_command(rest);
  if (args[0] == "matrix") return tpcheck::cli::matrix_command(rest);
  if (args[0] == "conform") return tpcheck::cli::conform_command(rest);
  if (args[0] == "prove") return tpcheck::cli::prove_command(rest);
  std::cerr << "tpcheck: unknown command '" << args[0] << "' (see tpcheck --help)\n";
  return 2;
}
