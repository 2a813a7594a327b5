// Z3 checks of the goals, and the counterexamples they yield.
#include "tpcheck/prove/runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include <time.h>

#include "tpcheck/prove/operations.hpp"

namespace tpcheck::prove {
namespace {

using Clock = std::chrono::steady_clock;

// Z3 runs a check in the calling thread, so this thread's CPU time is what
// the checks cost, whatever else the machine runs.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct CheckResult {
  z3::check_result answer;
  std::string reason;
  std::optional<z3::model> model;
};

// How a check is solved: Z3's default strategy (for these goals, its
// non-linear integer one), or straight to its SMT core after eliminating
// what the formula defines. A check with the quotients abstracted is mostly
// linear, and there the default strategy's non-linear preprocessing cost 0.3
// to 1 s per check for nothing (PlanSourcesMatchNixlOnDivisiblePairs: 31 s of
// CPU by default, 21 s so). Both answer unsat only for an unsatisfiable formula.
enum class Strategy { Default, Linear };

z3::solver make_solver(z3::context& c, Strategy strategy) {
  if (strategy == Strategy::Default) return z3::solver(c);
  return (z3::tactic(c, "simplify") & z3::tactic(c, "propagate-values") & z3::tactic(c, "solve-eqs") &
          z3::tactic(c, "elim-uncnstr") & z3::tactic(c, "smt"))
      .mk_solver();
}

CheckResult check(z3::context& c, const z3::expr& formula, double seconds, Strategy strategy = Strategy::Default) {
  if (seconds <= 0) return {z3::unknown, "time budget spent", std::nullopt};
  z3::solver s = make_solver(c, strategy);
  z3::params p(c);
  p.set("timeout", static_cast<unsigned>(std::max(1.0, seconds * 1000)));
  s.set(p);
  s.add(formula);
  try {
    const z3::check_result answer = s.check();
    if (answer == z3::sat) return {answer, "", s.get_model()};
    return {answer, answer == z3::unknown ? s.reason_unknown() : "", std::nullopt};
  } catch (const z3::exception& e) {
    return {z3::unknown, std::string("Z3: ") + e.msg(), std::nullopt};
  }
}

std::string constant_text(const z3::expr& e) {
  const auto v = constant_value(e);
  return v ? decimal(*v) : e.to_string();
}

Counterexample counterexample(const Encoding& enc, const Goal& goal, const z3::model& m) {
  Counterexample out;
  for (const z3::expr& input : goal.inputs) {
    if (m.has_interp(input.decl())) out.inputs.emplace_back(input.decl().name().str(), constant_text(m.eval(input, true)));
  }
  const Evaluator eval = [&m](const z3::expr& t) { return m.eval(t, true); };
  for (const ShownCall& call : goal.calls) {
    const EncodedOperation* op = encoded_operation(call.op);
    if (!op) continue;
    std::vector<std::string> args;
    for (const z3::expr& a : call.args) args.push_back(constant_text(m.eval(a, true)));
    std::string line = op->eval_knows ? "tpcheck eval " + call.op : call.op + "(";
    for (std::size_t i = 0; i < args.size(); ++i) line += (op->eval_knows ? " " : i ? ", " : "") + args[i];
    if (!op->eval_knows) line += ")";
    const auto outcome = render_outcome(*op, op->build(enc, call.args), eval, 64);
    out.calls.push_back(line + "  ->  " + outcome.value_or("?") + "  (encoding)");
  }
  return out;
}

// The laws proved so far in this process, by the text of their negation
// ("premise and not conclusion", over the law's own integers). A law is a
// statement of its own, the same in every goal that uses it (17 goals of
// PlanSourcesMatchNixlOnDivisiblePairs use the same one), and proving it
// again cost 0.2-1.5 s of CPU each time: 10 of that invariant's 25 s.
// Keyed by the formula, not the claim, so a law stated differently (another
// encoding of floor division, say) is proved afresh.
class ProvedLaws {
 public:
  bool has(const std::string& negation) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return proved_.count(negation) != 0;
  }
  void add(std::string negation) {
    const std::lock_guard<std::mutex> lock(mutex_);
    proved_.insert(std::move(negation));
  }

 private:
  std::mutex mutex_;
  std::set<std::string> proved_;
};

ProvedLaws& proved_laws() {
  static ProvedLaws laws;
  return laws;
}

z3::expr conjunction(z3::context& c, const std::vector<z3::expr>& parts) {
  z3::expr all = c.bool_val(true);
  for (const z3::expr& p : parts) all = all && p;
  return all;
}

