// The conformance run: one child, every bound function, every case. The
// child's outcomes are judged on a second thread while it runs.
#include "tpcheck/conform/run.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "cxx_build.hpp"
#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/protocol.hpp"
#include "tpcheck/conform/record.hpp"
#include "tpcheck/conform/regression.hpp"
#include "tpcheck/conform/session.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::conform {
namespace {

constexpr std::size_t kShownChanges = 20;

std::string args_text(const CaseArgs& args) {
  std::string s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto small = narrow(args[i]);  // cpp_int's own printing is far slower
    if (i) s += ',';
    s += small ? decimal(*small) : decimal(args[i]);
  }
  return s;
}

std::string signature_of(const RunOptions& o) {
  std::string s = (o.adapter ? std::string("adapter") : "profile=" + o.profile) +
                  " max-tp=" + std::to_string(o.bounds.max_tp) + " max-heads=" + std::to_string(o.bounds.max_heads);
  if (o.hybrid) s += " hybrid";
  for (const StateFamily f : o.families) s += " family=" + std::string(state_family_name(f));
  if (o.bounds.max_tp_given) s += " max-tp-given";
  for (const auto& c : o.corpus) s += " corpus=" + std::filesystem::path(c).filename().string();
  return s;
}

// The order of a finding's place among others of its kind: by configuration
// (SPEC §14B.5: the smallest P + D, then the parameters and coordinates in
// order, "-" first), or sizes first.
bool smaller_finding(const Binding& b, const CaseArgs& a, const std::vector<std::optional<BigInt>>& at_a,
                     const CaseArgs& c, const std::vector<std::optional<BigInt>>& at_c) {
  if (!b.configuration_order) {
    if (a != c) return smaller_case(a, c);
    return at_a < at_c;
  }
  auto key = [&](const CaseArgs& args, const std::vector<std::optional<BigInt>>& at) {
    std::vector<BigInt> k;
    BigInt sizes = 0;
    for (std::size_t i = 0; i < b.params.size() && i < args.size(); ++i) {
      if (b.params[i].name == "P" || b.params[i].name == "D") sizes += args[i];
    }
    k.push_back(sizes);
    k.insert(k.end(), args.begin(), args.end());
    for (const auto& v : at) k.push_back(v ? *v : BigInt(-1));
    return k;
  };
  return key(a, at_a) < key(c, at_c);
}

// Everything one function's cases go through after the child answered.
struct FunctionRun {
  const Binding& binding;
  FunctionReport& report;
  std::size_t op;
  RecordWriter* record;
  BaselineReader* baseline;
  const std::vector<KindInfo>& kinds;
  std::vector<GridCase>* cases;  // --mutants: every case with the code's outcome
  std::string error;
  // Why cases were not compared, each with its count, in the order first
  // met; "" stands for the binding's usual reason.
  std::vector<std::pair<std::string, std::uint64_t>> not_compared_reasons;

  void not_compared(const std::string& reason) {
    ++report.not_compared;
    auto it = std::find_if(not_compared_reasons.begin(), not_compared_reasons.end(),
                           [&](const auto& r) { return r.first == reason; });
    if (it == not_compared_reasons.end()) {
      not_compared_reasons.emplace_back(reason, 1);
    } else {
      ++it->second;
    }
  }

  // The report's reason: the one reason, or each with its count.
  std::string not_compared_text() const {
    std::string out;
    for (const auto& [reason, n] : not_compared_reasons) {
      const std::string why = reason.empty() ? not_compared_reason(binding) : reason;
      if (not_compared_reasons.size() == 1) return why;
      out += (out.empty() ? "" : "; ") + std::to_string(n) + " " + why;
    }
    return out;
  }

