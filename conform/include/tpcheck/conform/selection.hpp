// Choosing a function's test cases by mutation (tpcheck conform --mutants,
// --write-tests): the child makes the mutants of the function under test
// (conform/child/18_mutants.py) and runs each on the whole grid, isolated and
// budgeted as any call; a case kills a mutant when the mutant's outcome there
// deviates from the model. The cases kept are the smallest set under which
// every mutant the grid kills is killed (greedy set cover), then one case
// per outcome class, the profile's probes and each deviation's smallest case.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/session.hpp"
#include "tpcheck/conform/written.hpp"

namespace tpcheck::conform {

// A mutant's kills kept (the first cases, in grid order, that kill it): the
// set cover needs some, and a mutant's run stops once it has them.
inline constexpr std::size_t kKillsKept = 32;

// What one case of the grid is for the selection: its arguments, the code's
// outcome, whether that deviates from the model, and the calls a written test
// makes of it with the model's outcomes (empty: nothing a test checks).
struct GridCase {
  CaseArgs args;
  Actual code;
  bool deviates = false;
  std::vector<WrittenItem> items;
  std::string outcome_class;  // the rule its first call pins (outcome_class())
};

struct Selection {
  std::vector<std::size_t> kept;  // indices into the grid's cases, in the order a test shows them
  std::size_t mutants = 0;
  std::size_t killed_by_grid = 0;
  std::size_t killed_by_kept = 0;
  double seconds = 0;
  std::vector<std::string> notes;  // one line each: nothing to mutate, a mutant that hung or ate memory
};

// The outcome class of a case whose first call expects `first`: the exact
// error, or the sizes' order (P < D, P = D, P > D; L and R alike) with how
// the heads are held (split, replicated, MLA). A comment names it in the file.
std::string outcome_class(const Binding& binding, const CaseArgs& args, const Expected& first);

// The selection for binding `index` of `session` on `grid` (whose cases, with
// the code's outcomes, are `cases`); `always` are kept besides (the probes,
// the deviations' smallest cases). `known` holds the session's outcomes by
// id; `kinds` is the profile's table of kinds. An empty error: it could run.
Selection select_cases(Session& session, std::size_t index, const Binding& binding, const Grid& grid,
                       const std::vector<GridCase>& cases, const std::vector<std::size_t>& always,
                       KnownOutcomes& known, const std::vector<KindInfo>& kinds, std::string& error);

// Whether a judgement is a deviation (informational kinds and bindings are not).
bool is_deviation(const Binding& binding, const Judgement& judgement, const std::vector<KindInfo>& kinds);

}  // namespace tpcheck::conform
