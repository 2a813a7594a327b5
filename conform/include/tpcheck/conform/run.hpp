// A whole conformance run: bind the functions, call them on every case,
// judge each outcome against the model, group the deviations, and record or
// diff the outcomes. The public entry point of the conform library.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"

namespace tpcheck::conform {

struct RunOptions {
  std::string profile;              // "vllm-moriio"; empty with an adapter
  std::vector<std::string> files;   // connector sources, or the one adapter module
  bool adapter = false;
  std::vector<std::string> only;    // --function: just these (each must be found)
  GridBounds bounds;
  std::chrono::milliseconds timeout{5000};
  std::string python = "python3";
  std::vector<std::string> corpus;  // extra regression files or directories
  std::string record_path;          // --record
  std::string baseline_path;        // --baseline
};

struct Counterexample {
  CaseArgs args;
  std::string expected;
  std::string actual;
  std::string note;  // the model call a relation took the expectation from
};

struct DeviationGroup {
  Kind kind;
  std::uint64_t count = 0;
  Counterexample smallest;
  std::uint64_t too_many = 0;  // wrong counts above the model's (stalls)
  std::uint64_t too_few = 0;   // and below (blocks freed early)
};

// With --baseline: a case whose outcome is not the recorded one.
struct Change {
  CaseArgs args;
  std::string before;
  std::string after;
  std::string expected;
};

struct FunctionReport {
  Binding binding;
  std::optional<std::string> where;  // nullopt: skipped (not defined in any file)
  std::uint64_t cases = 0;
  std::uint64_t not_run = 0;  // after the function hung or crashed repeatedly
  std::vector<DeviationGroup> deviations;  // in Kind order; only changed cases with --baseline
  bool in_baseline = true;
  std::uint64_t changes = 0;
  std::vector<Change> shown_changes;  // the smallest ones
};

struct RunReport {
  RunOptions options;
  std::vector<FunctionReport> functions;
  std::vector<std::string> incidents;     // child deaths, hangs, restarts
  std::vector<std::string> baseline_only;  // functions recorded in the baseline but not found now
  std::uint64_t cases = 0;
  double seconds = 0;
  std::uint64_t deviation_count() const;
};

// nullopt with `error` on a usage or load error (exit status 2).
std::optional<RunReport> run_conformance(const RunOptions& options, std::string& error);

}  // namespace tpcheck::conform