  // A configuration's findings, grouped by kind: a note or a deviation per
  // the profile's table (or the binding, when all its findings are notes).
  void take_findings(const CaseArgs& args, const Judgement& j) {
    for (const auto& tally : j.tallies) {  // not a structured binding: clang < 16 cannot capture one
      auto it = std::find_if(report.tallies.begin(), report.tallies.end(),
                             [&](const auto& t) { return t.first == tally.first; });
      if (it == report.tallies.end()) {
        report.tallies.push_back(tally);
      } else {
        it->second += tally.second;
      }
    }
    std::vector<std::string> labels;
    for (const auto& f : j.findings) {
      if (std::find(labels.begin(), labels.end(), f.kind) == labels.end()) labels.push_back(f.kind);
    }
    for (const auto& label : labels) {
      const KindInfo* info = find_kind(kinds, label);
      auto& groups = binding.informational || (info && !info->failure) ? report.notes : report.deviations;
      auto group = std::find_if(groups.begin(), groups.end(), [&](const DeviationGroup& g) { return g.label == label; });
      const Finding* least = nullptr;
      std::uint64_t pairs = 0;
      for (const auto& f : j.findings) {
        if (f.kind != label) continue;
        ++pairs;
        if (least == nullptr || smaller_finding(binding, args, f.at, args, least->at)) least = &f;
      }
      if (group == groups.end()) {
        DeviationGroup fresh;
        fresh.kind = Kind::WrongValue;
        fresh.label = label;
        fresh.order = info ? static_cast<std::size_t>(info - kinds.data()) : kinds.size();
        fresh.meaning = info ? info->meaning : "";
        fresh.smallest = {args, least->at, least->expected, least->actual, ""};
        groups.push_back(std::move(fresh));
        std::sort(groups.begin(), groups.end(), [](const DeviationGroup& a, const DeviationGroup& b) {
          return a.order != b.order ? a.order < b.order : a.label < b.label;
        });
        group = std::find_if(groups.begin(), groups.end(), [&](const DeviationGroup& g) { return g.label == label; });
      } else if (smaller_finding(binding, args, least->at, group->smallest.args, group->smallest.at)) {
        group->smallest = {args, least->at, least->expected, least->actual, ""};
      }
      ++group->count;
      group->pairs += pairs;
    }
  }

  void take(const CaseArgs& args, const KnownOutcome& outcome) {
    const Actual& actual = outcome.actual;
    ++report.cases;
    if (actual.status == Actual::Status::NotRun) ++report.not_run;
    if (record) record->add(args_text(args), outcome.shown());
    bool count_it = true;
    std::string before;
    if (baseline && report.in_baseline) {
      std::string recorded_args;
      if (!baseline->next(recorded_args, before, error)) {
        if (error.empty()) error = "--baseline has fewer cases of " + report.name + " than this run";
      } else if (recorded_args != args_text(args)) {
        error = "--baseline lists case (" + recorded_args + ") of " + report.name + " where this run has (" +
                args_text(args) + "): record it again with the same options";
      }
      count_it = error.empty() && before != outcome.shown();
    }
    if (!count_it) return;
    const bool findings = binding.relation->findings;
    const auto judging = std::chrono::steady_clock::now();
    const Judgement j = judge(binding, op, args, actual);
    if (findings) report.judge_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - judging).count();
    if (j.not_compared) not_compared(j.not_compared_reason);
    const bool conforms = !is_deviation(binding, j, kinds);
    if (cases) cases->push_back({args, actual, !conforms, {}, {}});
    if (baseline && report.in_baseline) {
      ++report.changes;
      report.shown_changes.push_back({args, before, outcome.shown(), j.expected, conforms});
      std::sort(report.shown_changes.begin(), report.shown_changes.end(),
                [](const Change& a, const Change& b) { return smaller_case(a.args, b.args); });
      if (report.shown_changes.size() > kShownChanges) report.shown_changes.pop_back();
    }
    if (findings) {
      take_findings(args, j);
      return;
    }
    if (!j.kind) return;
    auto group = std::find_if(report.deviations.begin(), report.deviations.end(),
                              [&](const DeviationGroup& g) { return g.kind == *j.kind; });
    if (group == report.deviations.end()) {
      DeviationGroup fresh;
      fresh.kind = *j.kind;
      fresh.smallest = {args, {}, j.expected, outcome.shown(), j.note};
      fresh.effect = j.effect;
      report.deviations.push_back(std::move(fresh));
      std::sort(report.deviations.begin(), report.deviations.end(),
                [](const DeviationGroup& a, const DeviationGroup& b) { return a.kind < b.kind; });
      group = std::find_if(report.deviations.begin(), report.deviations.end(),
                           [&](const DeviationGroup& g) { return g.kind == *j.kind; });
    } else if (smaller_case(args, group->smallest.args)) {
      group->smallest = {args, {}, j.expected, outcome.shown(), j.note};
      group->effect = j.effect;
    }
    ++group->count;
    if (*j.kind == Kind::WrongValue && counts_completions(binding)) ++(j.too_many ? group->too_many : group->too_few);
  }
};

