// The conformance run: one child, every bound function, every case.
#include "tpcheck/conform/run.hpp"

#include <algorithm>
#include <filesystem>
#include <future>
#include <set>

#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/record.hpp"
#include "tpcheck/conform/session.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::conform {
namespace {

constexpr std::size_t kChunk = 1 << 16;   // cases judged per round trip of session.run
constexpr std::size_t kShownChanges = 20;

// Smallest sizes first: the largest magnitude, then the sum of magnitudes, then the arguments.
bool smaller(const CaseArgs& a, const CaseArgs& b) {
  auto key = [](const CaseArgs& c) {
    BigInt largest = 0, sum = 0;
    for (const auto& v : c) {
      const BigInt m = abs(v);
      largest = std::max(largest, m);
      sum += m;
    }
    return std::make_pair(largest, sum);
  };
  const auto ka = key(a), kb = key(b);
  if (ka != kb) return ka < kb;
  return a < b;
}

std::string args_text(const CaseArgs& args) {
  std::string s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto small = narrow(args[i]);  // cpp_int's own printing is far slower
    s += (i ? "," : "") + (small ? decimal(*small) : decimal(args[i]));
  }
  return s;
}

std::string signature_of(const RunOptions& o) {
  std::string s = (o.adapter ? std::string("adapter") : "profile=" + o.profile) +
                  " max-tp=" + std::to_string(o.bounds.max_tp) + " max-heads=" + std::to_string(o.bounds.max_heads);
  for (const auto& c : o.corpus) s += " corpus=" + std::filesystem::path(c).filename().string();
  return s;
}

// Everything one function's cases go through after the child answered.
struct FunctionRun {
  FunctionReport& report;
  std::size_t op;
  RecordWriter* record;
  BaselineReader* baseline;
  std::string error;

  void take(const CaseArgs& args, const Actual& actual) {
    const std::string after = actual.rendered();
    ++report.cases;
    if (actual.status == Actual::Status::NotRun) ++report.not_run;
    if (record) record->add(args_text(args), after);
    bool count_it = true;
    std::string before;
    if (baseline && report.in_baseline) {
      std::string recorded_args;
      if (!baseline->next(recorded_args, before, error)) {
        if (error.empty()) error = "--baseline has fewer cases of " + report.binding.name + " than this run";
      } else if (recorded_args != args_text(args)) {
        error = "--baseline lists case (" + recorded_args + ") of " + report.binding.name + " where this run has (" +
                args_text(args) + "): record it again with the same options";
      }
      count_it = error.empty() && before != after;
    }
    if (!count_it) return;
    const Judgement j = judge(report.binding, op, args, actual);
    if (baseline && report.in_baseline) {
      ++report.changes;
      report.shown_changes.push_back({args, before, after, j.expected});
      std::sort(report.shown_changes.begin(), report.shown_changes.end(),
                [](const Change& a, const Change& b) { return smaller(a.args, b.args); });
      if (report.shown_changes.size() > kShownChanges) report.shown_changes.pop_back();
    }
    if (!j.kind) return;
    auto group = std::find_if(report.deviations.begin(), report.deviations.end(),
                              [&](const DeviationGroup& g) { return g.kind == *j.kind; });
    if (group == report.deviations.end()) {
      DeviationGroup fresh;
      fresh.kind = *j.kind;
      fresh.smallest = {args, j.expected, after, j.note};
      report.deviations.push_back(std::move(fresh));
      std::sort(report.deviations.begin(), report.deviations.end(),
                [](const DeviationGroup& a, const DeviationGroup& b) { return a.kind < b.kind; });
      group = std::find_if(report.deviations.begin(), report.deviations.end(),
                           [&](const DeviationGroup& g) { return g.kind == *j.kind; });
    } else if (smaller(args, group->smallest.args)) {
      group->smallest = {args, j.expected, after, j.note};
    }
    ++group->count;
    if (*j.kind == Kind::WrongValue) ++(j.too_many ? group->too_many : group->too_few);
  }
};

}  // namespace

std::uint64_t RunReport::deviation_count() const {
  std::uint64_t n = 0;
  for (const auto& f : functions) {
    for (const auto& g : f.deviations) n += g.count;
  }
  return n;
}