// A check with the goal's rewrites applied, then its abstracted subterms
// replaced by free constants.
z3::expr simplified_check(z3::context& c, const Goal& goal, const z3::expr& formula) {
  z3::expr_vector from(c), to(c);
  for (const auto& [a, b] : goal.rewrites) {
    from.push_back(a);
    to.push_back(b);
  }
  const auto rewrite = [&](const z3::expr& e) { return goal.rewrites.empty() ? e : z3::expr(e).substitute(from, to); };
  z3::expr_vector abstract_from(c), abstract_to(c);
  for (std::size_t i = 0; i < goal.abstracted.size(); ++i) {
    abstract_from.push_back(rewrite(goal.abstracted[i]));  // the subterm as it reads after the rewrites
    abstract_to.push_back(c.constant(("abstracted!" + std::to_string(i)).c_str(), goal.abstracted[i].get_sort()));
  }
  return rewrite(formula).substitute(abstract_from, abstract_to);
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Proved: return "proved";
    case Verdict::Refuted: return "refuted";
    case Verdict::Unknown: return "unknown";
    case Verdict::Vacuous: return "vacuous";
    case Verdict::NotProved: return "not proved";
    case Verdict::CitesUnproved: return "cites unproved";
  }
  return "?";
}

GoalResult prove_goal(const Encoding& enc, const Goal& goal, double seconds) {
  z3::context& c = enc.ctx();
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  const auto left = [&] { return seconds - std::chrono::duration<double>(Clock::now() - start).count(); };
  GoalResult result{goal.claim, Verdict::Proved, 0, 0, "", std::nullopt};
  const auto finish = [&](Verdict v, std::string reason) {
    result.verdict = v;
    result.reason = std::move(reason);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.cpu_seconds = thread_cpu_seconds() - cpu_start;
    return result;
  };
  // An empty domain would make every claim hold: show it has a member.
  const double domain_start = thread_cpu_seconds();
  const CheckResult inhabited = check(c, goal.domain, left());
  if (std::getenv("TPCHECK_PROVE_TRACE")) {
    std::fprintf(stderr, "  [%s] domain %.2f s\n", goal.claim.c_str(), thread_cpu_seconds() - domain_start);
  }
  if (inhabited.answer == z3::unsat) return finish(Verdict::Vacuous, "the domain has no member");
  if (inhabited.answer == z3::unknown) return finish(Verdict::Unknown, "domain: " + inhabited.reason);
  // Each check first with the abstractions (unsat there is unsat here), then,
  // unless that settled it, as stated: only that can give a counterexample.
  const bool simplified = !goal.abstracted.empty() || !goal.rewrites.empty();
  const bool trace = std::getenv("TPCHECK_PROVE_TRACE") != nullptr;  // where a goal spends its time
  const auto settle = [&](const z3::expr& negated, const std::string& which) {
    const double t0 = thread_cpu_seconds();
    CheckResult r = simplified ? check(c, simplified_check(c, goal, negated), left(), Strategy::Linear)
                               : check(c, negated, left());
    const double t1 = thread_cpu_seconds();
    if (r.answer != z3::unsat && simplified) r = check(c, negated, left());
    if (trace) {
      std::fprintf(stderr, "  [%s] %s: simplified %.2f s%s, as stated %.2f s\n", goal.claim.c_str(), which.c_str(), t1 - t0,
                   r.answer == z3::unsat ? "" : " (not settled)", thread_cpu_seconds() - t1);
    }
    return r;
  };
  // The laws first, each on its own (over its own integers): then their
  // instances at the goal's terms are facts like the given ones.
  std::vector<z3::expr> facts = goal.given;
  // (each law once per process: see ProvedLaws)
  for (const auto& [law, terms] : goal.laws) {
    facts.push_back(law.at(terms));
    const z3::expr negation = law.premise && !law.conclusion;
    const std::string key = negation.to_string();
    if (proved_laws().has(key)) continue;
    const double t0 = thread_cpu_seconds();
    const CheckResult holds = check(c, negation, left());
    if (trace) std::fprintf(stderr, "  [%s] law %s: %.2f s\n", goal.claim.c_str(), law.claim.c_str(), thread_cpu_seconds() - t0);
    if (holds.answer == z3::sat) return finish(Verdict::Refuted, "the law " + law.claim + " fails");
    if (holds.answer == z3::unknown) return finish(Verdict::Unknown, "the law " + law.claim + ": " + holds.reason);
    proved_laws().add(key);
  }
  for (const auto& [from, to] : goal.rewrites) {
    const CheckResult equal = check(c, goal.domain && from != to, left());
    if (equal.answer != z3::unsat) {
      return finish(Verdict::Unknown, "a rewrite was not shown to hold");
    }
  }
  const z3::expr given = conjunction(c, facts);
  for (std::size_t i = 0; i < goal.lemmas.size(); ++i) {
    const std::vector<z3::expr> known(goal.lemmas.begin(), goal.lemmas.begin() + static_cast<std::ptrdiff_t>(i));
    const std::string which = "lemma " + std::to_string(i + 1) + " of " + std::to_string(goal.lemmas.size());
    const CheckResult lemma = settle(goal.domain && given && conjunction(c, known) && !goal.lemmas[i], which);
    if (lemma.answer == z3::sat) {
      result.counterexample = counterexample(enc, goal, *lemma.model);
      return finish(Verdict::Refuted, which + " fails");
    }
    if (lemma.answer == z3::unknown) return finish(Verdict::Unknown, which + ": " + lemma.reason);
  }
  const CheckResult main = settle(goal.domain && given && conjunction(c, goal.lemmas) && !goal.holds, "claim");
  if (main.answer == z3::unsat) return finish(Verdict::Proved, "");
  if (main.answer == z3::unknown) return finish(Verdict::Unknown, main.reason);
  result.counterexample = counterexample(enc, goal, *main.model);
  return finish(Verdict::Refuted, "");
}

