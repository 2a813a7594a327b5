#include "tpcheck/conform/selection.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "tpcheck/conform/judge.hpp"
#include "tpcheck/conform/protocol.hpp"
#include "tpcheck/operations.hpp"

namespace tpcheck::conform {
namespace {

// A mutant's run is stopped once it has its kills and has run this long.
constexpr std::chrono::milliseconds kStopAfter{1000};

bool same_outcome(const Actual& a, const Actual& b) {
  return a.status == b.status && a.exception_class == b.exception_class && a.text == b.text;
}

std::optional<std::size_t> param_index(const Binding& b, const std::string& name) {
  for (std::size_t i = 0; i < b.params.size(); ++i) {
    if (b.params[i].name == name) return i;
  }
  return std::nullopt;
}

// The message with its numbers as N: one class for every instance of an error.
std::string message_template(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const bool digit = message[i] >= '0' && message[i] <= '9';
    const bool sign = message[i] == '-' && i + 1 < message.size() && message[i + 1] >= '0' && message[i + 1] <= '9' &&
                      (i == 0 || message[i - 1] == ' ' || message[i - 1] == '[' || message[i - 1] == '(');
    if (!digit && !sign) {
      out += message[i];
      continue;
    }
    out += 'N';
    while (i + 1 < message.size() && message[i + 1] >= '0' && message[i + 1] <= '9') ++i;
  }
  return out;
}

std::string args_shown(const CaseArgs& args) {
  std::string s;
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + decimal(args[i]);
  return s;
}

}  // namespace

bool is_deviation(const Binding& b, const Judgement& j, const std::vector<KindInfo>& kinds) {
  if (!b.relation->findings) return j.kind.has_value();
  if (b.informational) return false;
  return std::any_of(j.findings.begin(), j.findings.end(), [&](const Finding& f) {
    const KindInfo* info = find_kind(kinds, f.kind);
    return !info || info->failure;
  });
}

std::string outcome_class(const Binding& b, const CaseArgs& args, const Expected& first) {
  if (first.form == Expected::Form::Raises) return first.exception_class + ": " + message_template(first.message);
  if (first.form == Expected::Form::Refused) return "refused";
  std::string out;
  auto sizes = [&](const char* l, const char* r) {
    const auto a = param_index(b, l), c = param_index(b, r);
    if (!a || !c) return false;
    const BigInt& x = args[*a];
    const BigInt& y = args[*c];
    out = std::string(l) + (x < y ? " < " : x == y ? " = " : " > ") + r;
    return true;
  };
  if (!sizes("P", "D")) sizes("L", "R");
  const auto heads = param_index(b, "H");
  const auto mla = param_index(b, "MLA");
  if (mla && args[*mla] != 0) {
    out += out.empty() ? "MLA" : ", MLA";
  } else if (heads) {
    bool replicated = false;
    for (const char* side : {"P", "D", "L", "R"}) {
      const auto t = param_index(b, side);
      replicated = replicated || (t && args[*heads] < args[*t]);
    }
    out += std::string(out.empty() ? "" : ", ") + (replicated ? "heads replicated" : "heads split");
  }
  return out.empty() ? "value" : out;
}