std::optional<RunReport> run_conformance(const RunOptions& o, std::string& error) {
  const auto started = std::chrono::steady_clock::now();
  RunReport report;
  report.options = o;
  std::vector<Binding> bindings;
  if (o.adapter) {
    bindings = adapter_bindings();
  } else if (auto p = profile_bindings(o.profile)) {
    bindings = *p;
  } else {
    error = "unknown profile '" + o.profile + "'";
    return std::nullopt;
  }
  for (const auto& name : o.only) {
    if (std::none_of(bindings.begin(), bindings.end(), [&](const Binding& b) { return b.name == name; })) {
      error = "--function " + name + " is not a function of " + (o.adapter ? "an adapter" : "profile " + o.profile);
      return std::nullopt;
    }
  }
  if (!o.only.empty()) {
    std::erase_if(bindings, [&](const Binding& b) { return std::find(o.only.begin(), o.only.end(), b.name) == o.only.end(); });
  }
  std::vector<ModelCall> regression;
  if (!load_regression_calls(o.corpus, regression, error)) return std::nullopt;

  ChildCommand command;
  command.python = o.python;
  command.mode = o.adapter ? "--adapter" : "--source";
  command.files = o.files;
  for (const auto& b : bindings) command.names.push_back(b.name);
  command.call_timeout = o.timeout;
  command.load_timeout = std::max(o.timeout, std::chrono::milliseconds(30000));
  auto session = Session::open(command, error);
  if (!session) return std::nullopt;

  bool any_bound = false;
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const auto& where = session->bound()[i];
    if (!where && std::find(o.only.begin(), o.only.end(), bindings[i].name) != o.only.end()) {
      error = bindings[i].name + " is not defined at top level in any given file";
      return std::nullopt;
    }
    any_bound = any_bound || where.has_value();
  }
  if (!any_bound) {
    error = "none of the functions of " + (o.adapter ? std::string("the model") : "profile " + o.profile) +
            " is defined at top level in the given files";
    return std::nullopt;
  }

  std::optional<RecordWriter> record;
  if (!o.record_path.empty()) {
    record.emplace();
    if (!record->open(o.record_path, signature_of(o), error)) return std::nullopt;
  }
  std::optional<BaselineReader> baseline;
  if (!o.baseline_path.empty()) {
    baseline.emplace();
    if (!baseline->open(o.baseline_path, signature_of(o), error)) return std::nullopt;
  }

  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = bindings[i];
    report.functions.emplace_back();
    FunctionReport& fr = report.functions.back();
    fr.binding = b;
    fr.where = session->bound()[i];
    if (!fr.where) continue;
    if (record) record->begin_function(b.name);
    if (baseline) {
      fr.in_baseline = baseline->has_function(b.name);
      if (fr.in_baseline) baseline->begin_function(b.name);
    }
    FunctionRun run{fr, *operation_index(b.model_op), record ? &*record : nullptr, baseline ? &*baseline : nullptr, {}};
    // A pipeline of two: while the child answers one chunk, a thread judges
    // (and records) the previous one.
    std::vector<CaseArgs> chunk;
    std::future<void> judging;
    auto flush = [&] {
      std::vector<std::vector<std::string>> texts;
      texts.reserve(chunk.size());
      for (const auto& c : chunk) {
        std::vector<std::string> t;
        for (std::size_t k = 0; k < c.size(); ++k) t.push_back(argument_text(b.params[k], c[k]));
        texts.push_back(std::move(t));
      }
      std::vector<Actual> actuals = session->run(i, texts);
      if (judging.valid()) judging.get();
      judging = std::async(std::launch::async, [&run, cases = std::move(chunk), actuals = std::move(actuals)] {
        for (std::size_t k = 0; k < cases.size() && run.error.empty(); ++k) run.take(cases[k], actuals[k]);
      });
      chunk.clear();
    };
    for_each_grid_case(b.params, o.bounds, [&](const CaseArgs& c) {
      chunk.push_back(c);
      if (chunk.size() == kChunk) flush();
    });
    std::set<CaseArgs> seen;
    for (const auto& call : regression) {
      auto c = b.case_from_model_call(call.op, call.args);
      if (c && !in_small_grid(b.params, o.bounds, *c) && seen.insert(*c).second) chunk.push_back(*c);
    }
    flush();
    judging.get();
    if (baseline && fr.in_baseline && run.error.empty()) {
      std::string extra_args, extra_outcome;
      if (baseline->next(extra_args, extra_outcome, run.error)) {
        run.error = "--baseline has more cases of " + b.name + " than this run: record it again with the same options";
      }
    }
    if (!run.error.empty()) {
      error = run.error;
      return std::nullopt;
    }
    report.cases += fr.cases;
  }
  if (baseline) {
    for (const auto& section : baseline->sections()) {
      const auto& name = section.first;  // a plain reference: clang < 16 cannot capture bindings
      const bool found = std::any_of(report.functions.begin(), report.functions.end(),
                                     [&](const FunctionReport& f) { return f.binding.name == name && f.where; });
      if (!found) report.baseline_only.push_back(name);
    }
  }
  report.incidents = session->incidents();
  if (record && !record->commit(error)) return std::nullopt;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace tpcheck::conform
