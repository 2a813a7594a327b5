// Markdown rendering of a RunReport (report.hpp): a short summary for a CI
// job's page ($GITHUB_STEP_SUMMARY), in GitHub Flavored Markdown.
#include <algorithm>
#include <string_view>

#include "report_support.hpp"
#include "tpcheck/conform/report.hpp"

namespace tpcheck::conform {
namespace {

using report_support::shown;

// A table cell shows at most this much of an outcome; the text, JSON and SARIF
// reports show more.
constexpr std::size_t kCellOutcome = 120;

// One line: a table row ends at a newline.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

// Plain text with Markdown's active characters escaped (a table's | too).
std::string plain(const std::string& s) {
  std::string out;
  for (const char c : one_line(s)) {
    if (std::string_view("\\`*_[]<>|").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A code span that holds any text: its fence is longer than any run of
// backticks inside, and | is escaped, as a table cell requires even there.
std::string code(const std::string& s) {
  std::size_t longest = 0, run = 0;
  for (const char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string body;
  for (const char c : one_line(s)) body += c == '|' ? std::string("\\|") : std::string(1, c);
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string smallest_case(const FunctionReport& f, const DeviationGroup& g) {
  return code(call_text(f, g.smallest.args, g.smallest.at)) + ": expected " + code(shown(g.smallest.expected, kCellOutcome)) +
         ", actual " + code(shown(g.smallest.actual, kCellOutcome));
}

std::string cases_cell(const FunctionReport& f) {
  std::string s = std::to_string(f.cases);
  if (f.not_run) s += " (" + std::to_string(f.not_run) + " not run)";
  if (f.not_compared) s += " (" + std::to_string(f.not_compared) + " not compared)";
  return s;
}

}  // namespace

void print_markdown(std::ostream& out, const RunReport& r) {
  const auto& o = r.options;
  const bool diff = !o.baseline_path.empty();
  const auto checked = std::count_if(r.functions.begin(), r.functions.end(), [](const auto& f) { return f.checked; });
  const auto deviating = report_support::functions_with_deviations(r);
  out << "### tpcheck conform, " << plain(report_support::run_title(r)) << ": ";
  if (r.deviation_count() == 0) {
    out << "no deviations" << (diff ? " among the changed cases" : "") << " in " << checked << " functions\n\n";
  } else {
    out << r.deviation_count() << (diff ? " changed cases deviate" : " deviations") << " in " << deviating << " of "
        << checked << " functions\n\n";
  }
  out << r.cases << " cases, grid up to `--max-tp " << o.bounds.max_tp << " --max-heads " << o.bounds.max_heads << "`";
  if (diff) out << "; compared with the baseline " << code(o.baseline_path) << ": only cases whose outcome changed";
  out << ".\n\n| function | cases |" << (diff ? " changed |" : "") << " deviations | smallest case |\n"
      << "| --- | ---: |" << (diff ? " ---: |" : "") << " --- | --- |\n";
  for (const auto& f : r.functions) {
    if (!f.checked) {
      out << "| " << code(f.name) << " | skipped |" << (diff ? " |" : "") << " | " << plain(f.skip_reason) << " |\n";
      continue;
    }
    const std::string first = "| " + code(report_support::found_row(f)) + " at " + code(report_support::where(f)) + " | " +
                              cases_cell(f) + " |" + (diff ? " " + std::to_string(f.changes) + " |" : "");
    const std::string again = std::string("| | |") + (diff ? " |" : "");
    if (f.deviations.empty()) out << first << " none | |\n";
    for (std::size_t k = 0; k < f.deviations.size(); ++k) {
      const auto& g = f.deviations[k];
      out << (k ? again : first) << " " << g.id() << ": " << g.count << " | " << smallest_case(f, g) << " |\n";
    }
  }
  for (const auto& name : r.baseline_only) {
    out << "| " << code(name) << " | not found now |" << (diff ? " |" : "") << " | in the baseline |\n";
  }
  if (r.deviation_count() != 0) {
    out << "\nWhat the deviations do:\n";
    for (const auto& f : r.functions) {
      for (const auto& g : f.deviations) {
        out << "- " << code(report_support::found_row(f)) << ", " << g.id() << ": " << plain(g.meaning) << "\n";
      }
    }
  }
  const bool any_notes = std::any_of(r.functions.begin(), r.functions.end(), [](const auto& f) { return !f.notes.empty(); });
  if (any_notes) {
    out << "\nNotes (not deviations):\n";
    for (const auto& f : r.functions) {
      for (const auto& g : f.notes) {
        out << "- " << code(report_support::found_row(f)) << ", " << g.id() << ": " << g.count << ", smallest " << smallest_case(f, g) << ". "
            << plain(g.meaning) << "\n";
      }
    }
  }
  if (!r.incidents.empty()) {
    out << "\nChild process incidents:\n";
    for (const auto& i : r.incidents) out << "- " << plain(i) << "\n";
  }
}

}  // namespace tpcheck::conform
