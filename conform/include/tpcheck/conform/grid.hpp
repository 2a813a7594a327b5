// The cases a conformance run calls: an exhaustive grid up to the bounds, the
// far-out values beyond them, and the regression corpus.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tpcheck/conform/profile.hpp"
#include "tpcheck/pyint.hpp"

namespace tpcheck::conform {

struct GridBounds {
  int max_tp = 16;     // sizes and ranks
  int max_heads = 16;  // total KV head counts
};

using CaseArgs = std::vector<BigInt>;

// Calls visit on every case for a function with these model parameters (in
// the connector's order), in a fixed order:
//  1. every size in [-1, max_tp] (H in [-1, max_heads], MLA 0/1), and every
//     rank of a size S in [-1, max(S, 0)] (one invalid rank on each side);
//  2. every combination of small values and far-out ones (+-2^63 and
//     neighbours, 2^64, +-10^30; ranks also S-1, S, S/2 of a huge size S)
//     that has at least one value past the grid of step 1.
void for_each_grid_case(const std::vector<std::string>& params, const GridBounds& bounds,
                        const std::function<void(const CaseArgs&)>& visit);

// Whether step 1 above contains the case (to skip corpus duplicates).
bool in_small_grid(const std::vector<std::string>& params, const GridBounds& bounds, const CaseArgs& args);

// A regression call "OP ARGS..." (model notation) and where it was read.
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
