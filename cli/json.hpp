// JSON text for the commands' --json output.
#pragma once

#include <string>

namespace tpcheck::cli {

// s as a JSON string literal (quotes, backslashes and control bytes escaped).
std::string json_string(const std::string& s);

}  // namespace tpcheck::cli
