// A whole conformance run: bind the functions, call them on every case,
// judge each outcome against the model, group the deviations, and record or
// diff the outcomes. The public entry point of the conform library.
//
// The report is plain data: report.hpp renders it as text or JSON, and any
// other writer can read the same structs.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/selection.hpp"
#include "tpcheck/conform/write_tests.hpp"

namespace tpcheck::conform {

struct RunOptions {
  std::string profile;              // a name of profile.hpp's profiles(); empty with an adapter
  std::vector<std::string> files;   // connector sources, or the one adapter module
  bool adapter = false;
  bool hybrid = false;              // --hybrid, for a profile that takes it (Profile::hybrid)
  std::vector<StateFamily> families;  // --family: the state grid's families (empty: all)
  std::vector<std::string> only;    // --function: just these (each must be found)
  GridBounds bounds;
  std::chrono::milliseconds timeout{5000};  // the budget of one call
  std::string python = "python3";
  std::uint64_t memory_mib = 0;     // the child's address space; 0: the default for the mode
  std::vector<std::string> corpus;  // extra regression files or directories
  std::string record_path;          // --record
  std::string baseline_path;        // --baseline
  int fuzz_seconds = 0;             // --fuzz: libFuzzer instead of the grid, for this long
  // --mutants: choose each function's test cases by mutation (selection.hpp);
  // with write_tests (--write-tests DIR), also make its test file's section
  // (write_tests.hpp), written in that style.
  bool mutants = false;
  std::string write_tests;
  ImportStyle import_style = ImportStyle::Module;
};

// The default address-space limits of the child, in MiB: code under test has
// no business allocating more; an adapter may import torch, which reserves
// far more address space than it uses.
inline constexpr std::uint64_t kProfileMemoryMib = 4096;
inline constexpr std::uint64_t kAdapterMemoryMib = 16384;

struct Counterexample {
  CaseArgs args;         // in the function's parameter order (FunctionReport::params)
  // What the finding is about besides the case (FunctionReport::coordinates):
  // a rank, or nullopt for "-" (a per-d kind has no p).
  std::vector<std::optional<BigInt>> at;
  std::string expected;  // tpcheck eval's notation, or the relation's canonical form
  std::string actual;
  std::string note;      // the model call a relation took the expectation from
};

struct DeviationGroup {
  Kind kind = Kind::WrongValue;
  std::string label;         // a kind of the profile's table (wrong_heads); empty: kind_id(kind)
  std::uint64_t count = 0;   // cases (configurations, for a function judged by configuration)
  std::uint64_t pairs = 0;   // by configuration: the pairs (p, d) or ranks it was found for, over all of them
  std::size_t order = 0;     // its place in the profile's table of kinds
  Counterexample smallest;   // smallest sizes first
  std::string meaning;       // one line: what it does to a deployment
  Effect effect = Effect::Unspecified;  // of the smallest case
  std::uint64_t too_many = 0;  // wrong counts above the model's (stalls)
  std::uint64_t too_few = 0;   // and below (blocks freed early)
  std::string id() const { return label.empty() ? kind_id(kind) : label; }
};

// With --baseline: a case whose outcome is not the recorded one.
struct Change {
  CaseArgs args;
  std::string before;
  std::string after;
  std::string expected;
  bool conforms = false;  // the new outcome is the model's
};

struct FunctionReport {
  std::string name;                // as the profile names it
  std::vector<ParamSpec> params;   // the case parameters, in argument order
  bool named_args = false;         // show cases as "P=4, D=1" rather than "4, 1"
  bool checked = false;            // false: skipped, for skip_reason
  std::string skip_reason;
  std::string found;               // the definition bound: "compute_tp_mapping", "TpKVTopology.tp_ratio"
  std::string file;                // where it is defined
  int line = 0;
  std::uint64_t cases = 0;
  std::uint64_t not_run = 0;       // after the function hung or crashed repeatedly
  std::uint64_t not_compared = 0;  // cases the relation does not speak about
  std::string not_compared_reason;
  std::vector<DeviationGroup> deviations;  // in Kind order; only changed cases with --baseline
  // Judged by configuration (Relation::findings): what a finding names besides
  // its case ("p", "d"), the informational kinds found, and what the
  // configurations held ("sends": 1292), in the order first seen.
  std::vector<std::string> coordinates;
  bool by_configuration = false;
  bool state = false;  // a hybrid state function: its grid is SPEC §16.8's (state_grid.hpp)
  std::vector<DeviationGroup> notes;
  std::vector<std::pair<std::string, std::uint64_t>> tallies;
  double judge_seconds = 0;  // by configuration: the time tpcheck spent judging (transfers judged per second)
  double seconds = 0;        // the function's whole run: its calls and their judgement
  bool in_baseline = true;
  std::uint64_t changes = 0;
  std::vector<Change> shown_changes;  // the smallest ones
  // --mutants, --write-tests: how its test cases were chosen, or why it gets no written test.
  std::optional<Selection> selection;
  std::string not_written;
  std::uint64_t deviation_count() const;
};

// What --fuzz did: libFuzzer on the compiled functions until the first
// deviation, which the grid then shrinks to the smallest case of its kind.
struct FuzzSummary {
  double seconds = 0;          // until the first deviation, or the whole budget
  std::uint64_t runs = 0;      // inputs libFuzzer ran
  std::string first;           // the first deviation as the target saw it ("" when none)
  double build_seconds = 0;    // building the fuzz target (0 when cached)
};

struct RunReport {
  RunOptions options;
  std::vector<FunctionReport> functions;
  std::vector<std::string> incidents;      // child deaths, hangs, restarts
  std::uint64_t unexplained_deaths = 0;    // child deaths no case could be blamed for
  std::vector<std::string> baseline_only;  // functions recorded in the baseline but not found now
  std::uint64_t cases = 0;
  double seconds = 0;
  std::optional<FuzzSummary> fuzz;
  double cxx_build_seconds = 0;  // extracting and compiling the C++ child (0 without one)
  bool cxx_build_cached = false;  // the C++ child came from the cache
  // --write-tests: the functions' sections of their test files, in order.
  std::vector<TestSection> sections;
  std::uint64_t deviation_count() const;
};

// nullopt with `error` on a usage or load error (exit status 2).
std::optional<RunReport> run_conformance(const RunOptions& options, std::string& error);

// --fuzz SECONDS: the profile's C++ functions under libFuzzer (cxx_fuzz.cpp);
// the report has the first deviation's kind with its smallest case.
std::optional<RunReport> run_conformance_fuzz(const RunOptions& options, std::string& error);

// The Python program the child runs (conform/child/*.py and every engine's
// child/*.py joined, embedded at build time; the installed share/tpcheck/conform/child.py is a copy to read).
const char* child_program();

// "name(2, 4, 1)" or "name(P=4, D=1, H=2, MLA=True, d=0)"; with a finding's
// coordinates after the case's parameters: "name(P=1, D=4, H=2, page_size=1, probe=0, p=-, d=1)".
std::string call_text(const FunctionReport& f, const CaseArgs& args, const std::vector<std::optional<BigInt>>& at = {});

}  // namespace tpcheck::conform
