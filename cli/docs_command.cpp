// `tpcheck docs TABLE`: one of the manual's tables as Markdown, printed from
// what this tpcheck knows (docs_tables.hpp).
#include <iostream>

#include "commands.hpp"
#include "docs_tables.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kDocsUsage =
    "usage: tpcheck docs TABLE\n"
    "  Prints one of the manual's tables as Markdown, from what this tpcheck knows.\n"
    "  TABLE is one of:\n"
    "    commands          every command and what it does\n"
    "    usage COMMAND     COMMAND's --help, as a code block\n"
    "    invariants        the invariant registry: SPEC section, domain, kinds, proof status\n"
    "    proofs            what tpcheck prove proves, and for which inputs\n"
    "    profiles          conform's profiles and the functions each checks\n"
    "    profile PROFILE   how each function of PROFILE is looked for, called and compared\n"
    "  scripts/update-docs writes them into README.md and docs/.\n";

std::string names_of_commands() {
  std::string out;
  for (const CommandInfo& c : command_infos()) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::string names_of_profiles() {
  std::string out;
  for (const std::string& p : conform::profile_names()) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

int docs_command(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "tpcheck docs: expected a TABLE (see tpcheck docs --help)\n";
    return 2;
  }
  const std::string& table = args[0];
  if (table == "--help" || table == "-h") {
    std::cout << kDocsUsage;
    return 0;
  }
  const bool takes_name = table == "usage" || table == "profile";
  if (args.size() != (takes_name ? 2u : 1u)) {
    std::cerr << "tpcheck docs: " << (takes_name ? table + " takes one name" : table + " takes no arguments")
              << " (see tpcheck docs --help)\n";
    return 2;
  }
  if (table == "commands") {
    write_commands_table(std::cout);
  } else if (table == "invariants") {
    write_invariants_table(std::cout);
  } else if (table == "proofs") {
    write_proof_table(std::cout);
  } else if (table == "profiles") {
    write_profiles_table(std::cout);
  } else if (table == "usage") {
    if (!find_command(args[1])) {
      std::cerr << "tpcheck docs: no command '" << args[1] << "' (commands: " << names_of_commands() << ")\n";
      return 2;
    }
    if (!write_usage(std::cout, args[1])) {
      std::cerr << "tpcheck docs: tpcheck " << args[1] << " --help failed\n";
      return 2;
    }
  } else if (table == "profile") {
    if (!write_profile_table(std::cout, args[1])) {
      std::cerr << "tpcheck docs: no profile '" << args[1] << "' (profiles: " << names_of_profiles() << ")\n";
      return 2;
    }
  } else {
    std::cerr << "tpcheck docs: no table '" << table << "' (see tpcheck docs --help)\n";
    return 2;
  }
  return 0;
}

}  // namespace tpcheck::cli
