// The registry's list, built from the declarations of every file that makes
// one, and what engines share about it: tallies and the coverage they lack.
#include "tpcheck/registry.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "declare.hpp"

// The files of declarations (TPCHECK_DECLARATIONS): naming each here makes
// the linker keep it, and with it its declarations.
namespace tpcheck::inv::declare::files {
extern int rank_map_invariants, head_invariants, plan_invariants, count_invariants, port_invariants,
    deployment_invariants, stage_invariants, differential, preconditions_rank_map, preconditions_heads,
    preconditions_plan, preconditions_ports, preconditions_deployment, preconditions_stages, preconditions_state;
// An object with external linkage holding their addresses: the compiler must
// emit it, so the linker must resolve (and keep) every file it points to.
extern int* const all[];
int* const all[] = {&rank_map_invariants,    &head_invariants,       &plan_invariants,
                    &count_invariants,       &port_invariants,       &deployment_invariants,
                    &stage_invariants,       &differential,          &preconditions_rank_map,
                    &preconditions_heads,    &preconditions_plan,    &preconditions_ports,
                    &preconditions_deployment, &preconditions_stages, &preconditions_state};
}  // namespace tpcheck::inv::declare::files

namespace tpcheck::inv {
namespace {

// Declarations run before main, in no fixed order across files: they add to
// this list, and registry() sorts it once.
std::vector<Entry>& declared() {
  static std::vector<Entry> entries;
  return entries;
}

}  // namespace

namespace declare::detail {

Registration::Registration(Entry entry) { declared().push_back(std::move(entry)); }

void check_arity(const Entry& e, std::size_t arity) {
  const auto width = static_cast<std::size_t>(e.domains.front().width());
  if (arity != width) {
    throw std::invalid_argument(std::string("invariant ") + e.name + ": its check takes " + std::to_string(arity) +
                                " values but its domain gives " + std::to_string(width));
  }
  if (e.kinds.size() > kMaxKinds) throw std::invalid_argument(std::string("invariant ") + e.name + ": too many kinds");
}

}  // namespace declare::detail

const std::vector<Entry>& registry() {
  static const std::vector<Entry> sorted = [] {
    std::vector<Entry> entries = declared();
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.family != b.family) return a.family < b.family;
      return std::strcmp(a.name, b.name) < 0;
    });
    return entries;
  }();
  return sorted;
}

const Entry* find_entry(std::string_view name) {
  for (const Entry& e : registry()) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

std::string_view family_name(Family family) {
  switch (family) {
    case Family::Bounds: return "§9.1 bounds";
    case Family::FanIn: return "§9.2 fan-in";
    case Family::RoundTrip: return "§9.3 round trip";
    case Family::Errors: return "§9.4 errors exactly where due";
    case Family::Agreement: return "§9.5 agreement";
    case Family::HeadAlignment: return "§9.6 head alignment";
    case Family::PlanExactness: return "§9.7 plan exactness";
    case Family::CompletionCounts: return "§9.8 completion counts";
    case Family::PortsAndHosts: return "§9.9 ports and hosts";
  }
  return "unknown family";
}

std::string_view engine_name(Engine engine) {
  switch (engine) {
    case Engine::Sweep: return "sweep";
    case Engine::RapidCheckInt64: return "rapidcheck-int64";
    case Engine::RapidCheckCppInt: return "rapidcheck-cpp_int";
    case Engine::Fuzz: return "fuzz";
    case Engine::Seeds: return "seeds";
  }
  return "unknown engine";
}

void Tally::add(const Verdict& verdict, KindMask mask) {
  switch (verdict.state()) {
    case Verdict::State::Holds: ++held; break;
    case Verdict::State::Violated: ++violated; break;
    case Verdict::State::Vacuous: {
      ++vacuous;
      for (auto& [reason, count] : reasons) {
        if (reason == verdict.reason()) {
          ++count;
          return;
        }
      }
      reasons.emplace_back(verdict.reason(), 1);
      return;
    }
  }
  for (std::size_t k = 0; mask != 0; ++k, mask >>= 1) kinds[k] += mask & 1;
}

void Tally::merge(const Tally& other) {
  held += other.held;
  vacuous += other.vacuous;
  violated += other.violated;
  for (std::size_t k = 0; k < kMaxKinds; ++k) kinds[k] += other.kinds[k];
  for (const auto& seen : other.reasons) {
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == seen.first; });
    if (it == reasons.end()) {
      reasons.push_back(seen);
    } else {
      it->second += seen.second;
    }
  }
}

double Tally::non_vacuous_share() const {
  return cases() == 0 ? 0.0 : static_cast<double>(non_vacuous()) / static_cast<double>(cases());
}

std::vector<std::string> coverage_gaps(const Entry& entry, const Tally& tally) {
  std::vector<std::string> gaps;
  if (tally.cases() == 0) return {"no case at all"};
  for (std::size_t k = 0; k < entry.kinds.size(); ++k) {
    if (tally.kinds[k] == 0) gaps.push_back(std::string("kind '") + entry.kinds[k] + "' never met");
  }
  if (tally.non_vacuous_share() < entry.min_non_vacuous) {
    char text[160];
    std::snprintf(text, sizeof text, "non-vacuous share %.3f below the declared %.3f", tally.non_vacuous_share(),
                  entry.min_non_vacuous);
    gaps.emplace_back(text);
  }
  return gaps;
}

}  // namespace tpcheck::inv
