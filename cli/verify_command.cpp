// `tpcheck verify`: run the exhaustive sweep over the registry and summarize
// it per invariant; `--list` prints the registry itself.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "docs_tables.hpp"
#include "options.hpp"
#include "sweep.hpp"
#include "tpcheck/json.hpp"
#include "tpcheck/oracle.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kVerifyUsage =
    "usage: tpcheck verify [--max-tp N] [--max-heads N] [--threads N] [--invariant NAME]... [--json]\n"
    "       tpcheck verify --list [--invariant NAME]... [--json]\n"
    "  defaults: --max-tp 256 --max-heads 256 --threads <one per core>\n"
    "  Checks every invariant of the registry on every case of its domain up to the bounds:\n"
    "  sizes 1..N (and -1, 0 where an invariant speaks about non-positive sizes), every rank\n"
    "  (and -1, N), every head count up to --max-heads (every one, or those both sides can\n"
    "  shard, and MLA), DP sizes 1..4, host counts and base ports near 65535; and the\n"
    "  narrow models against cpp_int on every operation.\n"
    "  Exit 0 when nothing is violated and every invariant met every kind of input it\n"
    "  declares with at least its declared share of non-vacuous cases; 1 otherwise.\n"
    "  --list prints the registry (or the invariants named): each invariant's domain, kinds\n"
    "  and engines, and for an operation's errors the SPEC's preconditions in their order.\n";

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string summary_line(const sweep::Result& r, double seconds) {
  return "verify: " + std::to_string(r.entries.size()) + " invariants, " + std::to_string(r.non_vacuous()) + " cases, " +
         std::to_string(r.violations()) + " violations, " + fixed(seconds, 1) + " s, " +
         fixed(static_cast<double>(r.non_vacuous()) / std::max(seconds, 1e-9), 0) + " cases/s";
}

void print_text(const VerifyOptions& o, const sweep::Result& r, double seconds) {
  std::cout << "bound: sizes 1.." << o.max_tp << ", head counts 1.." << o.max_heads << ", DP sizes 1.."
            << dom::kSweepDpSizes << "; " << o.threads << " threads (cases: non-vacuous ones)\n";
  std::cout << "  " << std::left << std::setw(50) << "invariant" << std::right << std::setw(13) << "held"
            << std::setw(13) << "vacuous" << std::setw(10) << "violated" << std::setw(8) << "share" << "\n";
  std::optional<inv::Family> family;
  for (const sweep::EntryResult& e : r.entries) {
    if (family != e.entry->family) {
      family = e.entry->family;
      std::cout << inv::family_name(*family) << "\n";
    }
    const inv::Tally& t = e.tally;
    std::cout << "  " << std::left << std::setw(50) << e.entry->name << std::right << std::setw(13) << t.held
              << std::setw(13) << t.vacuous << std::setw(10) << t.violated << std::setw(8)
              << fixed(t.non_vacuous_share(), 3) << "\n";
    if (e.smallest) {
      std::cout << "      smallest counterexample: " << e.smallest->input << "\n"
                << "      " << e.smallest->violation << "\n";
    }
    for (const std::string& gap : e.gaps) std::cout << "      NOT COVERED: " << gap << "\n";
  }
  std::size_t uncovered = 0;
  for (const sweep::EntryResult& e : r.entries) uncovered += e.gaps.empty() ? 0 : 1;
  if (uncovered > 0) std::cout << "verify: " << uncovered << " invariants lack the coverage they declare\n";
  std::cout << summary_line(r, seconds) << "\n";
}

template <class Labelled>
void print_counts(const char* key, const Labelled& counts) {
  std::cout << ", " << json_string(key) << ": {";
  bool first = true;
  for (const auto& [label, count] : counts) {
    std::cout << (first ? "" : ", ") << json_string(label) << ": " << count;
    first = false;
  }
  std::cout << "}";
}

void print_json(const VerifyOptions& o, const sweep::Result& r, double seconds) {
  std::cout << "{\"max_tp\": " << o.max_tp << ", \"max_heads\": " << o.max_heads << ", \"threads\": " << o.threads
            << ", \"invariants\": [";
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    const sweep::EntryResult& e = r.entries[i];
    const inv::Tally& t = e.tally;
    std::cout << (i ? ", " : "") << "{\"name\": " << json_string(e.entry->name) << ", \"section\": "
              << json_string(e.entry->section) << ", \"family\": " << json_string(std::string(inv::family_name(e.entry->family)))
              << ", \"held\": " << t.held << ", \"vacuous\": " << t.vacuous << ", \"violated\": " << t.violated
              << ", \"non_vacuous_share\": " << fixed(t.non_vacuous_share(), 6)
              << ", \"min_non_vacuous\": " << fixed(e.entry->min_non_vacuous, 6);
    std::vector<std::pair<std::string, std::uint64_t>> kinds;
    for (std::size_t k = 0; k < e.entry->kinds.size(); ++k) kinds.emplace_back(e.entry->kinds[k], t.kinds[k]);
    print_counts("kinds", kinds);
    print_counts("vacuous_reasons", t.reasons);
    std::cout << ", \"gaps\": [";
    for (std::size_t g = 0; g < e.gaps.size(); ++g) std::cout << (g ? ", " : "") << json_string(e.gaps[g]);
    std::cout << "], \"smallest\": ";
    if (e.smallest) {
      std::cout << "{\"input\": " << json_string(e.smallest->input) << ", \"violation\": "
                << json_string(e.smallest->violation) << "}";
    } else {
      std::cout << "null";
    }
    std::cout << "}";
  }
  std::cout << "], \"cases\": " << r.non_vacuous() << ", \"violations\": " << r.violations()
            << ", \"failed\": " << (r.failed() ? "true" : "false") << ", \"seconds\": " << fixed(seconds, 3)
            << ", \"cases_per_second\": " << fixed(static_cast<double>(r.non_vacuous()) / std::max(seconds, 1e-9), 0)
            << "}\n";
}

