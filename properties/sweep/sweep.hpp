// The exhaustive sweep behind `tpcheck verify`: every invariant of SPEC §9 on
// every TP pair (L, R) in [1, max_tp]^2, every rank (and the invalid ranks -1
// and L), every head count up to max_heads that both sides can shard (and MLA),
// in int64, with the int64 and cpp_int models compared on every operation.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tpcheck/invariants.hpp"

namespace tpcheck::sweep {

struct Bounds {
  std::int64_t max_tp;
  std::int64_t max_heads;
  int threads;
};

// The smallest violation of one invariant: smallest sizes first, then the
// other arguments in order.
struct Counterexample {
  std::vector<std::int64_t> key;
  std::string input;      // e.g. "round_trip_returns_home(3, 4, 8)"
  std::string violation;  // what the predicate saw
};

struct InvariantTally {
  std::uint64_t cases = 0;
  std::uint64_t violations = 0;
  std::optional<Counterexample> smallest;
};

struct Result {
  std::array<InvariantTally, inv::kInvariantCount> by_invariant;  // index: invariant id - 1
  // How many TP pairs and plan configurations of each kind the sweep reached
  // (e.g. "pair: L < R, not divisible", "plan: prefill replicates, decode
  // splits, divisible"), so a reader sees that every kind was exercised.
  std::map<std::string, std::uint64_t> reached;
  std::uint64_t cases() const;
  std::uint64_t violations() const;
};

Result run(const Bounds& bounds);

}  // namespace tpcheck::sweep
