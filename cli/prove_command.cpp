// `tpcheck prove`: the invariants of SPEC §9 proved by Z3 for unbounded
// integers (prove/), or, in a build without Z3, a one-line refusal.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace tpcheck::cli {
namespace {

// In every build: a build without Z3 still says what the command does.
constexpr const char* kProveUsage =
    "usage: tpcheck prove [--json] [--goals] [--only NAME]... [--pending] [--budget SECONDS] [--threads N]\n"
    "       tpcheck prove --list      the table of what is proved (Markdown, as in the manual)\n"
    "  Proves each invariant of SPEC §9 that is a statement over a fixed number of integers\n"
    "  with Z3, for unbounded integers, and lists the others with the reason.\n"
    "  --goals: list every goal with its verdict and time, not only those not proved\n"
    "  --only: prove these invariants, and those whose proved statements their goals cite\n"
    "  An invariant that cites another (\"depends on\") is proved only when that one is;\n"
    "  its time counts its own goals only.\n"
    "  --pending: also run the stated proofs that Z3 does not settle within the budget yet\n"
    "  --budget: seconds per goal before its checks give up (default 120)\n"
    "  --threads: goals proved at once (default: one per core)\n"
    "  Exit 0 only when every provable invariant is proved; 1 otherwise; 2 on a usage error.\n";

}  // namespace
}  // namespace tpcheck::cli

#ifdef TPCHECK_HAVE_PROVER

#include <chrono>
#include <iomanip>
#include <sstream>
#include <thread>
#include <variant>

#include "docs_tables.hpp"
#include "options.hpp"
#include "tpcheck/json.hpp"
#include "tpcheck/prove/runner.hpp"
#include "tpcheck/registry.hpp"

namespace tpcheck::cli {
namespace {

struct ProveOptions {
  prove::RunOptions run;
  bool json = false;
  bool all_goals = false;
  bool list = false;
  bool help = false;
};

std::variant<ProveOptions, std::string> parse_prove_options(const std::vector<std::string>& args) {
  ProveOptions o;
  o.run.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      o.json = true;
    } else if (a == "--goals") {
      o.all_goals = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--pending") {
      o.run.pending = true;
    } else if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--only" || a == "--budget" || a == "--threads") {
      if (i + 1 >= args.size()) return a + " needs a value";
      const std::string& value = args[++i];
      if (a == "--only") {
        if (!inv::find_entry(value)) return "--only: no invariant named '" + value + "'";
        o.run.only.push_back(value);
      } else {
        const auto n = parse_bounded(a, value, 1, a == "--threads" ? 256 : 3600);
        if (const auto* error = std::get_if<OptionError>(&n)) return error->str();
        const std::int64_t v = std::get<std::int64_t>(n);
        if (a == "--threads") {
          o.run.threads = static_cast<int>(v);
        } else {
          o.run.budget_seconds = static_cast<double>(v);
        }
      }
    } else {
      return "unknown option '" + a + "'";
    }
  }
  return o;
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << s << " s";
  return out.str();
}

// A citing invariant's times are its own goals'; it stands on the cited ones.
std::string cites_text(const prove::InvariantResult& r) {
  std::string out;
  for (const std::string& name : r.cites) out += (out.empty() ? "; depends on " : ", ") + name;
  return out;
}

void print_text(const std::vector<prove::InvariantResult>& results, bool all_goals) {
  for (const auto& r : results) {
    std::cout << std::left << std::setw(50) << r.invariant << std::setw(12) << prove::verdict_name(r.verdict)
              << std::right;
    if (r.verdict == prove::Verdict::NotProved) {
      std::cout << "  " << r.reason << "\n";
      continue;
    }
    std::cout << std::setw(8) << seconds_text(r.seconds) << "  (CPU " << seconds_text(r.cpu_seconds) << ", "
              << r.goals.size() << " goals" << cites_text(r) << ")\n";
    if (!r.reason.empty()) std::cout << "    " << r.reason << "\n";
    for (const auto& g : r.goals) {
      if (g.verdict == prove::Verdict::Proved && !all_goals) continue;
      std::cout << "    " << prove::verdict_name(g.verdict) << " in " << seconds_text(g.seconds) << " (CPU "
                << seconds_text(g.cpu_seconds) << "): " << g.claim << "\n";
      if (!g.reason.empty()) std::cout << "      " << g.reason << "\n";
      if (!g.counterexample) continue;
      std::cout << "      counterexample:";
      for (const auto& [name, value] : g.counterexample->inputs) std::cout << " " << name << "=" << value;
      std::cout << "\n";
      for (const auto& call : g.counterexample->calls) std::cout << "        " << call << "\n";
    }
  }
}