void settle_citations(std::vector<InvariantResult>& results) {
  for (InvariantResult& out : results) {
    for (const std::string& name : out.cites) {
      const auto cited = std::find_if(results.begin(), results.end(),
                                      [&](const InvariantResult& r) { return r.invariant == name; });
      if (cited != results.end() && cited->verdict == Verdict::Proved) continue;
      if (out.verdict == Verdict::Proved) out.verdict = Verdict::CitesUnproved;
      out.reason += std::string(out.reason.empty() ? "" : "; ") + "depends on " + name + ", which is " +
                    (cited == results.end() ? "not run" : std::string(verdict_name(cited->verdict)));
    }
  }
}

namespace {

bool named(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool has_goals(const inv::Entry& entry) { return entry.proof.has_goals() && goals_of(entry.name); }

// How many goals an invariant's proof has; adds the invariants they cite to `cites`.
std::size_t outline(const InvariantGoals& goals, Fault fault, std::vector<std::string>& cites) {
  z3::context c;
  const std::vector<Goal> built = goals.goals(Encoding(c, fault));
  for (const Goal& goal : built) {
    for (const std::string& name : goal.cites) {
      if (!named(cites, name)) cites.push_back(name);
    }
  }
  return built.size();
}

}  // namespace

std::vector<std::string> invariants_to_run(const RunOptions& options, std::vector<std::string>* cited) {
  // The selected invariants' proofs stand on the invariants they cite: those run too.
  std::vector<std::string> cites;
  for (const inv::Entry& entry : inv::registry()) {
    if ((options.only.empty() || named(options.only, entry.name)) && has_goals(entry)) {
      outline(*goals_of(entry.name), options.fault, cites);
    }
  }
  std::vector<std::string> out;
  for (const inv::Entry& entry : inv::registry()) {
    if (options.only.empty() || named(options.only, entry.name) || named(cites, entry.name)) out.emplace_back(entry.name);
  }
  if (cited) *cited = cites;
  return out;
}

std::vector<InvariantResult> prove_invariants(const RunOptions& options) {
  std::vector<std::string> cited;
  const std::vector<std::string> to_run = invariants_to_run(options, &cited);
  std::vector<InvariantResult> results;
  // The goals to prove, as (invariant, goal index): they are independent (a
  // goal given another's fact or a cited statement only assumes it; the
  // invariant needs both), so the threads share them out one goal at a time,
  // the slow invariants too.
  std::vector<std::pair<std::size_t, std::size_t>> work;
  std::vector<const InvariantGoals*> proofs;
  for (const inv::Entry& entry : inv::registry()) {
    if (!named(to_run, entry.name)) continue;
    const bool is_cited = named(cited, entry.name);
    const inv::Proof& status = entry.proof;
    const bool proved = status.status == inv::Proof::Status::ByZ3;
    const std::string text = status.text ? status.text : "";
    results.push_back({entry.name, Verdict::NotProved, 0, 0, proved ? text : "", proved ? "" : text, {}, {}});
    proofs.push_back(goals_of(entry.name));
    // proof_status_disagreements (checked by tpcheck prove first) says goals exist where the status has them.
    if (!has_goals(entry) || (!proved && !options.pending && !is_cited)) continue;
    results.back().reason.clear();
    results.back().verdict = Verdict::Proved;
    const std::size_t count = outline(*proofs.back(), options.fault, results.back().cites);
    results.back().goals.resize(count);
    for (std::size_t g = 0; g < count; ++g) work.emplace_back(results.size() - 1, g);
  }
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t w = next++; w < work.size(); w = next++) {
      const auto [i, g] = work[w];
      z3::context c;  // one per goal: Z3 contexts are not shared between threads
      const Encoding enc(c, options.fault);
      const std::vector<Goal> goals = proofs[i]->goals(enc);
      results[i].goals[g] = prove_goal(enc, goals[g], options.budget_seconds);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, options.threads); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  for (InvariantResult& out : results) {
    for (const GoalResult& g : out.goals) {
      // The worst verdict of the goals is the invariant's: refuted, vacuous, unknown, proved.
      const auto rank = [](Verdict v) { return v == Verdict::Refuted ? 3 : v == Verdict::Vacuous ? 2 : v == Verdict::Unknown ? 1 : 0; };
      if (rank(g.verdict) > rank(out.verdict)) out.verdict = g.verdict;
      out.seconds += g.seconds;
      out.cpu_seconds += g.cpu_seconds;
    }
  }
  settle_citations(results);
  return results;
}

}  // namespace tpcheck::prove
