// `tpcheck verify`: run the exhaustive sweep and summarize it.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "options.hpp"
#include "sweep.hpp"
#include "tpcheck/json.hpp"

namespace tpcheck::cli {
namespace {

constexpr const char* kVerifyUsage =
    "usage: tpcheck verify [--max-tp N] [--max-heads N] [--threads N] [--json]\n"
    "  defaults: --max-tp 256 --max-heads 256 --threads <one per core>\n"
    "  Checks every invariant of SPEC §9 on every TP pair (L, R) in [1, N]^2, every rank,\n"
    "  and every head count up to --max-heads that both sides can shard (and MLA),\n"
    "  comparing the int64 and cpp_int models on every operation.\n"
    "  Exit 0 only when nothing is violated.\n";

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

void print_text(const VerifyOptions& o, const sweep::Result& r, double seconds) {
  std::cout << "bound: every TP pair (L, R) in [1, " << o.max_tp << "]^2, ranks -1..L, head counts 1.."
            << o.max_heads << " that both sides can shard, and MLA; " << o.threads << " threads\n";
  for (int i = 0; i < inv::kInvariantCount; ++i) {
    const sweep::InvariantTally& t = r.by_invariant[static_cast<std::size_t>(i)];
    std::cout << "  " << std::setw(2) << (i + 1) << ". " << std::left << std::setw(26)
              << inv::invariant_name(static_cast<inv::Invariant>(i + 1)) << std::right << std::setw(12) << t.cases
              << " cases  " << std::setw(6) << t.violations << " violations\n";
    if (t.smallest) {
      std::cout << "      smallest counterexample: " << t.smallest->input << "\n"
                << "      " << t.smallest->violation << "\n";
    }
  }
  std::cout << "reached (a check on a kind it does not speak about holds vacuously; these show every kind was met):\n";
  for (const auto& [kind, count] : r.reached) std::cout << "  " << std::left << std::setw(66) << kind << std::right << count << "\n";
  std::cout << "verify: " << inv::kInvariantCount << " invariants, " << r.cases() << " cases, " << r.violations()
            << " violations, " << fixed(seconds, 1) << " s, " << fixed(r.cases() / std::max(seconds, 1e-9), 0)
            << " cases/s\n";
}

void print_json(const VerifyOptions& o, const sweep::Result& r, double seconds) {
  std::cout << "{\"max_tp\": " << o.max_tp << ", \"max_heads\": " << o.max_heads << ", \"threads\": " << o.threads
            << ", \"invariants\": [";
  for (int i = 0; i < inv::kInvariantCount; ++i) {
    const sweep::InvariantTally& t = r.by_invariant[static_cast<std::size_t>(i)];
    std::cout << (i ? ", " : "") << "{\"id\": " << (i + 1) << ", \"name\": "
              << json_string(std::string(inv::invariant_name(static_cast<inv::Invariant>(i + 1))))
              << ", \"cases\": " << t.cases << ", \"violations\": " << t.violations << ", \"smallest\": ";
    if (t.smallest) {
      std::cout << "{\"input\": " << json_string(t.smallest->input) << ", \"violation\": "
                << json_string(t.smallest->violation) << "}";
    } else {
      std::cout << "null";
    }
    std::cout << "}";
  }
  std::cout << "], \"reached\": {";
  bool first = true;
  for (const auto& [kind, count] : r.reached) {
    std::cout << (first ? "" : ", ") << json_string(kind) << ": " << count;
    first = false;
  }
  std::cout << "}, \"cases\": " << r.cases() << ", \"violations\": " << r.violations()
            << ", \"seconds\": " << fixed(seconds, 3) << ", \"cases_per_second\": "
            << fixed(r.cases() / std::max(seconds, 1e-9), 0) << "}\n";
}

}  // namespace

int verify_command(const std::vector<std::string>& args) {
  const auto parsed = parse_verify_options(args);
  if (const auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "tpcheck verify: " << *error << "\n";
    return 2;
  }
  VerifyOptions o = std::get<VerifyOptions>(parsed);
  if (o.threads == 0) o.threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (o.help) {
    std::cout << kVerifyUsage;
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  const sweep::Result result = sweep::run({o.max_tp, o.max_heads, o.threads});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.json) {
    print_json(o, result, seconds);
  } else {
    print_text(o, result, seconds);
  }
  return result.violations() == 0 ? 0 : 1;
}

}  // namespace tpcheck::cli
