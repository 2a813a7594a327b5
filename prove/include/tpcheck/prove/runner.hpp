// Runs the proofs: each goal in a Z3 context of its own, the goals of every
// invariant spread over threads, each goal within a time budget.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tpcheck/prove/proofs.hpp"

namespace tpcheck::prove {

enum class Verdict {
  Proved,     // every check came back unsat
  Refuted,    // Z3 found a counterexample
  Unknown,    // Z3 gave up (the reason says why: timeout, incomplete...)
  Vacuous,    // the domain is empty: nothing was proved
  NotProved,  // the registry calls it not provable, or stated and not settled (it says why)
  CitesUnproved,  // its goals are proved, but an invariant they cite (Goal::cite) is not
};
std::string_view verdict_name(Verdict v);

struct Counterexample {
  std::vector<std::pair<std::string, std::string>> inputs;  // name, value
  std::vector<std::string> calls;  // "tpcheck eval OP ARGS  ->  OUTCOME" (the encoding's outcome)
};

struct GoalResult {
  std::string claim;
  Verdict verdict;
  double seconds;      // wall clock
  double cpu_seconds;  // this thread's CPU time: what the goal costs on an idle core
  std::string reason;  // why unknown or vacuous, or which lemma a counterexample refutes
  std::optional<Counterexample> counterexample;
};

struct InvariantResult {
  std::string invariant;
  Verdict verdict;
  double seconds;      // its goals' wall clock, added up: the invariant alone on one core
  double cpu_seconds;
  std::string domain;
  std::string reason;  // not proved: why
  std::vector<GoalResult> goals;  // its own goals: the times above add up these, not the cited invariants' goals
  std::vector<std::string> cites;  // the invariants its goals are given (Goal::cite): it is proved only if they are
};

struct RunOptions {
  double budget_seconds = 120;  // per goal: its checks stop (unknown) past it
  int threads = 1;
  std::vector<std::string> only;  // invariant names; empty: all
  bool pending = false;           // also run the proofs the registry calls stated, not settled
  Fault fault = Fault::None;
};

// One goal, within `seconds`.
GoalResult prove_goal(const Encoding& enc, const Goal& goal, double seconds);

// The invariants in `options.only` (all when empty) and every invariant
// their goals cite (Goal::cite), by name in the registry's order; `cited`,
// when given, receives the cited ones.
std::vector<std::string> invariants_to_run(const RunOptions& options, std::vector<std::string>* cited = nullptr);

// The invariants to run, each with its goals proved unless the registry calls
// it not provable (or stated, without --pending, and cited by none).
std::vector<InvariantResult> prove_invariants(const RunOptions& options);

// A citing invariant stands on the invariants it cites: where one of them is
// not among the results or not proved, the citing one is CitesUnproved
// (unless its own goals already failed), and its reason says which.
void settle_citations(std::vector<InvariantResult>& results);

}  // namespace tpcheck::prove
