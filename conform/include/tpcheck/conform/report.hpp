// The report of a conformance run, for people and for machines: text, JSON
// (--json), SARIF 2.1.0 for code scanning (--sarif) and a Markdown summary for
// a CI job's page (--markdown). All are written from the same RunReport.
#pragma once

#include <ostream>
#include <string>

#include "tpcheck/conform/run.hpp"

namespace tpcheck::conform {

void print_text(std::ostream& out, const RunReport& report);
void print_json(std::ostream& out, const RunReport& report);

struct SarifOptions {
  std::string tool_version;  // tpcheck --version's
  // Absolute. A function's file under it gets a URI relative to it, with
  // uriBaseId SRCROOT (which the run maps to this directory); one elsewhere
  // an absolute file:// URI.
  std::string base_dir;
};

// One rule per deviation kind (kind_meaning is its help), one result per
// function and kind (its smallest case, expected and actual), located at the
// function's definition. With --baseline, only the changed cases.
void print_sarif(std::ostream& out, const RunReport& report, const SarifOptions& options);

// A short summary for a CI step: a table of function, cases, deviations by
// kind and smallest case, then what each deviation does.
void print_markdown(std::ostream& out, const RunReport& report);

// --mutants: per function, the grid's cases, the cases kept, the mutants
// made, those the grid kills and those the kept cases kill, and the seconds
// the choice took; then each function that gets no written test, and why.
void print_mutants(std::ostream& out, const RunReport& report);

// --write-tests: each file written (its cases, those that fail on the code
// as it is), or why one was not.
void print_written(std::ostream& out, const std::string& dir, const std::vector<WrittenFile>& files);

// 0 when no deviation was found, 1 otherwise (2, load errors, is the caller's).
int exit_status(const RunReport& report);

}  // namespace tpcheck::conform