// The registry as its engines see it (the entries named, or all of them).
void print_registry(bool json, const std::vector<const inv::Entry*>& only) {
  std::vector<const inv::Entry*> entries = only;
  if (entries.empty()) {
    for (const inv::Entry& e : inv::registry()) entries.push_back(&e);
  }
  if (json) std::cout << "{\"invariants\": [";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const inv::Entry& e = *entries[i];
    if (json) {
      std::cout << (i ? ", " : "") << "{\"name\": " << json_string(e.name) << ", \"section\": " << json_string(e.section)
                << ", \"family\": " << json_string(std::string(inv::family_name(e.family))) << ", \"domains\": {";
      for (std::size_t d = 0; d < e.domains.size(); ++d) {
        std::cout << (d ? ", " : "") << json_string(e.domain_names[d]) << ": " << json_string(dom::domain_text(e.domains[d]));
      }
      std::cout << "}, \"kinds\": [";
      for (std::size_t k = 0; k < e.kinds.size(); ++k) std::cout << (k ? ", " : "") << json_string(e.kinds[k]);
      std::cout << "], \"min_non_vacuous\": " << fixed(e.min_non_vacuous, 6) << ", \"size_cap\": " << e.size_cap
                << ", \"proof\": " << json_string(proof_status_text(e.proof))
                << ", \"proof_note\": " << (e.proof.text ? json_string(e.proof.text) : "null") << ", \"excluded\": {";
      bool first = true;
      for (int g = 0; g < inv::kEngineCount; ++g) {
        const auto engine = static_cast<inv::Engine>(g);
        if (!e.exclusion(engine)) continue;
        std::cout << (first ? "" : ", ") << json_string(std::string(inv::engine_name(engine))) << ": "
                  << json_string(e.exclusion(engine));
        first = false;
      }
      std::cout << "}}";
      continue;
    }
    std::cout << e.name << " (" << e.section << "; family " << inv::family_name(e.family) << ")\n";
    for (std::size_t d = 0; d < e.domains.size(); ++d) {
      std::cout << "  domain" << (e.domains.size() > 1 ? std::string(" ") + e.domain_names[d] : "") << ": "
                << dom::domain_text(e.domains[d]) << "\n";
    }
    std::cout << "  kinds:";
    for (std::size_t k = 0; k < e.kinds.size(); ++k) std::cout << (k ? "; " : " ") << e.kinds[k];
    std::cout << "\n  non-vacuous share at least " << fixed(e.min_non_vacuous, 2);
    if (e.size_cap > 0) std::cout << ", random sizes up to " << e.size_cap;
    std::cout << ", proof: " << proof_status_text(e.proof) << (e.proof.text ? std::string(" (") + e.proof.text + ")" : "") << "\n";
    for (int g = 0; g < inv::kEngineCount; ++g) {
      const auto engine = static_cast<inv::Engine>(g);
      if (e.exclusion(engine)) std::cout << "  not run by " << inv::engine_name(engine) << ": " << e.exclusion(engine) << "\n";
    }
    // An error oracle's entry: the preconditions it holds the operation to.
    if (const oracle::Oracle* o = oracle::oracle_named(e.name)) {
      std::istringstream lines(oracle::describe(*o));
      for (std::string line; std::getline(lines, line);) std::cout << "  " << line << "\n";
    }
  }
  if (json) std::cout << "]}\n";
}

}  // namespace

int verify_command(const std::vector<std::string>& args) {
  const auto parsed = parse_verify_options(views_of(args));
  if (const auto* error = std::get_if<OptionError>(&parsed)) {
    std::cerr << "tpcheck verify: " << *error << "\n";
    return 2;
  }
  VerifyOptions o = std::get<VerifyOptions>(parsed);
  if (o.threads == 0) o.threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (o.help) {
    std::cout << kVerifyUsage;
    return 0;
  }
  sweep::Options options{{o.max_tp, o.max_heads}, o.threads, {}};
  for (const std::string& name : o.invariants) {
    const inv::Entry* e = inv::find_entry(name);
    if (!e) {
      std::cerr << "tpcheck verify: no invariant named '" << name << "' (tpcheck verify --list names them)\n";
      return 2;
    }
    if (!o.list && e->exclusion(inv::Engine::Sweep)) {
      std::cerr << "tpcheck verify: the sweep does not run " << name << ": " << e->exclusion(inv::Engine::Sweep) << "\n";
      return 2;
    }
    options.only.push_back(e);
  }
  if (o.list) {
    print_registry(o.json, options.only);
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  const sweep::Result result = sweep::run(options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.json) {
    print_json(o, result, seconds);
  } else {
    print_text(o, result, seconds);
  }
  return result.failed() ? 1 : 0;
}

}  // namespace tpcheck::cli
