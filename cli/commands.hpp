// The subcommands of the tpcheck command line. Each takes the arguments after
// its name and returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace tpcheck::cli {

int eval_command(const std::vector<std::string>& args);
int verify_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);
int plan_command(const std::vector<std::string>& args);
int matrix_command(const std::vector<std::string>& args);
int conform_command(const std::vector<std::string>& args);
int prove_command(const std::vector<std::string>& args);  // exit 2 in a build without Z3 (but --help)
int docs_command(const std::vector<std::string>& args);

// A command as `tpcheck --help` lists it: the one table that the usage, the
// dispatch and `tpcheck docs commands` read.
struct CommandInfo {
  const char* name;
  const char* arguments;  // as the usage shows them after the name
  const char* summary;    // what it does, in one line
  int (*run)(const std::vector<std::string>& args);
};
// Every command, in the order `tpcheck --help` lists them.
const std::vector<CommandInfo>& command_infos();
const CommandInfo* find_command(const std::string& name);

}  // namespace tpcheck::cli