void print_json(const std::vector<prove::InvariantResult>& results, double seconds) {
  std::cout << "{\"invariants\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::cout << (i ? ", " : "") << "{\"name\": " << json_string(r.invariant)
              << ", \"verdict\": " << json_string(std::string(prove::verdict_name(r.verdict)))
              << ", \"seconds\": " << r.seconds << ", \"cpu_seconds\": " << r.cpu_seconds << ", \"domain\": " << json_string(r.domain)
              << ", \"reason\": " << json_string(r.reason) << ", \"depends_on\": [";
    for (std::size_t j = 0; j < r.cites.size(); ++j) std::cout << (j ? ", " : "") << json_string(r.cites[j]);
    std::cout << "], \"goals\": [";
    for (std::size_t j = 0; j < r.goals.size(); ++j) {
      const auto& g = r.goals[j];
      std::cout << (j ? ", " : "") << "{\"claim\": " << json_string(g.claim)
                << ", \"verdict\": " << json_string(std::string(prove::verdict_name(g.verdict)))
                << ", \"seconds\": " << g.seconds << ", \"cpu_seconds\": " << g.cpu_seconds << ", \"reason\": " << json_string(g.reason)
                << ", \"counterexample\": ";
      if (!g.counterexample) {
        std::cout << "null}";
        continue;
      }
      std::cout << "{\"inputs\": {";
      for (std::size_t k = 0; k < g.counterexample->inputs.size(); ++k) {
        const auto& [name, value] = g.counterexample->inputs[k];
        std::cout << (k ? ", " : "") << json_string(name) << ": " << json_string(value);
      }
      std::cout << "}, \"calls\": [";
      for (std::size_t k = 0; k < g.counterexample->calls.size(); ++k) {
        std::cout << (k ? ", " : "") << json_string(g.counterexample->calls[k]);
      }
      std::cout << "]}}";
    }
    std::cout << "]}";
  }
  std::cout << "], \"seconds\": " << seconds << "}\n";
}

}  // namespace

int prove_command(const std::vector<std::string>& args) {
  const auto parsed = parse_prove_options(args);
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "tpcheck prove: " << *error << " (see tpcheck prove --help)\n";
    return 2;
  }
  const ProveOptions& o = std::get<ProveOptions>(parsed);
  if (o.help) {
    std::cout << kProveUsage;
    return 0;
  }
  // The registry says what is proved, prove/ holds the goals: they must agree.
  if (const auto disagreements = prove::proof_status_disagreements(inv::registry(), prove::invariant_goals());
      !disagreements.empty()) {
    for (const std::string& d : disagreements) std::cerr << "tpcheck prove: " << d << "\n";
    return 2;
  }
  if (o.list) {
    write_proof_table(std::cout);
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<prove::InvariantResult> results = prove::prove_invariants(o.run);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int provable = 0, proved = 0, refuted = 0;
  const prove::InvariantResult* slowest = nullptr;
  for (const auto& r : results) {
    if (r.verdict == prove::Verdict::NotProved) continue;
    ++provable;
    proved += r.verdict == prove::Verdict::Proved;
    refuted += r.verdict == prove::Verdict::Refuted;
    if (!slowest || r.seconds > slowest->seconds) slowest = &r;
  }
  if (o.json) {
    print_json(results, seconds);
  } else {
    print_text(results, o.all_goals);
    std::cout << "prove: " << proved << " of " << provable << " provable invariants proved, " << refuted
              << " refuted, " << (provable - proved - refuted) << " unknown, vacuous or citing one not proved, "
              << (results.size() - static_cast<std::size_t>(provable)) << " not provable; " << seconds_text(seconds)
              << " on " << o.run.threads << " threads";
    std::cout << "\n";
    // The targets: each invariant within 10 s and all within a minute on 2 cores. CPU time is what an
    // invariant costs on an idle core (its checks run on one thread), whatever else the machine runs.
    if (slowest) {
      double cpu = 0;
      for (const auto& r : results) cpu += r.cpu_seconds;
      std::cout << "prove: slowest " << slowest->invariant << " " << seconds_text(slowest->seconds) << ", CPU "
                << seconds_text(slowest->cpu_seconds) << " = " << std::fixed << std::setprecision(2)
                << slowest->cpu_seconds / 10 << " x the 10 s limit; all " << seconds_text(seconds) << " = "
                << seconds / 60 << " x the 60 s limit (CPU " << seconds_text(cpu) << " on " << o.run.threads
                << " threads)\n";
    }
  }
  return proved == provable ? 0 : 1;
}

}  // namespace tpcheck::cli

#else  // a build without Z3

namespace tpcheck::cli {

int prove_command(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kProveUsage;
    return 0;
  }
  std::cerr << "tpcheck prove: this build has no prover (configure with Z3's C++ API, Debian's libz3-dev, "
               "and -DTPCHECK_PROVE=ON)\n";
  return 2;
}

}  // namespace tpcheck::cli

#endif