// Batches from the session thread to the judge thread.
class BatchQueue {
 public:
  void push(OutcomeBatch&& batch) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batches_.push_back(std::move(batch));
    }
    ready_.notify_one();
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
  }
  std::optional<OutcomeBatch> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !batches_.empty(); });
    if (batches_.empty()) return std::nullopt;
    OutcomeBatch b = std::move(batches_.front());
    batches_.pop_front();
    return b;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<OutcomeBatch> batches_;
  bool closed_ = false;
};

std::string meaning_of(const Binding& b, const DeviationGroup& g) {
  if (g.kind == Kind::WrongValue && counts_completions(b) && g.too_many && g.too_few) {
    return std::to_string(g.too_many) + " cases: " + deployment_meaning(b, g.kind, Effect::Stranded, true) + "; " +
           std::to_string(g.too_few) + " cases: " + deployment_meaning(b, g.kind, Effect::EarlyFree, false);
  }
  return deployment_meaning(b, g.kind, g.effect, g.too_many > 0);
}

// The regression calls that speak about a binding, as its cases.
std::vector<CaseArgs> extra_cases(const Binding& b, const std::vector<ModelCall>& regression) {
  std::vector<CaseArgs> out;
  for (const auto& call : regression) {
    if (auto c = b.case_from_model_call(call.op, call.args)) out.push_back(std::move(*c));
  }
  return out;
}

// A child and the bindings it runs.
struct ChildRun {
  std::vector<Binding> bindings;
  std::optional<Session> session;
  KnownOutcomes known;  // the session's outcomes by id; grows without moving what it holds
};

// Calls one bound function on its whole grid, judging on a second thread.
// `known`: the session's outcomes by id (an id defined for one function may
// answer another's cases).
std::string check_function(Session& session, std::size_t index, const Binding& b, const Grid& grid,
                           KnownOutcomes& known, FunctionReport& fr, RecordWriter* record,
                           BaselineReader* baseline, const std::vector<KindInfo>& kinds,
                           std::vector<GridCase>* cases) {
  FunctionRun run{b, fr, operation_index(b.model_op).value_or(0), record, baseline, kinds, cases, {}, {}};
  BatchQueue queue;
  std::thread judging([&] {
    GridCursor cursor(grid);
    while (auto batch = queue.pop()) {
      learn(known, *batch);
      std::size_t next_inline = 0;
      KnownOutcome raised;
      for (const std::uint32_t id : batch->ids) {
        const CaseArgs* c = cursor.next();
        if (c == nullptr || !run.error.empty()) continue;
        if (id != kInlineOutcome) {
          run.take(*c, known[id]);
          continue;
        }
        raised.actual = std::move(batch->inline_outcomes[next_inline++]);
        raised.rendering.reset();
        run.take(*c, raised);
      }
    }
  });
  session.run(index, grid_json(grid), case_count(grid), [&](OutcomeBatch&& batch) { queue.push(std::move(batch)); });
  queue.close();
  judging.join();
  if (baseline && fr.in_baseline && run.error.empty()) {
    std::string extra_args, extra_outcome;
    if (baseline->next(extra_args, extra_outcome, run.error)) {
      run.error = "--baseline has more cases of " + b.name + " than this run: record it again with the same options";
    }
  }
  for (auto& g : fr.deviations) {
    if (g.label.empty()) g.meaning = meaning_of(b, g);
  }
  if (fr.not_compared) fr.not_compared_reason = run.not_compared_text();
  return run.error;
}

