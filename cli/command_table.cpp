#include "commands.hpp"

namespace tpcheck::cli {

const std::vector<CommandInfo>& command_infos() {
  static const std::vector<CommandInfo> commands = {
      {"verify", "[--max-tp N] [--max-heads N] [--invariant NAME]... [--list] [--json]",
       "check every invariant of the registry on every case up to the bounds", verify_command},
      {"eval", "[--model TYPE] (OP ARGS... | --batch)", "print a model operation's outcome in Python's notation",
       eval_command},
      {"check", "--prefill-tp P --decode-tp D (--kv-heads H | --mla | --model-config FILE) [...]",
       "which connectors accept a deployment's sizing; its ports and hosts", check_command},
      {"plan", "--prefill-tp P --decode-tp D (--kv-heads H | --mla | --model-config FILE) [...]",
       "the transfer plan: who copies which heads from whom, who waits for whom", plan_command},
      {"matrix", "(--kv-heads H | --mla | --model-config FILE) [--max-tp N] [--svg FILE] [...]",
       "which (P, D) each connector accepts, as a grid or a heat map", matrix_command},
      {"conform", "(--profile PROFILE FILE... | --adapter MODULE.py) [...]",
       "check a connector's own functions against the model", conform_command},
      {"prove", "[--list] [--only NAME]... [--json] [...]", "prove the invariants with Z3, for unbounded integers",
       prove_command},
      {"docs", "TABLE", "print one of the manual's tables as Markdown", docs_command},
  };
  return commands;
}

const CommandInfo* find_command(const std::string& name) {
  for (const CommandInfo& c : command_infos()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace tpcheck::cli
