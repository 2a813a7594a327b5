// Text and JSON renderings of a RunReport (the data is run.hpp's).
#include "tpcheck/conform/report.hpp"

#include <iomanip>
#include <sstream>

#include "report_support.hpp"
#include "tpcheck/json.hpp"

namespace tpcheck::conform {
namespace {

using report_support::expected_with_note;
using report_support::shown;
using report_support::where;

std::string json_args(const FunctionReport& f, const CaseArgs& args, const std::vector<std::optional<BigInt>>& at = {}) {
  std::string s = "[";
  for (std::size_t i = 0; i < args.size(); ++i) {
    s += i ? ", " : "";
    s += f.params[i].kind == ParamKind::Flag ? (args[i] != 0 ? "true" : "false") : decimal(args[i]);
  }
  for (std::size_t i = 0; !at.empty() && i < f.coordinates.size(); ++i) {
    s += args.empty() && i == 0 ? "" : ", ";
    s += i < at.size() && at[i] ? decimal(*at[i]) : "null";
  }
  return s + "]";
}

// "12 cases", or for a function judged by configuration "3 configurations, 5 (p, d)".
std::string group_count(const FunctionReport& f, const DeviationGroup& g) {
  if (!f.by_configuration) return std::to_string(g.count) + " cases";
  std::string s = std::to_string(g.count) + (g.count == 1 ? " configuration" : " configurations");
  if (!f.coordinates.empty()) {
    std::string names;
    for (const auto& c : f.coordinates) names += (names.empty() ? "" : ", ") + c;
    s += ", " + std::to_string(g.pairs) + " (" + names + ")";
  }
  return s;
}

void print_group(std::ostream& out, const FunctionReport& f, const DeviationGroup& g, const char* prefix) {
  out << "  " << prefix << g.id() << ": " << group_count(f, g) << "; smallest "
      << call_text(f, g.smallest.args, g.smallest.at) << "\n"
      << "    expected " << expected_with_note(g.smallest) << "\n"
      << "    actual   " << shown(g.smallest.actual) << "\n"
      << "    meaning: " << g.meaning << "\n";
}

void print_json_group(std::ostream& out, const FunctionReport& f, const DeviationGroup& g) {
  out << "{\"kind\": " << json_string(g.id()) << ", \"count\": " << g.count;
  if (f.by_configuration) out << ", \"pairs\": " << g.pairs;
  out << ", \"smallest\": {\"args\": " << json_args(f, g.smallest.args, g.smallest.at) << ", \"call\": "
      << json_string(call_text(f, g.smallest.args, g.smallest.at))
      << ", \"expected\": " << json_string(shown(g.smallest.expected))
      << ", \"actual\": " << json_string(shown(g.smallest.actual));
  if (!g.smallest.note.empty()) out << ", \"relation\": " << json_string(g.smallest.note);
  out << "}, \"meaning\": " << json_string(g.meaning) << "}";
}

}  // namespace

int exit_status(const RunReport& report) {
  // Cases not run (a child that could not be restarted) and deaths no case
  // explains are no clean bill either.
  bool all_run = report.unexplained_deaths == 0;
  for (const auto& f : report.functions) all_run = all_run && f.not_run == 0;
  const bool fuzz_found = report.fuzz && !report.fuzz->first.empty();
  return report.deviation_count() == 0 && all_run && !fuzz_found ? 0 : 1;
}

void print_text(std::ostream& out, const RunReport& r) {
  const auto& o = r.options;
  const bool diff = !o.baseline_path.empty();
  out << "tpcheck conform: " << report_support::run_title(r) << ", grid up to --max-tp " << o.bounds.max_tp
      << " --max-heads " << o.bounds.max_heads << report_support::state_grid_text(r)
      << (diff ? ", compared with baseline " + o.baseline_path : "") << "\n";
  if (r.cxx_build_seconds > 0 || r.cxx_build_cached) {
    std::ostringstream built;
    built << std::fixed << std::setprecision(1) << r.cxx_build_seconds;
    out << "C++ child: " << (r.cxx_build_cached ? "from the cache" : "built in " + built.str() + " s")
        << " (this compiles and runs the given code)\n";
  }
  if (r.fuzz) {
    std::ostringstream fuzz;
    fuzz << std::fixed << std::setprecision(1) << r.fuzz->seconds << " s, " << r.fuzz->runs << " inputs";
    out << "fuzz: " << (r.fuzz->first.empty() ? "no deviation in " + fuzz.str()
                                              : r.fuzz->first + " after " + fuzz.str() +
                                                    "; below, the smallest case of its kind (by the grid)")
        << "\n";
  }
  for (const auto& f : r.functions) {
    out << "\n" << f.name;
    if (!f.checked) {
      out << ": skipped (" << f.skip_reason << ")\n";
      continue;
    }
    out << " (" << (f.found != f.name ? f.found + ", " : "") << where(f) << "): " << f.cases
        << (f.by_configuration ? " configurations" : " cases");
    if (f.not_run) out << " (" << f.not_run << " not run: abandoned after it hung or crashed)";
    if (f.not_compared) out << " (" << f.not_compared << " not compared: " << f.not_compared_reason << ")";
    if (diff && f.in_baseline) out << ", " << f.changes << " changed since the baseline";
    if (diff && !f.in_baseline) out << ", not in the baseline";
    out << ", " << f.deviation_count() << " deviations\n";
    std::string held;
    for (const auto& [name, n] : f.tallies) {
      if (name != "configurations") held += (held.empty() ? "" : ", ") + std::to_string(n) + " " + name;
    }
    if (!held.empty()) out << "  " << held << "\n";
    for (const auto& g : f.deviations) print_group(out, f, g, "");
    for (const auto& g : f.notes) print_group(out, f, g, "note ");
    if (diff && !f.shown_changes.empty()) {
      out << "  changed cases (smallest " << f.shown_changes.size() << " of " << f.changes << "):\n";
      for (const auto& c : f.shown_changes) {
        out << "    " << call_text(f, c.args) << ": " << shown(c.before) << " -> " << shown(c.after)
            << (c.conforms ? "  (now as the model)" : "  (model: " + shown(c.expected) + ")") << "\n";
      }
    }
  }
  for (const auto& name : r.baseline_only) out << "\n" << name << ": in the baseline, not found now\n";
  if (!r.incidents.empty()) {
    out << "\nchild process incidents:\n";
    for (const auto& i : r.incidents) out << "  " << i << "\n";
  }
  std::ostringstream rate;
  rate << std::fixed << std::setprecision(1) << r.seconds << " s, " << std::setprecision(0)
       << (r.cases / std::max(r.seconds, 1e-9)) << " cases/s";
  const auto functions_with_deviations = report_support::functions_with_deviations(r);
  out << "\nconform: " << r.cases << " cases, " << r.deviation_count() << " deviations in " << functions_with_deviations
      << (functions_with_deviations == 1 ? " function, " : " functions, ") << rate.str() << "\n";
}

void print_json(std::ostream& out, const RunReport& r) {
  const auto& o = r.options;
  out << "{\"profile\": " << json_string(o.adapter ? "adapter" : o.profile) << ", \"hybrid\": "
      << (o.hybrid ? "true" : "false") << ", \"files\": [";
  for (std::size_t i = 0; i < o.files.size(); ++i) out << (i ? ", " : "") << json_string(o.files[i]);
  out << "], \"max_tp\": " << o.bounds.max_tp << ", \"max_heads\": " << o.bounds.max_heads << ", \"functions\": [";
  for (std::size_t i = 0; i < r.functions.size(); ++i) {
    const auto& f = r.functions[i];
    out << (i ? ", " : "") << "{\"name\": " << json_string(f.name) << ", \"params\": [";
    for (std::size_t k = 0; k < f.params.size(); ++k) out << (k ? ", " : "") << json_string(f.params[k].name);
    for (std::size_t k = 0; k < f.coordinates.size(); ++k) {
      out << (k || !f.params.empty() ? ", " : "") << json_string(f.coordinates[k]);
    }
    out << "], \"status\": " << (f.checked ? "\"checked\"" : "\"skipped\"");
    if (!f.checked) {
      out << ", \"reason\": " << json_string(f.skip_reason) << "}";
      continue;
    }
    out << ", \"found\": " << json_string(f.found) << ", \"file\": " << json_string(f.file) << ", \"line\": " << f.line
        << ", \"where\": " << json_string(where(f)) << ", \"cases\": " << f.cases << ", \"not_run\": " << f.not_run
        << ", \"not_compared\": " << f.not_compared;
    if (f.not_compared) out << ", \"not_compared_reason\": " << json_string(f.not_compared_reason);
    // What a labelled parameter's values stand for ("model": {"0": "mamba2(24, 1, 1, 3)"}).
    std::string labels;
    for (const auto& p : f.params) {
      if (p.labels.empty()) continue;
      std::string items;
      for (std::size_t k = 0; k < p.choices.size() && k < p.labels.size(); ++k) {
        items += (items.empty() ? "" : ", ") + json_string(std::to_string(p.choices[k])) + ": " + json_string(p.labels[k]);
      }
      labels += (labels.empty() ? "" : ", ") + json_string(p.name) + ": {" + items + "}";
    }
    if (!labels.empty()) out << ", \"labels\": {" << labels << "}";
    {
      std::ostringstream seconds;
      seconds << std::fixed << std::setprecision(6) << f.seconds;
      out << ", \"seconds\": " << seconds.str();
    }
    out << ", \"deviations\": [";
    for (std::size_t k = 0; k < f.deviations.size(); ++k) {
      out << (k ? ", " : "");
      print_json_group(out, f, f.deviations[k]);
    }
    out << "]";
    if (f.by_configuration) {
      out << ", \"notes\": [";
      for (std::size_t k = 0; k < f.notes.size(); ++k) {
        out << (k ? ", " : "");
        print_json_group(out, f, f.notes[k]);
      }
      out << "], \"tallies\": {";
      for (std::size_t k = 0; k < f.tallies.size(); ++k) {
        out << (k ? ", " : "") << json_string(f.tallies[k].first) << ": " << f.tallies[k].second;
      }
      out << "}, \"judge_seconds\": " << std::fixed << std::setprecision(6) << f.judge_seconds;
    }
    if (!o.baseline_path.empty()) {
      out << ", \"in_baseline\": " << (f.in_baseline ? "true" : "false") << ", \"changes\": " << f.changes
          << ", \"smallest_changes\": [";
      for (std::size_t k = 0; k < f.shown_changes.size(); ++k) {
        const auto& c = f.shown_changes[k];
        out << (k ? ", " : "") << "{\"args\": " << json_args(f, c.args) << ", \"before\": " << json_string(shown(c.before))
            << ", \"after\": " << json_string(shown(c.after)) << ", \"expected\": " << json_string(shown(c.expected))
            << ", \"conforms\": " << (c.conforms ? "true" : "false") << "}";
      }
      out << "]";
    }
    out << "}";
  }
  out << "], \"baseline_only\": [";
  for (std::size_t i = 0; i < r.baseline_only.size(); ++i) out << (i ? ", " : "") << json_string(r.baseline_only[i]);
  out << "], \"incidents\": [";
  for (std::size_t i = 0; i < r.incidents.size(); ++i) out << (i ? ", " : "") << json_string(r.incidents[i]);
  out << "]";
  if (r.cxx_build_seconds > 0 || r.cxx_build_cached) {
    out << ", \"cxx_build\": {\"seconds\": " << std::fixed << std::setprecision(3) << r.cxx_build_seconds
        << ", \"cached\": " << (r.cxx_build_cached ? "true" : "false") << "}";
  }
  if (r.fuzz) {
    out << ", \"fuzz\": {\"seconds\": " << std::fixed << std::setprecision(3) << r.fuzz->seconds
        << ", \"runs\": " << r.fuzz->runs << ", \"first\": " << json_string(r.fuzz->first)
        << ", \"build_seconds\": " << r.fuzz->build_seconds << "}";
  }
  out << ", \"unexplained_deaths\": " << r.unexplained_deaths << ", \"cases\": " << r.cases
      << ", \"deviations\": " << r.deviation_count() << ", \"seconds\": " << std::fixed << std::setprecision(3)
      << r.seconds << ", \"cases_per_second\": " << std::setprecision(0) << (r.cases / std::max(r.seconds, 1e-9))
      << "}\n";
}

}  // namespace tpcheck::conform