// --mutants, --write-tests: the function's test cases chosen by mutation
// (selection.hpp), and with --write-tests its section of a test file. An
// error only when the child cannot answer at all.
std::string choose_cases(Session& session, std::size_t index, const Binding& b, const Grid& grid,
                         std::vector<GridCase>& cases, KnownOutcomes& known, FunctionReport& fr, bool write,
                         const std::vector<KindInfo>& kinds, RunReport& report) {
  if (b.relation->test_items == nullptr) {
    fr.not_written = b.relation->not_written ? b.relation->not_written
                                             : "its relation has no form for written tests yet";
    return "";
  }
  const std::size_t op = operation_index(b.model_op).value_or(0);
  for (auto& c : cases) {
    c.items = b.relation->test_items(b, op, c.args, &c.code);
    if (!c.items.empty()) c.outcome_class = outcome_class(b, c.args, c.items.front().expected);
  }
  // Kept whatever the mutants do: the profile's probes (wide values no mutant
  // operator stands for), and each deviation's smallest case.
  std::vector<std::size_t> always;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].items.empty() && std::find(b.probes.begin(), b.probes.end(), cases[i].args) != b.probes.end()) {
      always.push_back(i);
    }
  }
  for (const auto* groups : {&fr.deviations, &fr.notes}) {
    if (groups == &fr.notes && !b.informational) continue;  // notes are not deviations
    for (const auto& g : *groups) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].args == g.smallest.args && !cases[i].items.empty()) {
          always.push_back(i);
          break;
        }
      }
    }
  }
  std::string error;
  Selection sel = select_cases(session, index, b, grid, cases, always, known, kinds, error);
  if (!error.empty()) return b.name + ": " + error;
  if (sel.killed_by_kept != sel.killed_by_grid) {
    return b.name + ": the kept cases kill " + std::to_string(sel.killed_by_kept) + " mutants where the grid kills " +
           std::to_string(sel.killed_by_grid) + " (a defect of tpcheck)";
  }
  if (write) {
    const auto description = session.ask("describe", index, error);
    std::string problem;
    std::optional<TestSection> section;
    if (description) {
      section = make_section(b, sel, cases, cases.size(), fr.found, *description, kinds, problem);
    } else {
      problem = "not written: the child cannot say how to call it: " + error;
    }
    if (section) {
      report.sections.push_back(std::move(*section));
    } else {
      fr.not_written = problem;
    }
  }
  fr.selection = std::move(sel);
  return "";
}

}  // namespace

std::uint64_t FunctionReport::deviation_count() const {
  std::uint64_t n = 0;
  for (const auto& g : deviations) n += g.count;
  return n;
}

std::uint64_t RunReport::deviation_count() const {
  std::uint64_t n = 0;
  for (const auto& f : functions) n += f.deviation_count();
  return n;
}

std::string call_text(const FunctionReport& f, const CaseArgs& args, const std::vector<std::optional<BigInt>>& at) {
  // A row the profile checks apart ("name (as run)") keeps its qualifier after the arguments.
  const auto row = f.name.find(" (");
  std::string s = f.name.substr(0, row) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) {
    s += i ? ", " : "";
    if (f.named_args) s += f.params[i].name + "=";
    s += f.params[i].kind == ParamKind::Flag ? (args[i] != 0 ? "True" : "False") : f.params[i].shown(args[i]);
  }
  for (std::size_t i = 0; i < at.size() && i < f.coordinates.size(); ++i) {
    s += ", " + f.coordinates[i] + "=" + (at[i] ? decimal(*at[i]) : std::string("-"));
  }
  return s + ")" + (row == std::string::npos ? "" : f.name.substr(row));
}

