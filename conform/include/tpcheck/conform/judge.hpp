// Comparing one connector outcome with the model: exactly, or by the relation
// a binding states, naming the kind of any deviation and what it does.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tpcheck/conform/grid.hpp"
#include "tpcheck/conform/profile.hpp"
#include "tpcheck/conform/session.hpp"

namespace tpcheck::conform {

// The model's outcome of operation `op` (operation_index) on any integers:
// int64 when every argument fits, cpp_int otherwise.
std::string model_outcome(std::size_t op, const std::vector<BigInt>& args);

// What a relation that judges a whole configuration found (Relation::findings):
// a kind of the profile's table, what it is about besides the case (one
// value per binding coordinate, nullopt for "-": a per-d kind has no p), and
// the example it shows.
struct Finding {
  std::string kind;
  std::vector<std::optional<BigInt>> at;
  std::string expected;
  std::string actual;
};

// The findings of one configuration as a relation collects them: the first
// example of each kind for each pair (p, d), or (-, d) and (p, -) for the
// kinds about one side.
class FindingSet {
 public:
  using Rank = std::optional<std::int64_t>;

  bool has(const std::string& kind, Rank p, Rank d) const { return seen_.count({kind, p, d}) != 0; }

  // Keeps the first example of (kind, p, d).
  void add(const std::string& kind, Rank p, Rank d, std::string expected, std::string actual) {
    if (!seen_.insert({kind, p, d}).second) return;
    Finding f;
    f.kind = kind;
    f.at = {p ? std::optional<BigInt>(*p) : std::nullopt, d ? std::optional<BigInt>(*d) : std::nullopt};
    f.expected = std::move(expected);
    f.actual = std::move(actual);
    findings_.push_back(std::move(f));
  }

  bool empty() const { return findings_.empty(); }
  std::vector<Finding> take() { return std::move(findings_); }

 private:
  std::set<std::tuple<std::string, Rank, Rank>> seen_;
  std::vector<Finding> findings_;
};

struct Judgement {
  std::optional<Kind> kind;  // nullopt: conforms (or was not compared)
  std::string expected;      // tpcheck eval's notation, or the relation's canonical form
  std::string note;          // which model call the expectation comes from, for relations
  Effect effect = Effect::Unspecified;
  bool too_many = false;      // a count above the expected one
  bool not_compared = false;  // outside what the relation speaks about (a sizing refused by handshake)
  std::string not_compared_reason;  // why, when it is not the binding's usual reason (not_compared_reason())
  std::vector<Finding> findings;  // Relation::findings: everything found in the configuration
  // Relation::findings: what the configuration held ("sends", "decoded bytes"), summed in the report
  std::vector<std::pair<std::string, std::uint64_t>> tallies;
};

// The binding's relation's judgement of the case (nothing for a case not
// run). `op` is the binding's model operation (operation_index of model_op).
Judgement judge(const Binding& binding, std::size_t op, const CaseArgs& args, const Actual& actual);

// Why the cases judge() does not compare are left out (for the report).
std::string not_compared_reason(const Binding& binding);

// The Python exception classes the model raises.
bool is_modelled_exception(const std::string& cls);

// What the relations share (profile.hpp's Relation; each engine's are in its
// folder of conform/engines/):
// the kind of deviation of `actual` from an expected outcome in tpcheck
// eval's notation (a value, or "Class: message"), if any;
std::optional<Kind> classify(const std::string& expected, const Actual& actual);
// the case's arguments as int64, or nullopt (then the case is not compared);
std::optional<std::vector<std::int64_t>> small_args(const CaseArgs& args);
// a configuration whose driver did not answer (the child died, a call hung):
// one finding of the generic kind, about no pair.
Judgement unreadable(const Actual& actual);

}  // namespace tpcheck::conform