Selection select_cases(Session& session, std::size_t index, const Binding& binding, const Grid& grid,
                       const std::vector<GridCase>& cases, const std::vector<std::size_t>& always,
                       KnownOutcomes& known, const std::vector<KindInfo>& kinds, std::string& error) {
  const auto started = std::chrono::steady_clock::now();
  const std::size_t incidents_before = session.incidents().size();
  const std::uint64_t deaths_before = session.unexplained_deaths();
  Selection sel;
  const auto listed = session.ask("mutants", index, error);
  if (!listed) return sel;
  std::vector<std::string> mutants;
  for (std::size_t at = 0; at < listed->size();) {
    const auto end = std::min(listed->find('\n', at), listed->size());
    mutants.push_back(unescape(std::string_view(*listed).substr(at, end - at)).value_or(listed->substr(at, end - at)));
    at = end + 1;
  }
  sel.mutants = mutants.size();
  if (binding.informational) {
    // Its findings are notes: no mutant can deviate, so none is run.
    mutants.clear();
  } else if (mutants.empty()) {
    sel.notes.push_back(binding.name +
                        ": nothing to mutate (no arithmetic, comparison, integer constant, min or max, or call of two "
                        "arguments in it or the helpers it calls): its cases are one per outcome class");
  }
  const std::size_t op = operation_index(binding.model_op).value_or(0);
  const std::string grid_text = grid_json(grid);
  std::vector<std::vector<std::uint32_t>> kills(mutants.size());  // none for a binding reported apart
  for (std::size_t m = 0; m < mutants.size(); ++m) {
    std::size_t next = 0;
    const auto run_started = std::chrono::steady_clock::now();
    bool hung = false, ate_memory = false;
    std::string hung_at, ate_at;
    auto& killed = kills[m];
    session.run(
        index, grid_text, cases.size(),
        [&](OutcomeBatch&& batch) {
          learn(known, batch);
          std::size_t next_inline = 0;
          for (const std::uint32_t id : batch.ids) {
            const std::size_t i = next++;
            if (i >= cases.size()) continue;
            const Actual& actual = id == kInlineOutcome ? batch.inline_outcomes[next_inline++] : known[id].actual;
            if (killed.size() >= kKillsKept) continue;
            if (actual.status == Actual::Status::TimedOut && !hung) hung = true, hung_at = args_shown(cases[i].args);
            const bool memory = actual.status == Actual::Status::Crashed ||
                                (actual.status == Actual::Status::Raised && actual.exception_class == "MemoryError");
            if (memory && !ate_memory) ate_memory = true, ate_at = args_shown(cases[i].args);
            const bool kill = same_outcome(actual, cases[i].code)
                                  ? cases[i].deviates
                                  : is_deviation(binding, judge(binding, op, cases[i].args, actual), kinds);
            if (kill) killed.push_back(static_cast<std::uint32_t>(i));
          }
        },
        static_cast<std::int64_t>(m), [&] {
          // Stopping restarts the child: worth it only where the rest of the grid takes longer. The
          // kills are the first kKillsKept either way.
          return killed.size() >= kKillsKept && std::chrono::steady_clock::now() - run_started > kStopAfter;
        });
    if (hung) {
      sel.notes.push_back(binding.name + ": mutant " + mutants[m] + " hung on (" + hung_at +
                          "): a timeout, which the model's outcome is not, so the case kills it");
    }
    if (ate_memory) {
      sel.notes.push_back(binding.name + ": mutant " + mutants[m] + " ran out of memory or killed its process on (" +
                          ate_at + "): an outcome the model never has, so the case kills it");
    }
  }
  session.forget_incidents(incidents_before, deaths_before);  // the mutants' own: their notes say them
  // Greedy set cover: the case that kills the most mutants not yet killed, the smallest first on ties.
  std::vector<char> covered(mutants.size(), 0);
  std::map<std::uint32_t, std::vector<std::size_t>> by_case;
  for (std::size_t m = 0; m < mutants.size(); ++m) {
    covered[m] = kills[m].empty();
    sel.killed_by_grid += kills[m].empty() ? 0 : 1;
    for (const auto i : kills[m]) by_case[i].push_back(m);
  }
  std::set<std::size_t> kept;
  for (;;) {
    std::optional<std::uint32_t> best;
    std::size_t best_count = 0;
    for (const auto& [i, killed] : by_case) {
      const auto count = static_cast<std::size_t>(
          std::count_if(killed.begin(), killed.end(), [&](std::size_t m) { return !covered[m]; }));
      if (count > best_count || (count == best_count && count > 0 && smaller_case(cases[i].args, cases[*best].args))) {
        best = i;
        best_count = count;
      }
    }
    if (!best) break;
    kept.insert(*best);
    for (const auto m : by_case[*best]) covered[m] = 1;
  }
  // One case per outcome class not yet shown, and those always kept.
  std::map<std::string, std::size_t> smallest_of_class;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].items.empty()) continue;
    auto [it, fresh] = smallest_of_class.emplace(cases[i].outcome_class, i);
    if (!fresh && smaller_case(cases[i].args, cases[it->second].args)) it->second = i;
  }
  std::set<std::string> shown;
  for (const auto i : kept) shown.insert(cases[i].outcome_class);
  for (const auto& [cls, i] : smallest_of_class) {
    if (!shown.count(cls)) kept.insert(i);
  }
  for (const auto i : always) kept.insert(i);
  for (std::size_t m = 0; m < mutants.size(); ++m) {
    sel.killed_by_kept += std::any_of(kills[m].begin(), kills[m].end(), [&](std::uint32_t i) { return kept.count(i); });
  }
  // The file's order: by outcome class (the class of the smallest case first), then smallest first.
  std::map<std::string, std::size_t> first_of_class;
  for (const auto i : kept) {
    auto [it, fresh] = first_of_class.emplace(cases[i].outcome_class, i);
    if (!fresh && smaller_case(cases[i].args, cases[it->second].args)) it->second = i;
  }
  sel.kept.assign(kept.begin(), kept.end());
  std::sort(sel.kept.begin(), sel.kept.end(), [&](std::size_t a, std::size_t b) {
    const std::size_t ca = first_of_class[cases[a].outcome_class], cb = first_of_class[cases[b].outcome_class];
    if (ca != cb) return smaller_case(cases[ca].args, cases[cb].args);
    return smaller_case(cases[a].args, cases[b].args);
  });
  sel.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return sel;
}

}  // namespace tpcheck::conform
