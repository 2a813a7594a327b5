// The regression cases of a conformance run: model calls "OP ARGS..." in
// tpcheck eval's notation, from the built-in list and from --corpus files.
#pragma once

#include <string>
#include <vector>

#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {

// A regression call and where it was read.
struct ModelCall {
  std::string op;
  std::vector<BigInt> args;
  std::string where;
};

// Reads "OP ARGS..." lines ('#' comments and blank lines skipped) from the
// built-in regression list and from each given file or directory (every file
// in it, sorted). A line that is not a valid model call is an error: returns
// false with `error` naming file and line.
bool load_regression_calls(const std::vector<std::string>& paths, std::vector<ModelCall>& calls, std::string& error);

}  // namespace tpcheck::conform
