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
int prove_command(const std::vector<std::string>& args);  // exit 2 in a build without Z3

}  // namespace tpcheck::cli