std::optional<RunReport> run_conformance(const RunOptions& o, std::string& error) {
  const auto started = std::chrono::steady_clock::now();
  RunReport report;
  report.options = o;
  std::vector<Binding> bindings;
  const Profile* profile = o.adapter ? nullptr : find_profile(o.profile);
  if (o.adapter) {
    bindings = adapter_bindings();
  } else if (profile) {
    bindings = profile->bindings({o.hybrid, o.families});
    if (!o.families.empty() && std::none_of(bindings.begin(), bindings.end(), [](const Binding& b) { return b.state; })) {
      error = "--family is an option of " + profiles_taking_family();
      return std::nullopt;
    }
  } else {
    std::string known;
    for (const auto& name : profile_names()) known += (known.empty() ? "" : ", ") + name;
    error = "unknown profile '" + o.profile + "' (known: " + known + ")";
    return std::nullopt;
  }
  for (const auto& name : o.only) {
    if (std::none_of(bindings.begin(), bindings.end(), [&](const Binding& b) { return b.name == name; })) {
      error = "--function " + name + " is not a function of " + (o.adapter ? "an adapter" : "profile " + o.profile);
      return std::nullopt;
    }
  }
  // The C++ child is built with every function of the profile: the relations
  // of one (which ranks send) read what the others do (which ranks receive).
  std::vector<Binding> cxx_profile;
  for (const auto& b : bindings) {
    if (b.child == ChildKind::Cxx) cxx_profile.push_back(b);
  }
  if (!o.only.empty()) {
    std::erase_if(bindings, [&](const Binding& b) { return std::find(o.only.begin(), o.only.end(), b.name) == o.only.end(); });
  }
  std::vector<ModelCall> regression;
  if (!load_regression_calls(o.corpus, regression, error)) return std::nullopt;

  // Each binding runs in the child of its kind, which reads the files of its
  // language: C++ source goes to the C++ child (built here for the functions
  // under test), the rest to the Python child.
  std::vector<std::string> python_files, cxx_files;
  for (const auto& f : o.files) (is_cxx_source(f) && !o.adapter ? cxx_files : python_files).push_back(f);
  ChildCommand command;
  command.python = o.python;
  command.mode = o.adapter ? "adapter" : "source";
  command.files = o.files;
  command.bindings = bindings;
  command.call_timeout = o.timeout;
  command.load_timeout = std::max(o.timeout, std::chrono::milliseconds(30000));
  command.memory_bytes = (o.memory_mib ? o.memory_mib : o.adapter ? kAdapterMemoryMib : kProfileMemoryMib) << 20;
  std::array<ChildRun, 2> children;
  std::vector<std::pair<ChildRun*, std::size_t>> run_of;  // per binding: its child and its index there
  for (const Binding& b : bindings) {
    ChildRun& c = children[b.child == ChildKind::Cxx ? 1 : 0];
    run_of.emplace_back(&c, c.bindings.size());
    c.bindings.push_back(b);
  }
  if (children[0].bindings.empty() && !python_files.empty()) {
    error = python_files.front() + " is not C++ source: profile " + o.profile + " checks C++ files";
    return std::nullopt;
  }
  if (!children[0].bindings.empty()) {
    if (!cxx_files.empty() && children[1].bindings.empty()) {
      error = cxx_files.front() + " is C++ source: profile " + o.profile + " checks Python files";
      return std::nullopt;
    }
    ChildCommand python = command;
    python.files = python_files;
    python.bindings = children[0].bindings;
    if (!python_files.empty() || o.adapter) {
      children[0].session = Session::open(python, error);
      if (!children[0].session) return std::nullopt;
    }
  }
  if (!children[1].bindings.empty()) {
    if (cxx_files.empty()) {
      if (children[0].bindings.empty()) {
        error = "profile " + o.profile + " checks C++ functions: give their C++ files (.cpp, .cu)";
        return std::nullopt;
      }
    } else {
      if (profile == nullptr || profile->cxx == nullptr) {
        error = "profile " + o.profile + " has C++ functions but no C++ child to build";
        return std::nullopt;
      }
      const auto built = build_cxx(*profile->cxx, CxxTarget::Child, cxx_files, cxx_profile, error);
      if (!built) return std::nullopt;
      report.cxx_build_seconds = built->seconds;
      report.cxx_build_cached = built->cached;
      ChildCommand cxx = command;
      cxx.executable = built->executable;
      cxx.files = cxx_files;
      cxx.bindings = children[1].bindings;
      children[1].session = Session::open(cxx, error);
      if (!children[1].session) return std::nullopt;
    }
  }
  // A child without its files binds nothing.
  auto bound_of = [&](std::size_t i) {
    const auto& [child, local] = run_of[i];
    if (child->session) return child->session->bound()[local];
    BindResult none;
    none.skip_reason = child == &children[1] ? "no C++ file given" : "no Python file given";
    return none;
  };

  std::array<bool, 2> bound_in = {false, false};  // per child: some binding bound
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const auto r = bound_of(i);
    if (!r.bound && std::find(o.only.begin(), o.only.end(), bindings[i].name) != o.only.end()) {
      error = bindings[i].name + " cannot be checked: " + r.skip_reason;
      return std::nullopt;
    }
    bound_in[run_of[i].first == &children[1] ? 1 : 0] |= r.bound;
  }
  // Files of a language none of whose functions bind are refused, as a run
  // where nothing binds is: the reason shown is a definition found but
  // unusable, which says more than one not found.
  for (std::size_t k = 0; k < children.size(); ++k) {
    const bool nothing = !bound_in[0] && !bound_in[1];
    if (bound_in[k] || !children[k].session || (!nothing && children[1 - k].bindings.empty())) continue;
    std::optional<std::size_t> shown;
    for (std::size_t i = 0; i < bindings.size(); ++i) {
      if (!nothing && run_of[i].first != &children[k]) continue;
      const std::string why = bound_of(i).skip_reason;
      if (!shown) shown = i;
      if (why.rfind("not defined at top level", 0) != 0 && why.rfind("no class ", 0) != 0) {
        shown = i;
        break;
      }
    }
    const std::string what = nothing ? "functions" : k == 1 ? "C++ functions" : "Python functions";
    error = "none of the " + what + " of " + (o.adapter ? std::string("the model") : "profile " + o.profile) +
            " can be checked in the given " + (nothing ? "" : k == 1 ? "C++ " : "Python ") + "files (" +
            bindings[*shown].name + ": " + bound_of(*shown).skip_reason + ")";
    return std::nullopt;
  }

  std::optional<RecordWriter> record;
  if (!o.record_path.empty()) {
    record.emplace();
    std::string bindings_json = load_request(command.mode, command.files, bindings);
    bindings_json.pop_back();  // its newline
    if (!record->open(o.record_path, signature_of(o), bindings_json, error)) return std::nullopt;
  }
  std::optional<BaselineReader> baseline;
  if (!o.baseline_path.empty()) {
    baseline.emplace();
    if (!baseline->open(o.baseline_path, signature_of(o), error)) return std::nullopt;
  }

  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const Binding& b = bindings[i];
    const BindResult bound = bound_of(i);
    FunctionReport& fr = report.functions.emplace_back();
    fr.name = b.name;
    fr.params = b.params;
    fr.named_args = b.named_args;
    fr.coordinates = b.coordinates;
    fr.by_configuration = b.relation->findings;
    fr.state = b.state;
    fr.checked = bound.bound;
    fr.skip_reason = bound.skip_reason;
    fr.found = bound.qualified_name;
    fr.file = bound.file;
    fr.line = bound.line;
    if (!fr.checked) continue;
    if (record) record->begin_function(b.name);
    if (baseline) {
      fr.in_baseline = baseline->has_function(b.name);
      if (fr.in_baseline) baseline->begin_function(b.name);
    }
    Grid grid;
    if (b.cases) {
      grid.arity = b.params.size();
      grid.blocks.push_back({{}, false, true, b.cases(o.bounds)});
    } else {
      grid = make_grid(b.params, b.style, o.bounds, extra_cases(b, regression), b.probes);
    }
    if (b.child == ChildKind::Cxx) grid = explicit_grid(grid);  // the C++ child reads cases, not grids
    const bool choose = o.mutants && b.child == ChildKind::Python;
    const std::vector<KindInfo>& kinds = b.kinds ? b.kinds() : profile_kinds(o.profile);
    std::vector<GridCase> cases;
    const auto function_started = std::chrono::steady_clock::now();
    error = check_function(*run_of[i].first->session, run_of[i].second, b, grid, run_of[i].first->known, fr,
                           record ? &*record : nullptr, baseline ? &*baseline : nullptr, kinds,
                           choose ? &cases : nullptr);
    if (!error.empty()) return std::nullopt;
    fr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - function_started).count();
    if (choose) {
      error = choose_cases(*run_of[i].first->session, run_of[i].second, b, grid, cases, run_of[i].first->known, fr,
                           !o.write_tests.empty(), kinds, report);
      if (!error.empty()) return std::nullopt;
    } else if (o.mutants) {
      fr.not_written = b.relation->not_written ? b.relation->not_written : "a C++ function";
    }
    report.cases += fr.cases;
  }
  if (baseline) {
    for (const auto& section : baseline->sections()) {
      const auto& name = section.first;  // a plain reference: clang < 16 cannot capture bindings
      const bool found = std::any_of(report.functions.begin(), report.functions.end(),
                                     [&](const FunctionReport& f) { return f.name == name && f.checked; });
      if (!found) report.baseline_only.push_back(name);
    }
  }
  for (const auto& c : children) {
    if (!c.session) continue;
    report.incidents.insert(report.incidents.end(), c.session->incidents().begin(), c.session->incidents().end());
    report.unexplained_deaths += c.session->unexplained_deaths();
  }
  if (record && !record->commit(error)) return std::nullopt;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace tpcheck::conform
