// JSON text for the --json output of tpcheck's commands and reports.
#pragma once

#include <string>

namespace tpcheck {

// s as a JSON string literal (quotes, backslashes and control bytes escaped).
std::string json_string(const std::string& s);

}  // namespace tpcheck
