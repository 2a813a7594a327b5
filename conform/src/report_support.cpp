// Shared pieces of the report writers (report_support.hpp).
#include "report_support.hpp"

#include <algorithm>

#include "tpcheck/conform/state_grid.hpp"

namespace tpcheck::conform::report_support {

std::string shown(const std::string& outcome, std::size_t limit) {
  if (outcome.size() <= limit) return outcome;
  return outcome.substr(0, limit) + "... (" + std::to_string(outcome.size()) + " bytes)";
}

std::string found_row(const FunctionReport& f) {
  const auto row = f.name.find(" (");
  return row == std::string::npos ? f.found : f.found + f.name.substr(row);
}

std::string where(const FunctionReport& f) { return f.file + ":" + std::to_string(f.line); }

std::string expected_with_note(const Counterexample& c, std::size_t limit) {
  return shown(c.expected, limit) + (c.note.empty() ? "" : "  (" + c.note + ")");
}

std::size_t functions_with_deviations(const RunReport& r) {
  std::size_t n = 0;
  for (const auto& f : r.functions) n += f.deviation_count() != 0 ? 1 : 0;
  return n;
}

std::string run_title(const RunReport& r) {
  const auto& o = r.options;
  return (o.adapter ? "adapter " + o.files.at(0) : "profile " + o.profile) + (o.hybrid ? " --hybrid" : "");
}

std::string state_grid_text(const RunReport& r) {
  if (std::none_of(r.functions.begin(), r.functions.end(), [](const FunctionReport& f) { return f.state && f.checked; })) {
    return "";
  }
  std::string families;
  for (const StateFamily f : r.options.families) families += (families.empty() ? "" : ", ") + std::string(state_family_name(f));
  return ", hybrid state up to " + std::to_string(state::state_sizes(r.options.bounds)) +
         (families.empty() ? "" : " (" + families + ")");
}

}  // namespace tpcheck::conform::report_support
