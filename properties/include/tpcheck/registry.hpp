// The registry: every invariant of SPEC §9 (and the project's own) declared
// once, with its domain, the kinds of input it must meet, the share of its
// cases that must be non-vacuous, and its check. Every engine (the exhaustive
// sweep, RapidCheck, libFuzzer, the seed writer, the benchmarks) is a driver
// of this list and names no invariant or domain of its own.
//
// The declarations sit next to their checks in properties/src/*.cpp
// (TPCHECK_INVARIANT, src/declare.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpcheck/domain.hpp"
#include "tpcheck/pyint.hpp"
#include "tpcheck/verdict.hpp"

namespace tpcheck::inv {

// SPEC §9's nine invariants, in its order, then SPEC §16.4's recurrent state:
// each entry belongs to one.
enum class Family : std::uint8_t {
  Bounds,
  FanIn,
  RoundTrip,
  Errors,
  Agreement,
  HeadAlignment,
  PlanExactness,
  CompletionCounts,
  PortsAndHosts,
  RecurrentState,
};
inline constexpr Family kLastFamily = Family::RecurrentState;
std::string_view family_name(Family family);  // "§9.3 round trip"

// The engines that drive the registry; an entry may exclude itself from one,
// with the reason.
enum class Engine : std::uint8_t { Sweep, RapidCheckInt64, RapidCheckCppInt, Fuzz, Seeds };
inline constexpr int kEngineCount = 5;
std::string_view engine_name(Engine engine);

// Whether `tpcheck prove` (prove/) proves the invariant for every integer:
// declared here, next to the check, and the one place the list of proved and
// unproved invariants comes from. prove/ keeps only the goals, looked up by
// the entry's name; a test (prove/tests/proof_status_test.cpp) fails when an
// entry declares nothing, when prove/ has goals for a name the registry lacks,
// or when the two disagree (proved or stated without goals, goals for an
// entry called not provable).
struct Proof {
  enum class Status : std::uint8_t {
    Undeclared,   // the default: the test above rejects it
    ByZ3,         // proved, for the inputs `text` names
    Stated,       // prove/ states the goals but Z3 does not settle them in time: `text` says which and why
    NotProvable,  // not a statement over a fixed number of integers: `text` says why
  };
  Status status = Status::Undeclared;
  const char* text = nullptr;

  static Proof by_z3(const char* proved_for) { return {Status::ByZ3, proved_for}; }
  static Proof stated(const char* why_not_settled) { return {Status::Stated, why_not_settled}; }
  static Proof not_provable(const char* why) { return {Status::NotProvable, why}; }
  bool has_goals() const { return status == Status::ByZ3 || status == Status::Stated; }
};

// The kinds of input an entry met in one case, one bit per declared kind.
using KindMask = std::uint64_t;
inline constexpr std::size_t kMaxKinds = 64;

// Evaluates the entry on one case of its domain number `domain` (the values
// in the domain's order); sets `kinds` when the verdict is not vacuous.
template <class Int>
using Check = Verdict (*)(std::size_t domain, const Int* values, KindMask* kinds);

struct Entry {
  const char* name = nullptr;     // a sentence: "RoundTripReturnsHome"
  const char* section = nullptr;  // "§9.3"
  Family family = Family::Bounds;
  // The domain; the differential has one per model operation.
  std::vector<dom::Domain> domains;
  std::vector<const char*> domain_names;  // one per domain: the entry's name, or the operation's
  std::vector<const char*> kinds;         // labels, bit i of a KindMask is kinds[i]
  double min_non_vacuous = 1.0;           // the share of cases that must be non-vacuous
  std::int64_t size_cap = 0;              // > 0: the random engines draw sizes up to this (O(P + D) checks)
  Proof proof;
  std::array<const char*, kEngineCount> excluded{};  // reason, or nullptr when the engine runs it
  Check<std::int64_t> check_int64 = nullptr;
  Check<BigInt> check_big = nullptr;
  // The differential's narrowest model: the sweep calls it where the values fit int16.
  Check<std::int16_t> check_int16 = nullptr;

  const char* exclusion(Engine engine) const { return excluded[static_cast<std::size_t>(engine)]; }
  Verdict check(std::size_t domain, const std::int64_t* values, KindMask* k) const { return check_int64(domain, values, k); }
  Verdict check(std::size_t domain, const BigInt* values, KindMask* k) const { return check_big(domain, values, k); }
};

// Every entry, ordered by family, then name.
const std::vector<Entry>& registry();
const Entry* find_entry(std::string_view name);

// What one engine saw of one entry: how many cases held, were vacuous (and
// why) or were violated, and how often each kind was met by a non-vacuous case.
struct Tally {
  std::uint64_t held = 0;
  std::uint64_t vacuous = 0;
  std::uint64_t violated = 0;
  std::array<std::uint64_t, kMaxKinds> kinds{};
  std::vector<std::pair<const char*, std::uint64_t>> reasons;  // vacuous reasons, by count of first sight

  void add(const Verdict& verdict, KindMask mask);
  void merge(const Tally& other);
  std::uint64_t cases() const { return held + vacuous + violated; }
  std::uint64_t non_vacuous() const { return held + violated; }
  double non_vacuous_share() const;
};

// What coverage the entry declares and the tally lacks: each kind not met
// ("kind 'L > R' never met"), a non-vacuous share below the declared one, no
// case at all. Empty when the tally covers the entry.
std::vector<std::string> coverage_gaps(const Entry& entry, const Tally& tally);

}  // namespace tpcheck::inv
